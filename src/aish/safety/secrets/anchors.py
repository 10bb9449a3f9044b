"""Running a rule's regex only where its matches can start.

A regex that opens with a look-behind, a word boundary, a character class or a case-blind word
is tried by the regex engine at every position of the text: about 30 ms a megabyte each, and
the scrubber has some forty. Every match of such a rule holds a literal (its head: `-p`,
`token`, `://`) at a known distance from its start, and `str.find` finds literals at memory
speed. So each rule says where its matches can start, given where its heads stand (`Anchored`),
and the regex is tried only there, in order, skipping what a match already covered: the same
matches as `pattern.finditer(text)`, found in a fraction of the time. The tests hold each rule
to its plain `finditer` on random text.

Case-blind rules find their heads in `fold(text)`, in which every character that a case-blind
ASCII letter of a pattern matches is that letter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

# (text, `fold(text)` if the caller has it) -> the positions a match can start at, sorted
Starts = Callable[[str, str | None], Iterable[int]]


def fold(text: str) -> str:
    """`text` lower-cased for finding ASCII heads, length kept. Besides A-Z, `(?i)` matches
    four characters to ASCII letters: İ and ı (i), ſ (s), the Kelvin sign (k); `str.lower`
    lengthens İ and keeps ı and ſ, so those three are put right by hand (rare: only then)."""
    if text.isascii():
        return text.lower()
    if "\u0130" in text:
        text = text.replace("\u0130", "i")
    lowered = text.lower()
    if "\u0131" in lowered or "\u017f" in lowered:
        lowered = lowered.replace("\u0131", "i").replace("\u017f", "s")
    return lowered


def positions(haystack: str, heads: Iterable[str]) -> list[int]:
    """Where each of `heads` stands in `haystack`, every occurrence, sorted."""
    if isinstance(haystack, Folded):
        return haystack.positions(heads)
    found: set[int] = set()
    for head in heads:
        found.update(_occurrences(haystack, head))
    return sorted(found)


def _occurrences(haystack: str, head: str) -> list[int]:
    found = []
    position = haystack.find(head)
    while position != -1:
        found.append(position)
        position = haystack.find(head, position + 1)
    return found


class Folded(str):
    """`fold(text)` that remembers where each head stands in it. The case-blind rules of one
    scan look for the same words (`token`, `secret`, `pass`… six rules each): each is found
    once, and a head that a found one begins (`password` after `pass`) is picked from its
    places instead of searched for again."""

    def __init__(self, folded: str) -> None:
        super().__init__()
        self._places: dict[str, list[int]] = {}

    def positions(self, heads: Iterable[str]) -> list[int]:
        """`positions(self, heads)`, from what earlier calls found."""
        found: set[int] = set()
        for head in heads:
            found.update(self._of(head))
        return sorted(found)

    def _of(self, head: str) -> list[int]:
        places = self._places.get(head)
        if places is None:
            shorter = [h for h in self._places if head.startswith(h)]
            if shorter:
                start = max(shorter, key=len)
                places = [p for p in self._places[start] if self.startswith(head, p)]
            else:
                places = _occurrences(self, head)
            self._places[head] = places
        return places


def at_heads(*heads: str, back: int = 0) -> Starts:
    """Matches start `back` characters before a head (case-blind: heads are lower case)."""

    def starts(text: str, folded: str | None) -> list[int]:
        haystack = fold(text) if folded is None else folded
        return [max(0, p - back) for p in positions(haystack, heads)]

    return starts


def at_cased_heads(*heads: str, back: int = 0) -> Starts:
    """Matches start `back` characters before a head, in its own case."""

    def starts(text: str, _folded: str | None) -> list[int]:
        return [max(0, p - back) for p in positions(text, heads)]

    return starts


def before_hits(hit: re.Pattern[str], nearest: int, farthest: int) -> Starts:
    """Matches start `nearest` to `farthest` characters before a match of `hit`, a regex that
    every match holds (found with a literal prefix, so at memory speed)."""

    def starts(text: str, _folded: str | None) -> list[int]:
        found = {
            start
            for match in hit.finditer(text)
            for start in range(max(0, match.start() - farthest), match.start() - nearest + 1)
        }
        return sorted(found)

    return starts


@dataclass(frozen=True)
class Anchored:
    """`pattern`, tried only at `starts` (which hold every position a match can start at)."""

    pattern: re.Pattern[str]
    starts: Starts

    def finditer(self, text: str, folded: str | None = None) -> Iterator[re.Match[str]]:
        """The matches of `pattern.finditer(text)`: tried at each candidate in order, and not
        inside a match already found. `folded` is `fold(text)`, when the caller has it."""
        yield from matches_from(self.pattern, text, self.starts(text, folded))


def matches_from(
    pattern: re.Pattern[str], text: str, starts: Iterable[int]
) -> Iterator[re.Match[str]]:
    """`pattern`'s matches starting at sorted `starts`, none inside the one before (as
    `finditer` would find them, if every match starts at one of `starts`)."""
    end = 0
    for start in starts:
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            end = max(match.end(), start + 1)
            yield match


def line_matches(
    pattern: re.Pattern[str], text: str, heads: Iterable[int]
) -> Iterator[re.Match[str]]:
    """`pattern.finditer` on each line holding one of `heads` (positions), for a pattern that
    matches within a line and holds a head: lines without one hold no match."""
    done = -1
    for head in heads:
        if head <= done:
            continue
        start = text.rfind("\n", 0, head) + 1
        end = text.find("\n", head)
        done = end = len(text) if end == -1 else end
        yield from pattern.finditer(text, start, end)


class AtLineStarts:
    """A multi-line `pattern` opening with `^` whose matches stay within their line, tried
    only where a line starts. The regex engine tries `^` at every position of the text (5 ms
    a megabyte); the same pattern opening with a line break instead finds the breaks at
    memory speed, and each line it matches is matched again from its start, so the matches
    are `pattern`'s own."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        if not (pattern.pattern.startswith("^") and pattern.flags & re.MULTILINE):
            raise ValueError("AtLineStarts needs a multi-line pattern opening with ^")
        self.pattern = pattern
        self._after_break = re.compile("\n(?:" + pattern.pattern[1:] + ")", pattern.flags)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of `self.pattern.finditer(text)`."""
        first = self.pattern.match(text)
        if first is not None:
            yield first
        for found in self._after_break.finditer(text):
            match = self.pattern.match(text, found.start() + 1)
            if match is not None:
                yield match


_LEADING = re.compile(
    r"(?P<flags>\(\?[a-z]+\))?"
    r"(?:\\b|\(\?<!(?P<behind>\[[^\]]+\]|\\w)\))"
    r"(?P<literal>(?:[A-Za-z0-9_-]|\\[.\[(])+)(?![*+?{])"  # a quantifier takes its char
)


def literal_first(pattern: str) -> str:
    """`\\bghp_…` → `ghp_(?<!\\w[\\s\\S]{4})…`, `(?<![\\w-])-p…` → `-p(?<![\\w-][\\s\\S]{2})…`:
    the same matches, but a leading word boundary or look-behind costs the regex engine its
    fast search for a literal prefix (twenty times slower), so it is checked behind the
    literal instead. A `\\b` is only taken before a word character, where it means `(?<!\\w)`."""
    head = _LEADING.match(pattern)
    if head is None:
        return pattern
    literal = head.group("literal")
    behind = head.group("behind")
    if behind is None:
        if not re.match(r"\w", literal):
            return pattern
        behind = r"\w"
    width = len(re.sub(r"\\(.)", r"\1", literal))
    flags = head.group("flags") or ""
    return f"{flags}{literal}(?<!{behind}[\\s\\S]{{{width}}}){pattern[head.end() :]}"


__all__ = [
    "Anchored",
    "AtLineStarts",
    "Folded",
    "at_cased_heads",
    "at_heads",
    "before_hits",
    "fold",
    "line_matches",
    "literal_first",
    "matches_from",
    "positions",
]
