"""Model text made safe to show on a terminal.

A reply must not drive the terminal: escape sequences could hide text, retitle the window or
write the clipboard, and a carriage return could make one line look like another. Every view
that shows model text passes it through `visible`: control characters other than newline and
tab are shown as `^X` (ESC as `^[`).
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    return _CONTROL.sub(lambda m: _caret(m.group()), text)


def _caret(char: str) -> str:
    code = ord(char)
    return f"^{chr(code + 64)}" if code < 32 else ("^?" if code == 127 else f"\\x{code:02x}")
