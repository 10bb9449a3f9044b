"""What the system prompt says about the user's surroundings, decided once per conversation.

Made once per session (`Session.conversation`), for the REPL and `aish goal`: the shell aish
really runs (not merely the one `$SHELL` names), the OS, whether tools may be offered — from
whether MCP servers are configured, never from which are up at the moment — and whether some
preset has its secrets scrubbed, so the system prompt cannot change mid-conversation.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from aish.conversation.system_prompt import PromptFacts

if TYPE_CHECKING:
    from aish.config.schema import AishConfig


def prompt_facts(config: AishConfig) -> PromptFacts:
    from aish.shell.launch import choose_shell

    try:
        kind = choose_shell(config.ui.shell, os.environ)[1]
    except (ValueError, OSError):
        kind = "bash"
    tools = bool(config.mcp.servers or config.mcp.import_)
    # From the config, not from the preset in use: a `:model` switch keeps the prompt.
    secrets = any(p.effective_secrets() == "scrub" for p in config.models.values())
    return PromptFacts(
        # What platform.system() says on a POSIX system, without importing platform.
        os_name=os.uname().sysname or "Unix",
        shell=kind,
        tools=tools,
        secrets=secrets,
        presets=tuple(config.models),
    )
