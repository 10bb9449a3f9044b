"""git asked by aish itself, without running any program the repository's config names.

aish runs git on its own account in places the user did not ask for a command: the `[project]`
block of `:context`, the dry run of a reviewed diff, the blast radius shown before a yes. The
repository is untrusted (a tarball or a copied work tree brings its own `.git/config`, which can
include other files), and a git that only reads can still be made to run a program:

- `core.fsmonitor` runs its hook whenever the index is read (`status`, `diff`, `ls-files`,
  `rev-parse` alike): set empty, and `core.useBuiltinFSMonitor=false`.
- filter drivers: comparing a stat-dirty file with the index re-reads it through the `clean`
  (or long-running `process`) filter its `.gitattributes` name. Driver names cannot be known in
  advance, so the caller lists the config's key names first (`LIST_CONFIG_NAMES`, which runs
  nothing) and passes `filter_overrides(names)`: every driver found gets empty `clean`,
  `smudge`, `process` and `required=false` (a required filter that is disabled would fail the
  call). `--config-env` takes any subsection name; a git too old for it fails the call.
- pagers (`core.pager`, `pager.<cmd>`), `diff.external`, hooks: `--no-pager`, `core.pager=cat`,
  `GIT_PAGER=cat`, `diff.external=` and no `GIT_EXTERNAL_DIFF`, `core.hooksPath=/dev/null`.
- transports: a partial clone fetches missing blobs (rename detection), and a fetch can run
  `core.sshCommand` or a remote helper: `protocol.allow=never`, `GIT_ALLOW_PROTOCOL` empty and
  `GIT_NO_LAZY_FETCH=1` (callers add `--no-renames` where they can).
- submodules: `submodule.recurse=false`, `status.submoduleSummary=false` (callers add
  `--ignore-submodules=all` where the command takes it).
- writes and prompts: `--no-optional-locks` / `GIT_OPTIONAL_LOCKS=0` (the index is not
  refreshed on disk), `GIT_TERMINAL_PROMPT=0`; repository-location variables inherited from
  aish's own environment (`GIT_DIR`, `GIT_WORK_TREE` …) are dropped so the cwd decides.

A shared leaf: the agent's project summary and the run room's probes both use it, and neither
may import the other.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["LIST_CONFIG_NAMES", "SAFE_OPTIONS", "environment", "filter_overrides"]

# Each is `-c <this>`.
_SAFE_CONFIG = (
    "core.fsmonitor=",
    "core.useBuiltinFSMonitor=false",
    "core.pager=cat",
    "diff.external=",
    "core.hooksPath=/dev/null",
    "submodule.recurse=false",
    "status.submoduleSummary=false",
    "protocol.allow=never",
)
# Options that go right after `git`, before the subcommand.
SAFE_OPTIONS: tuple[str, ...] = (
    "--no-pager",
    "--no-optional-locks",
    *(option for item in _SAFE_CONFIG for option in ("-c", item)),
)
# The config's key names, NUL-separated, includes followed: what `filter_overrides` reads.
LIST_CONFIG_NAMES = ("config", "--list", "--name-only", "--includes", "-z")

# Inherited from aish's own environment, these would point git elsewhere than the cwd or name
# programs for it to run.
_DROPPED_ENV = frozenset(
    {
        *("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_NAMESPACE"),
        *("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_EXTERNAL_DIFF"),
        *("GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_PROXY_COMMAND"),
        *("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"),
    }
)
_FILTER_KEYS = ("clean", "smudge", "process", "required")
# The variable `--config-env` reads the empty value from.
_EMPTY_VAR = "AISH_GIT_EMPTY"


def environment(base: Mapping[str, str]) -> dict[str, str]:
    """`base` (the environment git would otherwise get) made safe for a quiet git."""
    env = {key: value for key, value in base.items() if key not in _DROPPED_ENV}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_ALLOW_PROTOCOL="",
        GIT_NO_LAZY_FETCH="1",
        LC_ALL="C",
        LANGUAGE="C",
    )
    env[_EMPTY_VAR] = ""
    return env


def filter_overrides(config_names: list[str]) -> tuple[str, ...]:
    """`--config-env` options that disable every filter driver named in `config_names`.

    `config_names` are the names `git config --list --name-only` prints; a filter driver is
    `filter.<driver>.<key>`, where the driver may itself contain dots.
    """
    drivers: set[str] = set()
    for name in config_names:
        section, _, rest = name.partition(".")
        driver, _, _key = rest.rpartition(".")
        if section.lower() == "filter" and driver:
            drivers.add(driver)
    return tuple(
        f"--config-env=filter.{driver}.{key}={_EMPTY_VAR}"
        for driver in sorted(drivers)
        for key in _FILTER_KEYS
    )
