"""What an `[a]lways` answer at the confirm prompt may allow for the rest of the session: a
command prefix taken from the parsed command (`npm test -- --watch` → `npm test`), shown to the
user before it is stored, and matched as an allow rule (so it never lowers a built-in
destructive verdict).

None is offered where a prefix would vouch for more than the user saw: a line of several
commands, a computed word, a command reached through a wrapper, and programs whose first words
do not say what runs — shells, interpreters, wrappers, `eval`, `xargs`, `find`, `npx` — or
subcommands that run anything (`docker exec`, `npm exec`, `uv run`). Codex's reviewers refuse
the same suggestions (`BANNED_PREFIX_SUGGESTIONS`).
"""

from __future__ import annotations

from aish.safety.bash.wrappers import WRAPPERS
from aish.safety.classifier import Judgement
from aish.safety.rules import code_runners

__all__ = ["approval_prefix"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NEVER = frozenset(
    (
        *code_runners.SHELLS,
        *code_runners.INTERPRETERS,
        *WRAPPERS,
        *_words(
            "eval source . exec command builtin xargs find parallel npx bunx pnpx trap su "
            "runuser script at batch"
        ),
    )
)
# Subcommands that run whatever command follows them.
_RUNS_ANYTHING = {
    "exec": _words("docker podman nerdctl kubectl oc npm pnpm yarn git"),
    "run": _words("docker podman nerdctl uv poetry pipenv pdm hatch conda"),
    "x": _words("bun"),
    "dlx": _words("pnpm yarn"),
}
# `npm run test`: the script's name is part of what the user saw.
_SCRIPT_RUNNERS = _words("npm pnpm yarn bun")


def approval_prefix(judgement: Judgement) -> str | None:
    """The prefix to offer for `[a]lways`, or None when none is safe to offer."""
    if judgement.verdict.level == "destructive" or len(judgement.commands) != 1:
        return None
    command = judgement.commands[0]
    words = command.words
    if command.via or command.open_ended or not words or words[0] is None:
        return None
    program = words[0]
    if program in _NEVER:
        return None
    second = words[1] if len(words) > 1 else None
    if len(words) > 1 and second is None:
        return None  # `make $target`: the user saw no target
    if second is None or second.startswith("-") or "/" in second or "=" in second:
        return program
    if program in _RUNS_ANYTHING.get(second, ()):
        return None
    if second in ("run", "run-script") and program in _SCRIPT_RUNNERS:
        script = words[2] if len(words) > 2 else None
        if script is None or script.startswith("-"):
            return None
        return f"{program} {second} {script}"
    return f"{program} {second}"
