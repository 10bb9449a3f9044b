"""Where aish keeps its files: XDG locations resolved through platformdirs.

Every function reads the environment when it is called (not at import), so tests and the user
can move things with `XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `XDG_DATA_HOME` and `AISH_CONFIG`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

APP_NAME = "aish"
CONFIG_FILE_NAME = "config.toml"
# Names the config file explicitly, taking precedence over the XDG location.
CONFIG_PATH_VARIABLE = "AISH_CONFIG"


def default_config_file() -> Path:
    """The XDG location of the user config: `$XDG_CONFIG_HOME/aish/config.toml`."""
    return platformdirs.user_config_path(APP_NAME) / CONFIG_FILE_NAME


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """The user config file to read: `$AISH_CONFIG` when set, else the XDG location."""
    variables = os.environ if env is None else env
    override = variables.get(CONFIG_PATH_VARIABLE, "").strip()
    if override:
        return Path(override).expanduser()
    return default_config_file()


def state_dir() -> Path:
    """Logs and other state worth keeping but not backing up (`$XDG_STATE_HOME/aish`)."""
    return platformdirs.user_state_path(APP_NAME)


def data_dir() -> Path:
    """The session store, memory and history (`$XDG_DATA_HOME/aish`)."""
    return platformdirs.user_data_path(APP_NAME)


def log_file() -> Path:
    """The diagnostics log; the terminal only ever gets one-line summaries."""
    return state_dir() / "aish.log"


def mcp_log_dir() -> Path:
    """Where MCP stdio servers' stderr goes, one `<name>.stderr.log` each."""
    return state_dir() / "mcp"


def home_directory(variables: Mapping[str, str]) -> Path | None:
    """The upper bound of project discovery: `$HOME`, else the account's home."""
    home = variables.get("HOME", "").strip()
    if home:
        return Path(home)
    try:
        return Path.home()
    except RuntimeError:
        return None
