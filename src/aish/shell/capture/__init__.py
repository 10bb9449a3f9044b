"""Capture: what a command printed, as a model should read it — the screen's text, bounded.

`output` is the surface (`OutputCapture` fed the command's bytes, `CapturedOutput` its
result); `stream` parses the terminal output into events on `screen`, a pyte screen with
scrollback whose `rows` scroll off into `lines`, the bounded head-and-tail record of the
logical lines. Pure: no I/O. Lazy, so pyte loads when a command's output is first captured,
never by importing this face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.shell.capture.output import CapturedOutput, OutputCapture

__all__ = ["CapturedOutput", "OutputCapture"]

# Public name → module that defines it, resolved on first use.
_HOMES = {
    "CapturedOutput": "aish.shell.capture.output",
    "OutputCapture": "aish.shell.capture.output",
}

__getattr__ = lazy_names(__name__, _HOMES)
