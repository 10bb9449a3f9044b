"""The development secrets corpus (`shared/corpus/secrets.jsonl`) as a test.

Each row's text is scrubbed by a fresh `SecretVault` with nothing known in advance: no kind in
the corpus names a value that only the environment could reveal (the `*-env` kinds are
environment dumps inside the text). A secret is caught when its listed string no longer appears
in the scrubbed text; a negative must come back unchanged. Bars (issue 9): recall 100%, false
positives on negatives at most 5%. The corpus lives outside the repository (see
`tests/corpus_files.py`); the test is skipped only when it is nowhere to be found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from aish.safety.secrets.scrubber import PLACEHOLDER, SecretVault

from ..corpus_files import corpus_file

MAX_FALSE_POSITIVE_RATE = 0.05


@dataclass(frozen=True)
class Row:
    number: int
    text: str
    secrets: tuple[str, ...]
    kind: str


def _rows() -> list[Row]:
    path = corpus_file("secrets.jsonl")
    if path is None:
        pytest.skip("secrets corpus not found: set AISH_CORPUS_DIR or keep ../shared/corpus")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            record = json.loads(line)
            rows.append(Row(number, record["text"], tuple(record["secrets"]), record["kind"]))
    return rows


def _scrubbed(row: Row) -> str:
    return SecretVault().scrub(row.text)


def test_every_listed_secret_is_scrubbed(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [row for row in _rows() if row.secrets]
    assert rows, "the corpus has no rows with secrets"
    missed = []
    total = 0
    for row in rows:
        scrubbed = _scrubbed(row)
        for secret in row.secrets:
            total += 1
            if secret in scrubbed:
                missed.append(f"  line {row.number} ({row.kind}): {secret[:60]!r}")
    with capsys.disabled():
        print(f"\nsecrets corpus recall: {total - len(missed)}/{total} in {len(rows)} rows")
    assert not missed, f"{len(missed)} of {total} secrets left in the text:\n" + "\n".join(missed)


def test_negatives_come_back_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [row for row in _rows() if not row.secrets]
    assert rows, "the corpus has no negatives"
    changed = [row for row in rows if _scrubbed(row) != row.text]
    with capsys.disabled():
        print(f"\nsecrets corpus false positives: {len(changed)}/{len(rows)} negatives changed")
        for row in changed:
            print(f"  line {row.number} ({row.kind}) changed")
    assert len(changed) <= MAX_FALSE_POSITIVE_RATE * len(rows)


def test_scrubbed_rows_are_stable_and_round_trip() -> None:
    for row in _rows():
        vault = SecretVault()
        scrubbed = vault.scrub(row.text)
        assert vault.scrub(scrubbed) == scrubbed, f"line {row.number}: scrubbing twice differs"
        assert vault.unknown_placeholders(scrubbed) == []
        assert vault.rehydrate(scrubbed) == row.text, f"line {row.number}: no round trip"
        assert len(set(PLACEHOLDER.findall(scrubbed))) == len(vault)
