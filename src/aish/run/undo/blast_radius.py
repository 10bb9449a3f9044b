"""What a command will touch, predicted read-only from its parse before anyone says yes.

`predict(command, cwd)` walks every simple command and redirection of the line
(`aish.safety.bash.command_walk`), expands globs and `~` against the cwd the command runs in, and
asks each program's rules which paths it names and what it does to them (`programs`, `find`,
`git`). Each target is then measured (`measure`) within the time budget — 200 ms for the
whole prediction by default; past it the counts are lower bounds and the prompt says "size
unknown". A program whose targets are only known at run time (`bash script.sh`, `xargs rm`,
a `$(…)` or a variable in a target, a program aish has no rules for) makes the prediction
incomplete: `unknown` says why, and the prompt says "cannot predict".

The result is plain data for the confirm and HALT prompts (`radius_text.radius_lines`) and
for the snapshot taken before the command runs (`BlastRadius.paths`).
"""

from __future__ import annotations

import glob
import os
import time
from dataclasses import dataclass

from aish.run.undo.measure import Measure, measure
from aish.run.undo.programs import PROGRAMS, Disk, Effect, Touch, Unpredictable, program_touches

__all__ = ["BlastRadius", "Target", "predict"]

DEFAULT_BUDGET_S = 0.2

# Programs that run another command given in their words: judge that command instead.
_WRAPPERS = frozenset(
    [
        "sudo",
        "doas",
        "env",
        "nice",
        "ionice",
        "nohup",
        "time",
        "timeout",
        "stdbuf",
        "command",
        "builtin",
        "exec",
        "setsid",
        "chronic",
        "fakeroot",
        "eatmydata",
        "taskset",
        "flock",
    ]
)
# Programs whose targets come from their input or from a shell elsewhere.
_OPAQUE = {
    "xargs": "xargs takes its targets from its input",
    "parallel": "parallel takes its targets from its input",
    "ssh": "ssh runs it on another machine",
    "watch": "watch runs it again and again",
}
_INTERPRETERS = frozenset(
    [
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "python",
        "python3",
        "perl",
        "ruby",
        "node",
        "deno",
        "bun",
        "php",
        "lua",
        "source",
        ".",
    ]
)
# Paths that are not files anyone can snapshot or would want counted.
_NOT_FILES = ("/dev/", "/proc/", "/sys/")
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class Target:
    """One absolute path the command touches, how, and what is there now."""

    path: str
    effect: Effect
    now: Measure
    recursive: bool = True


@dataclass(frozen=True)
class BlastRadius:
    """The targets of one command in `cwd`. `unknown`: why some targets cannot be predicted
    (empty when every target is listed)."""

    command: str
    cwd: str
    targets: tuple[Target, ...] = ()
    unknown: tuple[str, ...] = ()

    @property
    def predictable(self) -> bool:
        return not self.unknown

    @property
    def complete(self) -> bool:
        """Whether every target was counted to the end within the budget."""
        return all(target.now.complete for target in self.targets)

    @property
    def bytes(self) -> int:
        """What a snapshot of the targets holds (a lower bound when not `complete`)."""
        return sum(target.now.bytes for target in self.targets)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(target.path for target in self.targets)


def predict(
    command: str, cwd: str, *, budget_s: float = DEFAULT_BUDGET_S, git: bool = True
) -> BlastRadius:
    """Predict what `command` touches when run in `cwd`. Never raises; reads only.

    `git`: whether git may be asked (the gate says no when git's configuration would make it
    run another program)."""
    from aish.safety.bash.command_walk import walk_bash

    deadline = time.monotonic() + budget_s
    disk = Disk(cwd)
    touches: list[Touch] = []
    unknown: list[str] = []
    try:
        walk = walk_bash(command)
    except Exception as error:  # a parser bug must not stop the prompt
        return BlastRadius(command, cwd, (), (f"it could not be parsed ({error!r})",))
    if walk.error is not None:
        unknown.append("bash would not parse it")
    if walk.functions or walk.embedded or walk.concerns:
        unknown.append("it runs code that is only known at run time")
    for redirect in walk.redirects:
        effect = _redirect_effect(redirect.operator)
        if effect is None or redirect.target is None:
            continue
        paths = _expand(redirect.target.text, redirect.target.value, cwd)
        if paths is None:
            unknown.append(f"the redirection target {redirect.target.text} is computed at run time")
        else:
            touches += [Touch(path, effect, recursive=False) for path in paths[:1]]
    for invocation in walk.invocations:
        words: list[str | None] = []
        for arg in invocation.args:
            words += _expand(arg.text, arg.value, cwd) or [None]
        try:
            touches += _invocation(
                invocation.name.value, words, invocation.name.text, disk, deadline, git
            )
        except Unpredictable as why:
            unknown.append(str(why))
    targets = _targets(touches, cwd, deadline)
    return BlastRadius(command, cwd, targets, tuple(dict.fromkeys(unknown)))


def _invocation(
    name: str | None, words: list[str | None], text: str, disk: Disk, deadline: float, git: bool
) -> list[Touch]:
    if name is None:
        raise Unpredictable(f"the command name {text} is computed at run time")
    program = os.path.basename(name)
    if program in _WRAPPERS:
        return _wrapped(program, words, disk, deadline, git)
    if program in _OPAQUE:
        raise Unpredictable(_OPAQUE[program])
    if program in PROGRAMS:
        return program_touches(program, words, disk)
    if program == "find":
        from aish.run.undo.find import find_touches

        return find_touches(words, disk.cwd, deadline)
    if program == "git":
        if _reads_only(program, words):
            return []
        if not git:
            raise Unpredictable("git's configuration runs other programs, so it was not asked")
        from aish.run.undo.git import git_touches

        return git_touches(words, disk.cwd, deadline)
    if _reads_only(program, words):
        return []
    if program in _INTERPRETERS:
        raise Unpredictable(f"{program} runs code aish cannot see")
    raise Unpredictable(f"aish has no rules for what {program} touches")


def _wrapped(
    program: str, words: list[str | None], disk: Disk, deadline: float, git: bool
) -> list[Touch]:
    from aish.safety.bash.command_walk import Arg
    from aish.safety.bash.wrappers import unwrap

    args = [Arg(word or "$_", word, word or "$_") for word in words]
    inner = unwrap(program, args)
    if inner.code is not None:
        radius = predict(
            inner.code, disk.cwd, budget_s=max(deadline - time.monotonic(), 0), git=git
        )
        if radius.unknown:
            raise Unpredictable(radius.unknown[0])
        return [Touch(t.path, t.effect, t.recursive) for t in radius.targets]
    if inner.args:
        first, *rest = inner.args
        return _invocation(first.value, [a.value for a in rest], first.text, disk, deadline, git)
    if inner.alone == "safe":
        return []
    raise Unpredictable(f"aish has no rules for what {program} touches")


def _reads_only(program: str, words: list[str | None]) -> bool:
    """The classifier's read-only tables: a program that only reads touches nothing."""
    if any(word is None for word in words):
        return False
    import shlex

    from aish.safety.classifier import classify

    line = shlex.join([program, *(word for word in words if word is not None)])
    try:
        return classify(line).level == "safe"
    except Exception:
        return False


def _redirect_effect(operator: str) -> Effect | None:
    if operator in (">", ">|", "&>", ">&", "<>"):
        return "overwrite" if operator != "<>" else "edit"
    if operator in (">>", "&>>"):
        return "append"
    return None  # input, or a descriptor


def _expand(text: str, value: str | None, cwd: str) -> list[str] | None:
    """The words bash makes of one word: its value, `~` expanded, globs matched against `cwd`
    (no match: the word itself). None when the value is only known at run time."""
    if value is None:
        return None
    if text.startswith("~"):
        value = os.path.expanduser(value)
    pattern = _glob_pattern(text)
    if pattern is None:
        return [value]
    matches = sorted(glob.glob(pattern, root_dir=cwd))
    return matches or [value]


def _glob_pattern(text: str) -> str | None:
    """`text` as a glob pattern (quoted parts escaped), or None when it has no unquoted glob."""
    out: list[str] = []
    magic = False
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            out.append(glob.escape(text[i + 1]))
            i += 2
        elif char in ("'", '"'):
            end = text.find(char, i + 1)
            end = len(text) if end < 0 else end
            out.append(glob.escape(text[i + 1 : end]))
            i = end + 1
        else:
            magic = magic or char in _GLOB_CHARS
            out.append(char)
            i += 1
    if text.startswith("~") and magic:
        return None  # rare; left literal rather than guessed
    return "".join(out) if magic else None


def _targets(touches: list[Touch], cwd: str, deadline: float) -> tuple[Target, ...]:
    """Absolute, without duplicates, without paths inside another target, then measured."""
    chosen: dict[str, Touch] = {}
    for touch in touches:
        path = os.path.normpath(os.path.join(cwd, os.path.expanduser(touch.path)))
        if path.startswith(_NOT_FILES) or path in chosen:
            continue
        chosen[path] = touch
    roots = [
        path
        for path in chosen
        if not any(_inside(path, other) and chosen[other].recursive for other in chosen)
    ]
    return tuple(
        Target(
            path,
            chosen[path].effect,
            _measure(path, chosen[path], deadline),
            chosen[path].recursive,
        )
        for path in roots
    )


def _inside(path: str, other: str) -> bool:
    return path != other and path.startswith(other.rstrip("/") + "/")


def _measure(path: str, touch: Touch, deadline: float) -> Measure:
    if touch.recursive:
        return measure(path, deadline)
    found = measure(path, time.monotonic())  # one entry: its own size, never its tree
    if found.is_dir:
        return Measure(True, True, 0, 1, 0)
    return found
