"""The repository's own secrets cases (`tests/data/secrets_extra.jsonl`), scored like the shared
development corpus (`test_secrets_corpus.py`): secrets named by their context (JSON, YAML, XML,
INI, PHP, `.pgpass`, cookies, URL parameters, process listings, `APP_KEY`, Kubernetes Secrets,
prose) and negatives that look like them (trace ids, UUIDs, fingerprints, digests, git SHAs,
harmless settings, references, placeholders). Each row's text is scrubbed by a fresh
`SecretVault`; a secret is caught when its listed string no longer appears; a negative must come
back unchanged. Bars (issue 17): recall 100%, negatives touched at most 5%.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from aish.safety.secrets.scrubber import PLACEHOLDER, SecretVault

DATA = Path(__file__).resolve().parents[1] / "data" / "secrets_extra.jsonl"
MAX_FALSE_POSITIVE_RATE = 0.05


@dataclass(frozen=True)
class Row:
    number: int
    text: str
    secrets: tuple[str, ...]
    kind: str


def _rows() -> list[Row]:
    rows = []
    for number, line in enumerate(DATA.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            record = json.loads(line)
            rows.append(Row(number, record["text"], tuple(record["secrets"]), record["kind"]))
    return rows


def test_the_data_covers_every_family() -> None:
    rows = _rows()
    kinds = {row.kind for row in rows if row.secrets}
    assert len([row for row in rows if row.secrets]) >= 60
    assert len([row for row in rows if not row.secrets]) >= 20
    assert kinds >= {
        "json-key", "yaml-key", "xml-tag", "ini", "php-define", "pgpass", "cookie",
        "url-param", "ps", "app-key", "k8s-secret", "prose",
    }  # fmt: skip
    for row in rows:
        for secret in row.secrets:
            assert secret in row.text, f"line {row.number}: listed secret not in its text"


def test_every_listed_secret_is_scrubbed(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [row for row in _rows() if row.secrets]
    missed = []
    total = 0
    for row in rows:
        scrubbed = SecretVault().scrub(row.text)
        for secret in row.secrets:
            total += 1
            if secret in scrubbed:
                missed.append(f"  line {row.number} ({row.kind}): {secret[:60]!r}")
    with capsys.disabled():
        print(f"\nextra secrets recall: {total - len(missed)}/{total} in {len(rows)} rows")
    assert not missed, f"{len(missed)} of {total} secrets left in the text:\n" + "\n".join(missed)


def test_negatives_come_back_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [row for row in _rows() if not row.secrets]
    changed = [row for row in rows if SecretVault().scrub(row.text) != row.text]
    with capsys.disabled():
        print(f"\nextra secrets false positives: {len(changed)}/{len(rows)} negatives changed")
        for row in changed:
            print(f"  line {row.number} ({row.kind}) changed")
    assert len(changed) <= MAX_FALSE_POSITIVE_RATE * len(rows)


def test_scrubbed_rows_are_stable_and_round_trip() -> None:
    for row in _rows():
        vault = SecretVault()
        scrubbed = vault.scrub(row.text)
        assert vault.scrub(scrubbed) == scrubbed, f"line {row.number}: scrubbing twice differs"
        assert vault.rehydrate(scrubbed) == row.text, f"line {row.number}: no round trip"
        assert len(set(PLACEHOLDER.findall(scrubbed))) == len(vault)


def test_a_kubernetes_secret_teaches_its_decoded_values() -> None:
    rows = [row for row in _rows() if row.kind == "k8s-secret" and "stringData" not in row.text]
    assert rows
    for row in rows:
        vault = SecretVault()
        vault.scrub(row.text)
        for secret in row.secrets:
            decoded = base64.b64decode(secret).decode()
            later = f"$ printenv | grep X\nX={decoded}\n"
            assert decoded not in vault.scrub(later), f"line {row.number}: {decoded!r} not learned"
