"""Known values that leave in another shape: reversed, rot13, hex, base32, base64 at any
alignment, decimal or octal byte dumps, with separators or line breaks between characters, cut
short, or broken into pieces by a dump's offsets and columns.

A text is looked at through its skeleton: the text with separators removed (white space,
punctuation that tools put between characters or bytes, `0x`/`\\x`/`%` before bytes) and ASCII
letters lower-cased (hex and base32 have no case, and `tr a-z A-Z` is a shape too). Each known
value gives a set of forms, each put through the same skeleton; a form is found where the skeleton
holds a run of it at least `_MIN_RUN` characters long (or the whole form, when it is shorter).
A run then grows across short gaps to the next piece of the same form (an `od -c` offset, an
`xxd` ASCII column, the last short line of a dump), so no tail is left behind.

The forms of a value are built once, when a scan first needs them (`KnownShapes.add`), and
indexed by their 6-character pieces. A scan samples the skeleton every 6 characters and asks the
index about each sample in one set intersection: any run of 11 or more characters holds a
sample, so a scan is linear in the text and does not grow with the number of known values.
"""

from __future__ import annotations

import base64
import codecs
import re
import struct
from bisect import bisect_right
from collections.abc import Iterable, Iterator, KeysView
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain, pairwise

from aish.safety.secrets.anchors import matches_from, positions

Span = tuple[int, int, str]

# Taken out first: the prefixes of escaped bytes (`\x67`, `0x67`), and what a dump or a line
# numberer puts at the start of each line (`00000010: ` of xxd, `0000020 ` of od, `     3\t`
# of `cat -n` and `nl`), so that `fold -w4 | cat -n` or `od -w4 -c` leave the value whole.
_PREFIXES = re.compile(r"\\x|0x|^[ \t]*\d{1,9}\t|^[0-9a-fA-F]{6,16}(?::[ ]| {1,2})", re.MULTILINE)
# The line starts at which one of the last two can match (the regex engine would try `^` at
# every position of the text, 30 ms a megabyte).
_PREFIXED_LINE = re.compile(r"\n(?=[ \t\da-fA-F])")
# Then what tools put between the characters or bytes of a value: white space and punctuation
# (`fold`, `sed 's/./& /g'`, `od`, `aa:bb` lists, Python's list of characters, `%67`).
# Base64's `+/=` and `-_` go too, so its standard and URL-safe alphabets share a skeleton.
_SEPARATOR_CHARS = " \t\n\r\f\v,;:'\"`|\\._/%()[]+=-"
_SEPARATOR_RUNS = re.compile("[" + re.escape(_SEPARATOR_CHARS) + "]+")
_DELETE_SEPARATORS = str.maketrans("", "", _SEPARATOR_CHARS)
_SEPARATOR_BYTES = _SEPARATOR_CHARS.encode("ascii")
_GRAM = 6  # sample width; a run of 2 * _GRAM - 1 characters always holds a whole sample
# Samples are kept as their UTF-32 bytes (four a character, fixed width): `struct` cuts a
# skeleton into them in C, three times faster than a regex makes six-character strings.
_CODEC = "utf-32-le"
_SAMPLE_BYTES = 4 * _GRAM
_ROW = 1024  # samples cut by one `struct` call
_SAMPLE_ROW = struct.Struct(f"{_SAMPLE_BYTES}s" * _ROW)
# A form's side: a sample at every character (lookahead, then one character's four bytes on).
_ALL_SAMPLES = re.compile(rb"(?=(.{%d}))...." % _SAMPLE_BYTES, re.DOTALL)
_MIN_RUN = 12  # characters of a text-like form (the value, reversed, rot13, base64, base32)
_MIN_DIGIT_RUN = 24  # characters of a hex, decimal or octal form: twelve bytes of the value
_MIN_FORM = 8  # a shorter form could turn up by chance
_LONG_VALUE = 160  # characters: longer values are files (keys), not tokens
_GAP = 64  # skeleton characters a run may jump to reach its next piece
_PIECE = 4  # how long that next piece must be (or the rest of the form, if shorter)
_LINE = 80  # the longest line a dump tool writes (base64 76, xxd -p 60)
_URL_PASSWORD = re.compile(r"^[a-z][a-z0-9+.-]*://[^/\s:@]*:([^@\s/]+)@", re.IGNORECASE)


def skeleton(text: str) -> str:
    """`text` without line prefixes and separators: `g h p _ Q 7` and `ghp_Q7` are both
    `ghpQ7`. (`translate` deletes in C, twenty times faster than a regex substitution; but
    `str.translate` takes a slow path for text that is not all ASCII, so such text has its
    separators deleted from its UTF-8 bytes: they are ASCII, which no other character's
    bytes hold.)"""
    if _has_prefixes(text):
        text = _without(text, _prefixes(text))
    if text.isascii():
        return text.translate(_DELETE_SEPARATORS)
    raw = text.encode("utf-8", "surrogatepass").translate(None, _SEPARATOR_BYTES)
    return raw.decode("utf-8", "surrogatepass")


def _has_prefixes(text: str) -> bool:
    return "\\x" in text or "0x" in text or "\n" in text


def _prefixes(text: str) -> list[re.Match[str]]:
    """`_PREFIXES.finditer(text)`, tried only where a match can start: at `\\x`, at `0x`, and
    at the start of a line that begins like a dump's offset or a line number."""
    starts = positions(text, ("\\x", "0x"))
    starts.extend(line.end() for line in _PREFIXED_LINE.finditer(text))
    starts.append(0)
    return list(matches_from(_PREFIXES, text, sorted(set(starts))))


def _without(text: str, stretches: list[re.Match[str]]) -> str:
    """`text` with the matched stretches taken out."""
    if not stretches:
        return text
    kept = []
    position = 0
    for stretch in stretches:
        kept.append(text[position : stretch.start()])
        position = stretch.end()
    kept.append(text[position:])
    return "".join(kept)


def _folded(text: str) -> str:
    """ASCII letters lower-cased, length kept (`str.lower` may lengthen other letters)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = {ord(c): ord(c.lower()) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


@dataclass(frozen=True)
class Form:
    """One shape of a known value, as it stands in the lower-cased skeleton."""

    text: str
    cased: str | None  # the form in its own case, where case matters (base64, the value)
    min_run: int
    type: str


def secret_core(value: str) -> str:
    """The part of `value` whose pieces are secret: a URL's password, else all of it (the host
    and path of a `DATABASE_URL` are no secret, and turn up everywhere)."""
    match = _URL_PASSWORD.match(value)
    return match.group(1) if match else value


def _base64_fragments(raw: bytes) -> set[str]:
    """The characters of `raw`'s base64 that do not depend on its neighbours, at the three
    byte alignments, in the standard and URL-safe alphabets."""
    found = set()
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        start, end = (8 * shift + 5) // 6, (8 * (shift + len(raw))) // 6
        found.add(encoded[start:end])
        found.add(encoded[start:end].replace("+", "-").replace("/", "_"))
    return found


def _base32_fragments(raw: bytes) -> set[str]:
    """The same for base32: five alignments, five bits a character."""
    found = set()
    for shift in range(5):
        encoded = base64.b32encode(b"\0" * shift + raw).decode("ascii")
        start, end = (8 * shift + 4) // 5, (8 * (shift + len(raw))) // 5
        found.add(encoded[start:end])
    return found


@lru_cache(maxsize=1024)
def shape_forms(value: str) -> tuple[tuple[str, str | None, int], ...]:
    """(lower-cased skeleton form, the form's own case or None when it has none, minimum run)
    for every shape of `value`'s secret core. A long value (a private key) gets only the
    shapes a whole file takes (reversed lines, rot13, hex and base64 dumps): the rest would
    cost more to index than they could find."""
    core = secret_core(value)
    long = len(core) > _LONG_VALUE
    text_forms: set[str] = set()
    caseless: set[str] = set()  # base32: upper case only, so its case says nothing
    digit_forms: set[str] = set()
    for base in (core,) if long else (core, core[::-1]):
        raw = base.encode("utf-8")
        text_forms.update((base, codecs.encode(base, "rot13")))
        digit_forms.add(raw.hex())
        text_forms.update(_base64_fragments(raw))
        if long:
            text_forms.update((base[::-1], codecs.encode(base[::-1], "rot13")))
            continue
        caseless.update(_base32_fragments(raw))
        text_forms.add(base64.b64encode(raw).decode("ascii").rstrip("=")[::-1])  # base64 | rev
        caseless.add(base64.b32encode(raw).decode("ascii").rstrip("=")[::-1])
        digit_forms.add(raw.hex()[::-1])  # xxd -p | rev
        if base == core:
            digit_forms.add("".join(str(byte) for byte in raw))  # od -tu1
            digit_forms.add("".join(f"{byte:03o}" for byte in raw))  # od -b
    cased: dict[str, str | None] = {}
    for form in map(skeleton, text_forms):
        # The same letters in another case (base64's upper and lower case differ) are no
        # form: case is only dropped as a whole (`tr a-z A-Z`).
        cased[_folded(form)] = None if _folded(form) in cased else form
    forms = {(folded, form, _MIN_RUN) for folded, form in cased.items()}
    forms.update((_folded(skeleton(f)), None, _MIN_RUN) for f in caseless)
    forms.update((_folded(skeleton(f)), None, _MIN_DIGIT_RUN) for f in digit_forms)
    return tuple(sorted((f for f in forms if len(f[0]) >= _MIN_FORM), key=str))


class KnownShapes:
    """The shapes of the known values, indexed for scanning; grows as values are learned.

    A value is indexed when the next scan needs it, not when it is learned: a scrub learns
    every secret it replaces, and the index of those is only wanted by the scans after it."""

    def __init__(self) -> None:
        self._forms: list[Form] = []
        self._seen: set[str] = set()
        # sample -> the first form holding it; `_more` has the later ones, for the few samples
        # that several forms share. Where in a form a sample stands is found when it is hit:
        # an index of (form, offset) pairs cost ten times more to build than this one.
        self._first: dict[bytes, int] = {}
        self._more: dict[bytes, list[int]] = {}
        self._whole: list[int] = []  # forms shorter than their minimum run: found only whole
        self._pending: dict[str, tuple[str, bool]] = {}  # value -> (type, unless a shape)

    def __len__(self) -> int:
        self._index_pending()
        return len(self._forms)

    def add(self, value: str, type_: str) -> None:
        """Index `value`'s shapes (once; the first type given stays)."""
        self._pending.setdefault(value, (type_, False))

    def add_unless_a_shape(self, value: str, type_: str) -> None:
        """`add`, unless `value` is already one known value's shape (a reversed token, a hex
        dump of one, found and replaced): its own shapes would add nothing but work to every
        scan. Judged against the values added before it, when it is indexed."""
        self._pending.setdefault(value, (type_, True))

    def _index_pending(self) -> None:
        while self._pending:
            value, (type_, unless_a_shape) = next(iter(self._pending.items()))
            del self._pending[value]
            if not (unless_a_shape and self._is_a_shape(value)):
                self._index(value, type_)

    def _is_a_shape(self, value: str) -> bool:
        return any(end - start >= len(value) - 2 for start, end, _ in self._spans(value))

    def _index(self, value: str, type_: str) -> None:
        first, more = self._first, self._more
        for text, cased, min_run in shape_forms(value):
            if text in self._seen:
                continue
            self._seen.add(text)
            form_id = len(self._forms)
            self._forms.append(Form(text, cased, min_run, type_))
            if len(text) < min_run:
                self._whole.append(form_id)
                continue
            # Built in C (one `findall`, one `dict.fromkeys`): this is what a value costs, once.
            pieces = dict.fromkeys(_ALL_SAMPLES.findall(_encoded(text)), form_id)
            for shared in pieces.keys() & first.keys():
                more.setdefault(shared, []).append(form_id)
                del pieces[shared]
            first.update(pieces)

    def spans(self, text: str) -> Iterator[Span]:
        """Where the known values stand in `text` in any of their shapes."""
        self._index_pending()
        return self._spans(text)

    def _spans(self, text: str) -> Iterator[Span]:
        if not self._forms or not text:
            return
        plain = skeleton(text)
        runs = list(self._runs(_folded(plain), plain))
        if runs:
            to_text = _PositionMap(text)
            for start, end, type_ in runs:
                yield to_text.start(start), to_text.end(end), type_

    def _runs(self, skel: str, plain: str) -> Iterator[tuple[int, int, str]]:
        """Runs in `skel` (lower-cased `plain`) of the forms, grown to their pieces."""
        for form_id in self._whole:
            form = self._forms[form_id]
            position = skel.find(form.text)
            while position != -1:
                end = position + len(form.text)
                if _same_case(plain[position:end], form.cased, 0):
                    yield from self._grown(skel, form, position, end, 0)
                position = skel.find(form.text, position + 1)
        if not self._first:
            return
        reached: dict[int, int] = {}  # form id -> end of its last run: samples inside skip
        for position, hit in _hit_samples(skel, self._first.keys()):
            sample = hit.decode(_CODEC, "surrogatepass")
            for form_id, offset in self._places(sample):
                if reached.get(form_id, -1) >= position + _GRAM:
                    continue
                form = self._forms[form_id]
                start, end = _matching_run(skel, position, form.text, offset)
                form_start = offset - (position - start)
                if form.cased is not None and not _same_case(
                    plain[start:end], form.cased, form_start
                ):
                    # A letter of another case next to the run (the end of the line before):
                    # the run is where the case matches too.
                    start, end = _matching_run(plain, position, form.cased, offset)
                    form_start = offset - (position - start)
                if end - start >= form.min_run:
                    reached[form_id] = end
                    yield from self._grown(skel, form, start, end, form_start)

    def _places(self, sample: str) -> Iterator[tuple[int, int]]:
        """(form id, offset) of every place `sample` stands in a form: forms in the order
        they were learned, offsets in order."""
        key = _encoded(sample)
        for form_id in (self._first[key], *self._more.get(key, ())):
            form = self._forms[form_id].text
            offset = form.find(sample)
            while offset != -1:
                yield form_id, offset
                offset = form.find(sample, offset + 1)

    @staticmethod
    def _grown(
        skel: str, form: Form, start: int, end: int, form_start: int
    ) -> Iterator[tuple[int, int, str]]:
        """The run `skel[start:end]` == `form.text[form_start:…]`, grown across short gaps to
        the pieces of the form that continue it on either side, and to the piece that ends
        where it starts when that one follows it (`rev` turns each line of a multi-line form
        around, so the lines come in the other order)."""
        text = form.text
        form_end = form_start + (end - start)
        while form_end < len(text) or form_start > 0:
            if form_end < len(text):
                piece = text[form_end : form_end + _PIECE]
                found = skel.find(piece, end, end + _GAP + len(piece))
                if found != -1:
                    _, grown = _matching_run(skel, found, text, form_end, left=False, width=_PIECE)
                    form_end += grown - found
                    end = grown
                    continue
            if form_start > 0:
                piece = text[max(0, form_start - _PIECE) : form_start]
                found = skel.rfind(piece, max(0, start - _GAP - len(piece)), start)
                if found != -1:
                    grown, _ = _matching_run(
                        skel, found, text, form_start - len(piece), right=False, width=len(piece)
                    )
                    form_start -= found + len(piece) - grown
                    start = grown
                    continue
                # The line before in the form, after in the text: it ends `piece`, found
                # within a line's length.
                found = skel.find(piece, end, end + _GAP + _LINE)
                if found != -1:
                    grown, _ = _matching_run(
                        skel, found, text, form_start - len(piece), right=False, width=len(piece)
                    )
                    if grown >= end:
                        form_start -= found + len(piece) - grown
                        end = found + len(piece)
                        continue
            break
        yield start, end, form.type


def _encoded(text: str) -> bytes:
    return text.encode(_CODEC, "surrogatepass")


def _hit_samples(skel: str, index: KeysView[bytes]) -> list[tuple[int, bytes]]:
    """(position, sample) of the samples of `skel` (every `_GRAM` characters from its
    start; a shorter rest is none) that are in `index`, in order. Each row of samples is
    looked up as it is cut (`&` of a dict's keys and a tuple asks the dict about each item);
    only a row with a hit is walked for where they stand."""
    raw = _encoded(skel)
    count = len(skel) // _GRAM
    rows = count // _ROW
    cut = _SAMPLE_ROW.iter_unpack(memoryview(raw)[: rows * _SAMPLE_ROW.size])
    rest = count - rows * _ROW
    if rest:
        last = struct.unpack_from(f"{_SAMPLE_BYTES}s" * rest, raw, rows * _SAMPLE_ROW.size)
        cut = chain(cut, (last,))
    found: list[tuple[int, bytes]] = []
    for number, row in enumerate(cut):
        hits = index & row
        if hits:
            first = number * _ROW
            found.extend(((first + i) * _GRAM, s) for i, s in enumerate(row) if s in hits)
    return found


def _same_case(found: str, cased: str | None, offset: int) -> bool:
    """Whether `found` is the form's own letters (`cased[offset:]`), or all of them in one
    case; true for forms without case."""
    if cased is None:
        return True
    own = cased[offset : offset + len(found)]
    if found == own:
        return True
    # In one case, a run of the alphabet (a charset table in minified code) matches any value
    # that happens to hold one in mixed case: such a run says nothing.
    return found in (own.lower(), own.upper()) and not _in_order(found)


def _in_order(run: str) -> bool:
    steps = sum(1 for a, b in pairwise(run) if abs(ord(a) - ord(b)) == 1)
    return steps * 4 > len(run) * 3


def _matching_run(
    skel: str,
    position: int,
    form: str,
    offset: int,
    *,
    left: bool = True,
    right: bool = True,
    width: int = 0,
) -> tuple[int, int]:
    """The longest `skel[start:end]` around `position` equal to `form` around `offset`, where
    `skel[position:position + width]` already equals `form[offset:offset + width]` (width 0:
    the sample, checked here)."""
    if width == 0:
        width = min(_GRAM, len(form) - offset)
        if skel[position : position + width] != form[offset : offset + width]:
            return position, position
    start, end = position, position + width
    if right:
        form_at = offset + width
        while end < len(skel) and form_at < len(form) and skel[end] == form[form_at]:
            end += 1
            form_at += 1
    if left:
        form_at = offset - 1
        while start > 0 and form_at >= 0 and skel[start - 1] == form[form_at]:
            start -= 1
            form_at -= 1
    return start, end


_CHUNK = 4096  # characters of text mapped at once


class _PositionMap:
    """Skeleton offsets back to offsets in the text, undoing both steps of `skeleton`.

    The separators are mapped a chunk of text at a time, and only the chunks that an offset
    asked for falls in: a map of every separator run (one in five characters of shell
    output) cost 200 ms a megabyte, to place a handful of findings."""

    def __init__(self, text: str, chunk: int = _CHUNK) -> None:
        prefixes = _prefixes(text) if _has_prefixes(text) else []
        self._prefixes = _Removals(prefixes)
        self._middle = middle = _without(text, prefixes)
        self._chunk = chunk
        # How many skeleton characters stand before each chunk of `middle`.
        kept = (_kept(middle[at : at + chunk]) for at in range(0, len(middle), chunk))
        self._kept_before = [0, *accumulate(kept)]
        self._chunks: dict[int, _Removals] = {}

    def start(self, offset: int) -> int:
        """The text offset of the skeleton character at `offset`."""
        return self._prefixes.before(self._separators_before(offset))

    def _separators_before(self, offset: int) -> int:
        """`offset` in the text before the separators went: the chunk whose skeleton
        characters hold it (the last one, for an offset past them all), then within it."""
        last = len(self._kept_before) - 2
        chunk = max(0, min(bisect_right(self._kept_before, offset) - 1, last))
        at = chunk * self._chunk
        removals = self._chunks.get(chunk)
        if removals is None:
            runs = _SEPARATOR_RUNS.finditer(self._middle[at : at + self._chunk])
            removals = self._chunks[chunk] = _Removals(runs)
        return at + removals.before(offset - self._kept_before[chunk])

    def end(self, offset: int) -> int:
        """The text offset just after the skeleton character before `offset`."""
        return self.start(offset - 1) + 1


def _kept(text: str) -> int:
    """How many characters of `text` are no separator (counted in its UTF-8 bytes, where
    the separators are the ASCII bytes they are, when it is not all ASCII)."""
    if text.isascii():
        return len(text.translate(_DELETE_SEPARATORS))
    raw = text.encode("utf-8", "surrogatepass")
    return len(text) - (len(raw) - len(raw.translate(None, _SEPARATOR_BYTES)))


class _Removals:
    """Where one step took stretches out of a text, to find a kept character again."""

    def __init__(self, matches: Iterable[re.Match[str]]) -> None:
        self._at: list[int] = []  # offset, in the shortened text, at which a stretch stood
        removed: list[int] = []
        kept = previous_end = 0
        for match in matches:
            kept += match.start() - previous_end
            previous_end = match.end()
            self._at.append(kept)
            removed.append(match.end() - match.start())
        self._before = [0, *accumulate(removed)]

    def __bool__(self) -> bool:
        return bool(self._at)

    def before(self, offset: int) -> int:
        """`offset` in the shortened text as an offset in the text before the step."""
        return offset + self._before[bisect_right(self._at, offset)]


__all__ = ["Form", "KnownShapes", "secret_core", "shape_forms", "skeleton"]
