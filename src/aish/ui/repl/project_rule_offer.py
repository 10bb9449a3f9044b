"""`[p]roject` at the confirm prompt: the allow rule is shown with the file it goes into, and
written only on a second yes (`aish.session.project_rules`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aish.ui.project_review import foreign

if TYPE_CHECKING:
    from aish.session.records import Store

__all__ = ["offer_project_rules"]

AskKey = Callable[[str, dict[str, str]], Awaitable[str | None]]


async def offer_project_rules(
    patterns: list[str],
    cwd: str,
    home: Path | None,
    store: Store,
    ask_key: AskKey,
    say: Callable[[str], None],
) -> bool:
    """Offer each pattern's rule; True when a file was written (the config should follow)."""
    from aish.session.project_rules import project_rule, write_project_rule

    written = False
    for pattern in patterns:
        rule = project_rule(pattern, cwd, home)
        if rule is None:
            say(
                f"no project here (no .aish.toml, no git repository): `{foreign(pattern)}` "
                "stays allowed for this session only"
            )
            continue
        verb = "add to" if rule.exists else "create"
        lines = [f"always in this project: {verb} {foreign(str(rule.path))}:"]
        lines += [f"  {foreign(line)}" for line in rule.text.strip().splitlines()]
        say("\n".join(lines))
        if await ask_key("Write it? [y/N] ", {"y": "yes", "n": "no"}) != "yes":
            say("not written: allowed for this session only")
            continue
        for line in write_project_rule(store, rule):
            say(foreign(line))
        written = True
    return written
