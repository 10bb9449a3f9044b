"""A program's documentation (a man page as `man` prints it, or `--help` text) read into a
table of its options: each entry's names, whether it takes a value, and its description.

Both formats put an option's names at the start of an indented line (`-x, --extract`,
`-C DIR`, `--file=ARCHIVE`, `-name pattern`) and its description either after a gap of two
or more spaces on the same line or on the lines below, indented further. That shape is all this
reads: no section names, no troff, nothing language-specific.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["OptionEntry", "OptionTable", "read_option_table"]

# An option name at the start of a header piece: `-x`, `--extract`, `-name`, `-?`, `-1`.
_NAME = re.compile(r"-{1,2}[A-Za-z0-9?@#][A-Za-z0-9_.?@#+-]*")
# What may follow a name in a header: the end, a value, a list separator.
_AFTER_NAME = re.compile(r"$|[ =\[<,;|]")
# The gap between a header and a description on the same line.
_GAP = re.compile(r"\s{2,}")
# Lines kept per entry: enough for a long man page paragraph, bounded for a hostile one.
_MAX_LINES = 40


@dataclass(frozen=True)
class OptionEntry:
    """One documented option: `names` as written (`-x`, `--extract`, `--get`), the header line
    as the documentation shows it, and the description lines below or beside it."""

    names: tuple[str, ...]
    header: str
    lines: tuple[str, ...]
    # The option takes the next word (or the rest of a short-option bundle) as its value.
    takes_value: bool


@dataclass(frozen=True)
class OptionTable:
    """What a program's documentation says: a one-or-two-line summary and its options."""

    summary: tuple[str, ...]
    entries: tuple[OptionEntry, ...]

    def entry(self, name: str) -> OptionEntry | None:
        """The first entry documenting `name` exactly. One with a description comes first: a
        paragraph line that happens to start with an option (`--help and --version exit`) reads
        like a header too, but the paragraph's next line ends it at once."""
        named = [entry for entry in self.entries if name in entry.names]
        return next((entry for entry in named if entry.lines), named[0] if named else None)

    def long_prefix(self, name: str) -> OptionEntry | None:
        """The entry a GNU-style abbreviation `--ext` stands for, when only one fits."""
        found = {
            e.header: e
            for e in self.entries
            if any(n.startswith(name) for n in e.names if n.startswith("--"))
        }
        return next(iter(found.values())) if len(found) == 1 else None


@dataclass
class _Open:
    """The entry being read: its header's indent and where its description lines start."""

    names: tuple[str, ...]
    header: str
    takes_value: bool
    indent: int
    body_indent: int | None
    lines: list[str]


def read_option_table(text: str, *, man_page: bool) -> OptionTable:
    """The options `text` documents. Never raises; text without options gives an empty table."""
    lines = [line.expandtabs(8).rstrip() for line in text.splitlines()]
    entries: list[OptionEntry] = []
    current: _Open | None = None
    pending_blank = False
    for line in lines:
        if not line.strip():
            pending_blank = current is not None
            continue
        indent = len(line) - len(line.lstrip())
        if current is not None and _continues(current, indent):
            if current.body_indent is None:
                current.body_indent = indent
            if pending_blank and current.lines:
                current.lines.append("")
            if len(current.lines) < _MAX_LINES:
                current.lines.append(line.strip())
            pending_blank = False
            continue
        opened = _header(line, indent)
        if current is not None and opened is not None and _aliases(current, opened):
            # `-a` on one line and `--all` on the next, one description below both.
            opened.names = current.names + opened.names
            opened.header = f"{current.header}, {opened.header}"
            opened.takes_value = opened.takes_value or current.takes_value
        elif current is not None:
            entries.append(_closed(current))
        pending_blank = False
        current = opened
    if current is not None:
        entries.append(_closed(current))
    summary = _man_summary(lines) if man_page else _help_summary(lines)
    return OptionTable(summary, tuple(entries))


def _continues(current: _Open, indent: int) -> bool:
    """A line belongs to the open entry when indented past its header (and, once the body's
    indent is known, at least as far as the body: a nested `-T option` stays description)."""
    if current.body_indent is not None:
        return indent >= current.body_indent
    return indent > current.indent


def _aliases(current: _Open, opened: _Open) -> bool:
    return not current.lines and current.indent == opened.indent


def _header(line: str, indent: int) -> _Open | None:
    """The entry a line opens, when it starts with option names."""
    stripped = line.strip()
    head, description = stripped, ""
    gap = _GAP.search(stripped)
    if gap is not None:
        head, description = stripped[: gap.start()], stripped[gap.end() :]
    names: list[str] = []
    takes_value = False
    for piece in re.split(r",\s*|\s+\|\s+|\s+or\s+", head):
        match = _NAME.match(piece)
        if match is None or not _AFTER_NAME.match(piece, match.end()):
            break
        names.append(match.group())
        rest = piece[match.end() :]
        # `-C DIR`, `--file=ARCHIVE`, `-o <file>` take a value; `--occurrence[=N]` may.
        takes_value = takes_value or bool(re.match(r"\s*[=\s<]\s*\S", rest))
    if not names:
        return None
    body_indent = indent + len(stripped) - len(description) if description else None
    return _Open(
        tuple(names),
        head,
        takes_value,
        indent,
        body_indent,
        [description] if description else [],
    )


def _closed(current: _Open) -> OptionEntry:
    while current.lines and not current.lines[-1]:
        current.lines.pop()
    return OptionEntry(current.names, current.header, tuple(current.lines), current.takes_value)


def _man_summary(lines: list[str]) -> tuple[str, ...]:
    """The NAME section's line (`tar - an archiving utility`)."""
    for index, line in enumerate(lines):
        if line.strip() and line == line.lstrip() and line.strip().upper() == "NAME":
            body: list[str] = []
            for following in lines[index + 1 :]:
                if not following.strip():
                    if body:
                        break
                    continue
                if following == following.lstrip():
                    break
                body.append(following.strip())
            return (" ".join(body),) if body else ()
    return ()


def _help_summary(lines: list[str]) -> tuple[str, ...]:
    """The first two lines of `--help` text (usually the usage line and what it does)."""
    return tuple(line.strip() for line in lines if line.strip())[:2]
