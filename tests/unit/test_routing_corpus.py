"""The development routing corpus (`shared/corpus/routing.tsv`) as a test.

Every row not marked `ambiguous` must route as labelled. Ambiguous rows have no right answer to
assert: `bench/routing_corpus.py` reports them. The corpus lives outside the repository:
`$AISH_CORPUS_DIR`, else `<repo>/../shared/corpus`, else the workplace's `/work/shared/corpus`;
the test is skipped only when none exists (a machine without the corpus).
The command set is the fixed one the corpus README assumes, never this machine's PATH.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from aish.agent.routing import route_line

from ..corpus_files import corpus_file
from .test_routing_fixture import CORPUS_KNOWN

_LABELS = {"shell": "shell", "model": "ai", "meta": "meta"}


@dataclass(frozen=True)
class Row:
    label: str
    line: str
    note: str

    @property
    def ambiguous(self) -> bool:
        return self.note.strip() == "ambiguous"


def _corpus_file() -> Path | None:
    return corpus_file("routing.tsv")


def _rows() -> list[Row]:
    path = _corpus_file()
    if path is None:
        pytest.skip("routing corpus not found: set AISH_CORPUS_DIR or keep ../shared/corpus")
    rows = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if number == 0 or not raw.strip():
            continue  # the header
        label, line, note = [*raw.split("\t"), "", ""][:3]
        rows.append(Row(label, line, note))
    return rows


def _got(row: Row) -> tuple[str, str]:
    route = route_line(row.line, CORPUS_KNOWN)
    return _LABELS[route.target], route.reason


def test_every_unambiguous_row_routes_as_labelled() -> None:
    rows = [row for row in _rows() if not row.ambiguous]
    assert rows, "the corpus has no unambiguous rows"
    failures = []
    for row in rows:
        got, reason = _got(row)
        if got != row.label:
            failures.append(f"  {row.line!r}: want {row.label}, got {got} ({reason})")
    print(f"\nrouting corpus, unambiguous: {len(rows) - len(failures)}/{len(rows)}")
    assert not failures, f"{len(failures)} of {len(rows)} rows misrouted:\n" + "\n".join(failures)
