"""Characters that are not seen as what they are: the one definition aish uses everywhere.

Two kinds. *Control* characters drive a terminal: C0 but tab and newline, DEL and C1 (ESC
starts a sequence that moves the cursor, erases, hides text, writes the clipboard; U+009B is
the one-byte CSI). *Invisible* characters drive nothing but change what a reader sees: bidi
controls (U+202E turns `txt.exe` into `exe.txt`), zero-width characters (U+200B), the soft
hyphen, tag characters, blank fillers, line and paragraph separators, and lone surrogates
(bytes that were not UTF-8, kept by `surrogateescape`).

The terminal views make both kinds visible (`aish.ui.render.visible_text`), text written to a pipe
loses the control sequences (`aish.ui.render.control_sequences`), and a command line or tool call
that holds any of them is never `safe`: what the user is shown is not what runs.

Variation selectors (U+FE0F) are not here: they only choose how a visible emoji is drawn. The
zero-width joiner (U+200D) is, although it also glues emoji sequences together: on its own it
is invisible, and no command needs it.

The set is written out rather than computed from `unicodedata` at import (that walk costs a
tenth of a second before the first prompt); a unit test checks it covers every format (Cf),
line (Zl) and paragraph (Zp) separator character of the running Python.
"""

from __future__ import annotations

import re

__all__ = [
    "CONTROL",
    "UNSEEN",
    "describe",
    "hidden_characters_reason",
    "is_control",
    "unseen_in",
]

# C0 but tab and newline, DEL, C1.
_CONTROL_CLASS = "\x00-\x08\x0b-\x1f\x7f-\x9f"
_INVISIBLE_CLASS = (
    "\u00ad"  # soft hyphen
    "\u034f"  # combining grapheme joiner
    "\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2"  # Arabic and Syriac format marks
    "\u115f\u1160\u17b4\u17b5\u180e\u3164\uffa0"  # fillers and vowels that draw nothing
    "\u200b-\u200f"  # zero-width space, non-joiner, joiner; LRM, RLM
    "\u2028-\u202e"  # line and paragraph separators; bidi embeddings and overrides
    "\u2060-\u206f"  # word joiner, invisible operators, bidi isolates, deprecated formats
    "\ufeff\ufff9-\ufffb"  # zero-width no-break space (BOM); interlinear annotations
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f"  # tag characters
    "\ud800-\udfff"  # lone surrogates
)
CONTROL = re.compile(f"[{_CONTROL_CLASS}]")
"""A character that drives a terminal."""
UNSEEN = re.compile(f"[{_CONTROL_CLASS}{_INVISIBLE_CLASS}]")
"""A character that drives a terminal or is not seen as what it is."""

_NAMES = {"\x1b": "ESC", "\r": "CR", "\x07": "BEL", "\x08": "BS", "\x9b": "CSI"}


def is_control(char: str) -> bool:
    return CONTROL.match(char) is not None


def unseen_in(text: str) -> list[str]:
    """The distinct unseen characters of `text`, in the order they first appear."""
    return list(dict.fromkeys(UNSEEN.findall(text)))


def describe(char: str) -> str:
    """`U+202E RIGHT-TO-LEFT OVERRIDE`, `U+001B ESC`: the character named for a person."""
    import unicodedata

    name = _NAMES.get(char) or unicodedata.name(char, "")
    code = f"U+{ord(char):04X}"
    return f"{code} {name}" if name else code


def hidden_characters_reason(text: str) -> str | None:
    """Why an action holding unseen characters must be looked at, or None if it holds none."""
    found = unseen_in(text)
    if not found:
        return None
    named = ", ".join(describe(char) for char in found[:3]) + (", …" if len(found) > 3 else "")
    return (
        f"holds {named}: an invisible or control character makes what is shown differ from "
        "what runs (almost always an attack)"
    )
