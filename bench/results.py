"""bench/RESULTS.md is shared: each benchmark owns one section between its own markers."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(name: str, title: str, rows: list[str]) -> None:
    """Replace (or append) the section `name` with `title` and `rows`, leaving the rest."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    section = "\n".join([start, title, "", *rows, end])
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\n"
    if start in text and end in text:
        text = text[: text.index(start)] + section + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    RESULTS.write_text(text)
