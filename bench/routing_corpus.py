"""How the router does on the development routing corpus (`shared/corpus/routing.tsv`).

The unambiguous rows must all route as labelled, and `tests/unit/test_routing_corpus.py` asserts
that. The rows marked `ambiguous` have no right answer to assert: this reports how many route as
labelled and why the others do not, so a change to the routing heuristics shows what it moved.
The command set is the fixed one the corpus README assumes (the tests' own fixture), never this
machine's PATH. Results go into bench/RESULTS.md between this bench's markers, unless
`--no-write`.

    .venv/bin/python bench/routing_corpus.py [--no-write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from aish.agent.routing import route_line
from results import write_section  # bench/ is the script directory, so this resolves

# The corpus lookup and the fixed command set live with the tests, which assert on them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.corpus_files import corpus_file
from tests.unit.test_routing_fixture import CORPUS_KNOWN

_LABELS = {"shell": "shell", "model": "ai", "meta": "meta"}


def _rows(path: Path) -> list[tuple[str, str, str]]:
    """(label, line, note) for every row after the header."""
    rows = []
    for raw in path.read_text(encoding="utf-8").splitlines()[1:]:
        if raw.strip():
            label, line, note = [*raw.split("\t"), "", ""][:3]
            rows.append((label, line, note.strip()))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-write", action="store_true")
    arguments = parser.parse_args()
    path = corpus_file("routing.tsv")
    if path is None:
        print("routing corpus not found: set AISH_CORPUS_DIR or keep ../shared/corpus")
        return 1
    rows = _rows(path)
    plain = [(label, line) for label, line, note in rows if note != "ambiguous"]
    ambiguous = [(label, line) for label, line, note in rows if note == "ambiguous"]
    plain_agree = sum(
        _LABELS[route_line(line, CORPUS_KNOWN).target] == label for label, line in plain
    )
    missed = []
    for label, line in ambiguous:
        route = route_line(line, CORPUS_KNOWN)
        if _LABELS[route.target] != label:
            cells = (f"`{line}`", label, _LABELS[route.target], route.reason)
            missed.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    out = [
        f"Run {dt.date.today().isoformat()}; {path.name}, {len(rows)} rows, the corpus README's "
        "fixed command set.",
        "",
        "| rows | routed as labelled |",
        "|---|---|",
        f"| unambiguous (asserted by the tests) | {plain_agree}/{len(plain)} |",
        f"| ambiguous (reported only) | {len(ambiguous) - len(missed)}/{len(ambiguous)} |",
        "",
        "Ambiguous rows routed against their label:",
        "",
        "| line | labelled | routed | why |",
        "|---|---|---|---|",
        *missed,
    ]
    print("\n".join(out))
    if not arguments.no_write:
        write_section("routing_corpus", "## Routing on the development corpus", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
