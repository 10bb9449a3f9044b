"""Where diagnostics go: a log file under the XDG state dir, never the user's terminal.

`AISH_LOG=debug` (or info, warning) raises the detail; tracebacks of failures that the user
saw as one line are always written here.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

_configured = False
_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def configure_logging(log_file: Path) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    level = _LEVELS.get(os.environ.get("AISH_LOG", "").strip().lower(), logging.WARNING)
    root = logging.getLogger("aish")
    root.setLevel(level)
    root.propagate = False
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = _QuietFileHandler(log_file, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    root.addHandler(handler)


class _QuietFileHandler(logging.FileHandler):
    """A log file that never reaches the terminal: a record it cannot write (a full disk) is
    dropped, where the standard handler prints "--- Logging error ---" and a traceback on
    stderr, in the middle of the user's screen."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass
