"""Exporting a session (`:export md|html [FILE]`, `aish export`): the session log read into a
neutral document (`document`, `reading`), its secrets replaced whenever a preset of the session
scrubbed (`scrubbing`), rendered as Markdown (`markdown`) or one self-contained HTML page
(`html_page`), and written to a new file (`files`). `exporter` joins these for one export;
`command` is `aish export`.

It lives in the ui: it is the session as a person reads it, and it shares the terminal views'
one rule for untrusted text (`aish.ui.render.visible_text`), their Markdown block splitter and
their way of showing dollars. Like the rest of the ui it reads the store only through the
object it is handed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.ui.export.command import run_export_command
    from aish.ui.export.exporter import FORMATS, export_running_session

__all__ = ["FORMATS", "export_running_session", "run_export_command"]

_HOMES = {
    "FORMATS": "aish.ui.export.exporter",
    "export_running_session": "aish.ui.export.exporter",
    "run_export_command": "aish.ui.export.command",
}

__getattr__ = lazy_names(__name__, _HOMES)
