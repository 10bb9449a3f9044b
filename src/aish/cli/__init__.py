"""The `aish` command: argument parsing and dispatch to the subcommands.

Start-up cost matters here more than anywhere: `aish --version` must not import httpx, pydantic
or rich, so each subcommand lives in a module of this package that is imported only when that
subcommand runs, and imports what it needs inside its own function.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from aish.cli.exit_codes import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_HALTED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
)

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_FAILED",
    "EXIT_HALTED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "main",
]

# Subcommand → the module and function that run it, imported when it runs.
_COMMANDS = {
    "shell": ("shell", "run_shell"),
    "ask": ("one_shot", "run_ask"),
    "goal": ("one_shot", "run_goal"),
    "init": ("setup_commands", "run_init"),
    "doctor": ("setup_commands", "run_doctor"),
    "route": ("checks", "run_route"),
    "safety": ("checks", "run_safety"),
    "explain": ("checks", "run_explain"),
    "secrets": ("checks", "run_secrets"),
    "memory": ("records", "run_memory"),
    "cost": ("records", "run_cost"),
    "export": ("records", "run_export"),
    "completion": ("setup_commands", "run_completion"),
}


def main(argv: Sequence[str] | None = None) -> int:
    from aish.cli.parser import build_parser

    args = build_parser().parse_args(argv)
    command = getattr(args, "command", None) or "shell"
    try:
        from aish.config.paths import log_file
        from aish.log import configure_logging

        configure_logging(log_file())
        module, function = _COMMANDS[command]
        run = getattr(importlib.import_module(f"aish.cli.{module}"), function)
        status = int(run(args))
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`aish ask … | head`): nothing left to say, and nobody to say it to.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # the last line of defence: one line on screen, details in the log
        import logging

        logging.getLogger("aish").exception("unhandled error in `aish %s`", command)
        print(f"aish: internal error: {exc} (details in the log, AISH_LOG=debug)", file=sys.stderr)
        return EXIT_INTERNAL
    if status == EXIT_INTERRUPTED:
        _exit_at_once(status)
    return status


def _exit_at_once(status: int) -> NoReturn:
    """Ctrl-C ends aish within a moment, however busy the machine: the run has already stopped
    its command and closed its shell, so once what was written is flushed the interpreter's
    teardown (freeing hundreds of modules, well over a second under load) is skipped."""
    import contextlib
    import logging

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that went away, a closed stream
            stream.flush()
    logging.shutdown()
    os._exit(status)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    import contextlib
    import os

    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
