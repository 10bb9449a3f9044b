"""`aish export`: a logged session to Markdown or HTML, from outside the REPL.

The session is the one saved as `--session NAME` (or `#<id>`, as `:sessions` lists unnamed
ones), else the last one with anything in it. Secrets are scrubbed by a scrubber of this
process (what a preset would have sent: the environment's sensitive values, secret-shaped
strings and values learned from the session's own text).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, TYPE_CHECKING

from aish.ui.export.exporter import Format, export_session, preset_scrubs, render, session_document

if TYPE_CHECKING:
    from aish.config.schema import AishConfig
    from aish.session.records import SessionInfo, Store

__all__ = ["run_export_command"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def run_export_command(
    store: Store,
    config: AishConfig,
    *,
    session: str | None,
    fmt: Format,
    file: str | None,
    out: IO[str],
    err: IO[str],
) -> int:
    """Export; one line on `err` for what went wrong. `file` "-": the text on `out`."""
    from aish.agent.outbound import Outbound
    from aish.ui.export.files import ExportError
    from aish.ui.render.visible_text import visible_line

    info = _find(store, session)
    if info is None:
        if session is None:
            err.write("aish: no session to export yet\n")
            return EXIT_FAILED
        err.write(f"aish: no session named '{visible_line(session)}' (`:sessions` lists them)\n")
        return EXIT_USAGE
    scrubs, scrub = preset_scrubs(config), Outbound().scrub
    if file == "-":
        out.write(render(session_document(store, info, scrubs=scrubs, scrub=scrub), fmt))
        return EXIT_OK
    try:
        written = export_session(
            store, info, fmt, scrubs=scrubs, scrub=scrub, file=file, folder=Path(os.getcwd())
        )
    except ExportError as error:
        err.write(f"aish: {visible_line(str(error))}\n")
        return EXIT_FAILED
    said = " (secrets replaced by placeholders)" if written.scrubbed else ""
    out.write(f"{visible_line(str(written.path))}{said}\n")
    return EXIT_OK


def _find(store: Store, session: str | None) -> SessionInfo | None:
    if session is None:
        return store.last_session()
    found = store.find_session(session)
    number = session.strip().removeprefix("#")
    if found is None and number.isdigit():
        return store.get_session(int(number))
    return found
