"""The model broker: request and event types, the OpenAI-compatible and Anthropic streaming
adapters, typed errors, retries and timeouts.

Each wire format is one adapter module behind the seam in `adapters`. Knows nothing of shells,
terminals or configuration files; it receives a resolved preset.
"""

from __future__ import annotations

import sys
import types


def _without_httpx_command_line() -> None:
    """httpx imports its own command-line client (click, rich.console, pygments' lexers) at
    `import httpx` whenever those packages are installed, and rich is, for aish: about 50 ms
    before the first request of every `aish ask` and every REPL session. aish never runs that
    client, so a stand-in takes its module's place; called, it loads the real one."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    stand_in = types.ModuleType("httpx._main", "stands in for httpx's command line (see aish.llm)")

    def main(*args: object, **kwargs: object) -> object:
        del sys.modules["httpx._main"]
        import importlib

        real = importlib.import_module("httpx._main")
        return real.main(*args, **kwargs)

    stand_in.main = main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = stand_in


_without_httpx_command_line()
