"""One JSON document per line, safe to land on a terminal.

`json.dumps(…, ensure_ascii=False)` escapes C0 controls but writes DEL and the C1 controls
(U+0080–U+009F) as they are, and some terminals act on a C1 CSI or OSC even in UTF-8. Escaping
them as `\\u009b` keeps every value exactly the same for a JSON reader.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["escape_raw_controls", "json_line"]

_RAW_CONTROL = re.compile(r"[\x7f-\x9f]")


def json_line(value: Any) -> str:
    """`value` as one line of JSON (no line break at the end), non-ASCII kept readable."""
    return escape_raw_controls(json.dumps(value, ensure_ascii=False))


def escape_raw_controls(json_text: str) -> str:
    """JSON text (one document or JSON lines) with DEL and C1 written as `\\u00XX` escapes:
    outside strings JSON has no such characters, so every value stays the same."""
    return _RAW_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)
