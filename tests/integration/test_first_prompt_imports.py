"""What runs before the first prompt: only what the prompt needs (issue 25).

aish is started for real on a PTY (pexpect), against a config file in a temporary home; at its
first `prompt_async` the modules loaded so far are written out and the process ends. The second
start takes the kept, validated config, so pydantic (the config's validator) must not load;
neither may the gate, the agent's event types, the HTTP client or the bash parser, which the
first question loads.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect

_AT_FIRST_PROMPT = """
import json, os, sys
import prompt_toolkit.shortcuts.prompt
prompt_module = sys.modules["prompt_toolkit.shortcuts.prompt"]

async def first_prompt(self, *args, **kwargs):
    with open(sys.argv[1], "w") as out:
        json.dump(sorted(sys.modules), out)
    os._exit(0)

prompt_module.PromptSession.prompt_async = first_prompt
from aish.cli import main
main([])
"""

# Loaded by the first question or by a config whose sources changed, never by a start.
_NOT_BEFORE_THE_PROMPT = (
    "pydantic",
    "httpx",
    "tree_sitter",
    "aish.agent.gate",
    "aish.agent.events",
    "aish.config.validation",
)


def _modules_at_first_prompt(home: Path, script: Path, out: Path) -> set[str]:
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "TERM": "xterm",
        "SHELL": "/bin/bash",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".data"),
        "XDG_STATE_HOME": str(home / ".state"),
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }
    child = pexpect.spawn(
        sys.executable, [str(script), str(out)], env=env, dimensions=(24, 100), timeout=60
    )
    child.expect(pexpect.EOF)
    child.close()
    loaded: list[str] = json.loads(out.read_text())
    return set(loaded)


def test_a_start_with_an_unchanged_config_loads_only_what_the_prompt_needs(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "aish" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        'default_model = "t"\n[models.t]\nendpoint = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
    )
    script = tmp_path / "at_first_prompt.py"
    script.write_text(_AT_FIRST_PROMPT)
    first = _modules_at_first_prompt(home, script, tmp_path / "first.json")
    assert "aish.config.validation" in first  # the first start validated (and kept) the config
    second = _modules_at_first_prompt(home, script, tmp_path / "second.json")
    assert "aish.ui.repl.loop" in second  # it did reach the REPL's prompt
    # aish.llm puts a stand-in for httpx's command line in place without importing httpx.
    second.discard("httpx._main")
    loaded = {
        name
        for name in second
        if any(name == heavy or name.startswith(heavy + ".") for heavy in _NOT_BEFORE_THE_PROMPT)
    }
    assert loaded == set()
