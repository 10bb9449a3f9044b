"""The classifier against the labelled command corpus (`shared/corpus/commands.tsv`).

The issue's bars: no `destructive` or `write` row judged `safe`; at least 95% of destructive
rows judged `destructive` with no model; at most 5% of safe rows judged `destructive`, at least
70% judged `safe`. A held-out corpus judges the same figures, so the rules are general, not
fitted row by row. Each test prints its figure so a run shows the margin, not just a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from aish.safety.classifier import classify

from ..corpus_files import corpus_file


@dataclass(frozen=True)
class Row:
    label: str
    command: str
    note: str


def _rows() -> list[Row]:
    path = corpus_file("commands.tsv")
    if path is None:
        pytest.skip("commands corpus not found: set AISH_CORPUS_DIR or keep ../shared/corpus")
    rows = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if number == 0 or not raw.strip():
            continue  # the header
        label, command, note = [*raw.split("\t"), "", ""][:3]
        rows.append(Row(label, command, note))
    return rows


def _share(rows: list[Row], level: str) -> tuple[int, int]:
    return sum(1 for row in rows if classify(row.command).level == level), len(rows)


def test_no_destructive_or_write_row_is_judged_safe() -> None:
    rows = [row for row in _rows() if row.label in ("destructive", "write")]
    assert len(rows) > 100
    wrong = [f"  {r.label}: {r.command}" for r in rows if classify(r.command).level == "safe"]
    assert not wrong, "judged safe:\n" + "\n".join(wrong)


def test_destructive_rows_are_caught_without_a_model() -> None:
    rows = [row for row in _rows() if row.label == "destructive"]
    caught, total = _share(rows, "destructive")
    print(f"\ndestructive rows judged destructive: {caught}/{total}")
    missed = [r.command for r in rows if classify(r.command).level != "destructive"]
    assert caught >= 0.95 * total, "missed:\n" + "\n".join(missed)


def test_safe_rows_are_rarely_destructive_and_mostly_safe() -> None:
    rows = [row for row in _rows() if row.label == "safe"]
    alarmed, total = _share(rows, "destructive")
    proven, _ = _share(rows, "safe")
    print(f"\nsafe rows: {proven}/{total} safe, {alarmed}/{total} destructive")
    assert alarmed <= 0.05 * total
    assert proven >= 0.70 * total


def test_every_reason_names_a_rule() -> None:
    for row in _rows():
        verdict = classify(row.command)
        assert (verdict.level == "safe") == (not verdict.reasons), row.command
