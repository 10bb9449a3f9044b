"""Finding secrets in a text: known values in every encoding, then shapes and contexts, then
one non-overlapping list.

Known values are looked for as they are and as they travel: base64 (standard and URL-safe,
with and without padding, and at the three byte alignments, so a value inside a longer
base64 blob such as `user:value` is found too), URL-encoded and JSON-escaped, as CI log
maskers do; and in the shapes of `shapes` (reversed, hex, base32, rot13, spaced out,
cut short). Overlapping candidates merge into their union, named by the longest (ties go to
the more specific rule), so no part of a secret is left behind; a span that starts or ends
inside a word takes the whole word, so that its placeholder stands alone as one. Spans that
touch a placeholder keep only what lies outside it: placeholders are never findings.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from aish.safety.secrets.contexts import context_spans
from aish.safety.secrets.patterns import private_key_spans, token_spans, turned_key_spans
from aish.safety.secrets.shapes import KnownShapes
from aish.safety.secrets.values import PLACEHOLDER, AssignmentLine

# Lower wins a tie between spans of the same length.
_FORMAT, _KNOWN, _CONTEXT = 0, 1, 2
_MIN_ENCODED = 8  # shorter encoded fragments could match by chance


@dataclass(frozen=True)
class Finding:
    """`text[start:end]` is a secret (`value`) of kind `type`, the upper-case name used in its
    placeholder: GITHUB_TOKEN, PRIVATE_KEY, URL_PASSWORD, PASSWORD, ENV_<NAME> …"""

    type: str
    start: int
    end: int
    value: str


_Candidate = tuple[int, int, str, int]  # start, end, type, rank


def find_secrets(
    text: str,
    known: Mapping[str, str] = {},
    shapes: KnownShapes | None = None,
    lines: list[AssignmentLine] | None = None,
) -> list[Finding]:
    """Non-overlapping findings sorted by start: the `known` values (value -> type) in plain,
    base64, URL-encoded and JSON-escaped forms and in every shape of `shapes`, and
    secret-shaped strings by pattern. `shapes` is the known values' index when the caller
    keeps one (the vault does); else it is built from `known`. `lines` are
    `assignment_lines(text)` when the caller has them (the vault learns from them first)."""
    if not text:
        return []
    candidates: list[_Candidate] = []
    candidates.extend(_known_candidates(text, known))
    if shapes is None and known:
        shapes = _shapes(frozenset(known.items()))
    if shapes is not None:
        candidates.extend((s, e, t, _KNOWN) for s, e, t in shapes.spans(text))
    candidates.extend((s, e, t, _FORMAT) for s, e, t in token_spans(text))
    candidates.extend((s, e, t, _FORMAT) for s, e, t in private_key_spans(text))
    candidates.extend((s, e, t, _FORMAT) for s, e, t in turned_key_spans(text))
    candidates.extend((s, e, t, _CONTEXT) for s, e, t in context_spans(text, lines))
    candidates = _outside_placeholders(text, candidates)
    spans = _merged([(s, e, t, 0) for s, e, t in _widened(text, _merged(candidates))])
    return [Finding(t, s, e, text[s:e]) for s, e, t in spans]


def _known_candidates(text: str, known: Mapping[str, str]) -> Iterable[_Candidate]:
    if not known:
        return
    for form, type_ in _forms(frozenset(known.items())):
        position = text.find(form)
        while position != -1:
            yield position, position + len(form), type_, _KNOWN
            position = text.find(form, position + 1)


@lru_cache(maxsize=16)
def _shapes(known: frozenset[tuple[str, str]]) -> KnownShapes:
    shapes = KnownShapes()
    for value, type_ in sorted(known):
        if value and not PLACEHOLDER.search(value):
            shapes.add(value, type_)
    return shapes


@lru_cache(maxsize=64)
def _forms(known: frozenset[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Every form to look for: (text, type), each text once, longest first."""
    forms: dict[str, str] = {}
    for value, type_ in sorted(known):
        if not value or PLACEHOLDER.fullmatch(value):
            continue
        forms.setdefault(value, type_)
        for form in encoded_forms(value):
            if len(form) >= _MIN_ENCODED:
                forms.setdefault(form, type_)
    return tuple(sorted(forms.items(), key=lambda item: -len(item[0])))


def encoded_forms(value: str) -> set[str]:
    """How `value` may appear once encoded: base64 (also inside a longer blob), URL-encoded,
    JSON-escaped. The plain value itself is not included."""
    import json  # only sessions with known values pay for these
    from urllib.parse import quote, quote_plus

    raw = value.encode("utf-8")
    forms = {
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        json.dumps(value)[1:-1].replace("/", "\\/"),
        quote(value, safe=""),
        quote(value),
        quote_plus(value, safe=""),
    }
    for shift in range(3):
        # With `shift` bytes before it, the value's own base64 characters run from
        # ceil(8*shift/6) to floor(8*(shift+len)/6); the ones outside depend on neighbours.
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        start, end = (8 * shift + 5) // 6, (8 * (shift + len(raw))) // 6
        fragment = encoded[start:end]
        forms.add(fragment)
        forms.add(fragment.replace("+", "-").replace("/", "_"))
    plain = base64.b64encode(raw).decode("ascii")
    forms.update({plain, base64.urlsafe_b64encode(raw).decode("ascii")})
    forms.discard(value)
    return {form for form in forms if form}


def _widened(text: str, spans: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """Each span grown to whole word characters at both ends: a placeholder is only one where
    it stands alone (`\\bAISH_SECRET_…\\b`), so `-pSECRET` is replaced from the `p`, and a value
    inside a longer base64 blob takes the blob's word with it."""
    for start, end, type_ in spans:
        # A word character is one `str.isalnum` takes, or `_`: what `\w` matches.
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        rest = _WORD_REST.match(text, end)  # `\w*` matches everywhere, if only nothing
        yield start, end if rest is None else rest.end(), type_


_WORD_REST = re.compile(r"\w*")


def _outside_placeholders(text: str, candidates: list[_Candidate]) -> list[_Candidate]:
    """Cut placeholders out of every candidate; keep the pieces long enough to matter."""
    if "AISH_SECRET_" not in text:
        return candidates
    holes = [(m.start(), m.end()) for m in PLACEHOLDER.finditer(text)]
    if not holes:
        return candidates
    kept: list[_Candidate] = []
    for start, end, type_, rank in candidates:
        pieces = [(start, end)]
        for hole_start, hole_end in holes:
            if hole_start >= end or hole_end <= start:
                continue
            pieces = [
                piece
                for s, e in pieces
                for piece in ((s, min(e, hole_start)), (max(s, hole_end), e))
                if piece[1] > piece[0]
            ]
        kept.extend((s, e, type_, rank) for s, e in pieces if _worth_keeping(text[s:e]))
    return kept


def _worth_keeping(piece: str) -> bool:
    return sum(c.isalnum() for c in piece) >= _MIN_ENCODED


def _merged(candidates: list[_Candidate]) -> list[tuple[int, int, str]]:
    """Union of overlapping candidates, each union named by its longest member."""
    merged: list[tuple[int, int, str]] = []
    best: _Candidate | None = None
    cluster_start = cluster_end = -1
    for candidate in sorted(candidates, key=lambda c: (c[0], c[0] - c[1], c[3])):
        start, end, _, _ = candidate
        if best is not None and start < cluster_end:
            cluster_end = max(cluster_end, end)
            if _better(candidate, best):
                best = candidate
            continue
        if best is not None:
            merged.append((cluster_start, cluster_end, best[2]))
        best, cluster_start, cluster_end = candidate, start, end
    if best is not None:
        merged.append((cluster_start, cluster_end, best[2]))
    return merged


def _better(candidate: _Candidate, best: _Candidate) -> bool:
    length, best_length = candidate[1] - candidate[0], best[1] - best[0]
    return length > best_length or (length == best_length and candidate[3] < best[3])
