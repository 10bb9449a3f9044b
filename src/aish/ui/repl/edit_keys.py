"""The prompt's editing keys: fixed by `ui.edit_mode`, or the shell's own.

Bash is the reference for what typing does, and a bash user's vi keys live in the shell's
configuration (`set -o vi` in ~/.bashrc, `set editing-mode vi` in ~/.inputrc; zsh's
`bindkey -v`), not in aish's. With `ui.edit_mode = "shell"` the prompt takes the keys the live
shell reports at every prompt, so `set -o vi` typed at the prompt works as in bash too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.enums import EditingMode

# How long the first prompt may wait to learn the shell's keys (it is drawn before the shell
# is up: a slow rc file must not hold it).
_SHELL_START_S = 30.0


def editing_mode(setting: str, shell_keys: str | None) -> EditingMode:
    """The mode for `ui.edit_mode = setting` when the shell's editor uses `shell_keys`."""
    from prompt_toolkit.enums import EditingMode

    keys = shell_keys if setting == "shell" else setting
    return EditingMode.VI if keys == "vi" else EditingMode.EMACS


def follow_shell_keys(prompt: PromptSession[Any], setting: str, shell_keys: str | None) -> None:
    """Before a prompt: take the shell's keys when the setting says so and they are known."""
    if setting == "shell" and shell_keys is not None:
        prompt.editing_mode = editing_mode(setting, shell_keys)


async def follow_when_the_shell_starts(
    prompt: PromptSession[Any],
    setting: str,
    started_within: Callable[[float], Awaitable[None]],
    shell_keys: Callable[[], str | None],
) -> None:
    """The first prompt shows before the shell is up: switch it once the shell has said."""
    if setting != "shell":
        return
    await started_within(_SHELL_START_S)
    keys = shell_keys()
    if keys is None:
        return
    mode = editing_mode(setting, keys)
    if prompt.editing_mode != mode:
        prompt.editing_mode = mode
        with contextlib.suppress(Exception):  # no prompt on screen: the next one takes it
            prompt.app.invalidate()
