"""`:trust` and `:config`: consenting to a project `.aish.toml`, and where each value came from.

`:trust` shows every key the project file of the shell's directory sets (the ones that widen what
runs, reach the network or change models first, marked `!`, escaped so the file cannot hide
any), then asks `[y/N]`; only `y` records its path and sha256 in the store and reloads the
config, and only then are the file's own warnings shown. `:trust --revoke [path]` takes that
back. `:config [prefix]` lists every value of the effective
config with its source.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from aish.config.project import PROJECT_FILE_NAME, find_project_file
from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from aish.config import LoadedConfig
    from aish.session.records import Store
    from aish.ui.repl.meta.context import ReplContext

TRUST_USAGE = "usage: :trust, or :trust --revoke [path]"
NO_PROJECT_FILE = f"no {PROJECT_FILE_NAME} here or above (up to the git root or home)"


@runtime_checkable
class TrustsProjects(Protocol):
    """A REPL with a store and a config it can load again."""

    def trust_store(self) -> Store: ...

    def loaded_config(self) -> LoadedConfig: ...

    def reload_config(self) -> str:
        """Load the config again for `shell_cwd()` (with the store's trust lookup) and start
        using it; return what to tell the user about it (warnings, one per line), or ""."""
        ...

    async def ask_key(self, question: str, keys: dict[str, str]) -> str | None:
        """One key answers; None when the question was cancelled."""
        ...

    def say(self, text: str) -> None: ...


def project_here(repl: ReplContext) -> Path | None:
    """The project file that applies to the shell's current directory."""
    home = os.environ.get("HOME") or None
    return find_project_file(repl.shell_cwd(), home)


async def trust(repl: ReplContext, args: str) -> None:
    from aish.ui.project_review import foreign

    if not isinstance(repl, TrustsProjects):
        repl.say("project trust is not available here")
        return
    verb, _, rest = args.strip().partition(" ")
    if verb not in ("", "--revoke") or (not verb and rest):
        repl.say(TRUST_USAGE)
        return
    if rest.strip():
        path: Path | None = Path(repl.shell_cwd(), os.path.expanduser(rest.strip()))
        if path is not None and path.is_dir():
            path = path / PROJECT_FILE_NAME
    else:
        path = project_here(repl)
    if path is None:
        repl.say(NO_PROJECT_FILE)
        return
    if verb:
        await _revoke(repl, path)
        return
    for line in await _review_and_ask(repl, path):
        repl.say(foreign(line))


async def _review_and_ask(repl: TrustsProjects, path: Path) -> list[str]:
    """Show the file, ask, record on `y`; the lines left to say (not yet escaped)."""
    from aish.session.trust import Review, record_trust, review_file
    from aish.ui.project_review import (
        NOT_RECORDED,
        allow_question,
        review_lines,
        trust_question,
    )

    store = repl.trust_store()
    review = review_file(store, path)
    if not isinstance(review, Review):
        return review.lines
    repl.say("\n".join(review_lines(review)))  # escaped line by line already
    answer = await repl.ask_key(trust_question(review), {"y": "yes", "n": "no"})
    if answer != "yes":
        return [NOT_RECORDED]
    allows = False
    if review.allow_rules:
        # A project only tightens unless the user also lets its allow rules run commands
        # without asking: a second, separate yes.
        allows = await repl.ask_key(allow_question(review), {"y": "yes", "n": "no"}) == "yes"
    outcome = record_trust(store, review, allows=allows)
    if not outcome.changed:
        return outcome.lines
    # The file's own warnings come now, after the listing, and only for bytes the user trusted.
    return [*outcome.lines, *_reload(repl, review.path, trusted=True).splitlines()]


async def _revoke(repl: TrustsProjects, path: Path) -> None:
    from aish.session.trust import revoke_file
    from aish.ui.project_review import foreign

    outcome = revoke_file(repl.trust_store(), path)
    lines = outcome.lines
    if outcome.changed:
        lines += _reload(repl, Path(os.path.abspath(path)), trusted=False).splitlines()
    repl.say("\n".join(foreign(line) for line in lines))


def _reload(repl: TrustsProjects, path: Path, *, trusted: bool) -> str:
    notes = repl.reload_config()
    loaded = repl.loaded_config()
    applies = loaded.project_trusted and loaded.project_file == path
    if trusted:
        result = "config reloaded: it applies now" if applies else "config reloaded"
    else:
        result = "config reloaded without it"
    return "\n".join(visible(line) for line in (notes, result) if line)


async def config_command(repl: ReplContext, args: str) -> None:
    from aish.config.sources import PRECEDENCE, config_sources_lines, project_line

    if not isinstance(repl, TrustsProjects):
        repl.say("the config is not available here")
        return
    prefix = args.strip()
    if prefix == "reload":
        # After `aish init` or an edit of the file: no restart needed.
        notes = repl.reload_config()
        repl.say("\n".join(line for line in (notes, "config reloaded") if line))
        return
    loaded = repl.loaded_config()
    lines = [line for line in config_sources_lines(loaded) if not prefix or line.startswith(prefix)]
    if not lines:
        repl.say(f"no config key starts with {visible(prefix)}")
        return
    shown = [visible(line) for line in (project_line(loaded), *lines)]  # values from files
    repl.say("\n".join([f"config ({PRECEDENCE}):", *shown]))
