"""Programs that run code they are handed: shells, `eval`, `trap`, `su`, interpreters,
database clients, `find -exec` and `docker`/`kubectl exec`.

Each reads where its code comes from — an argument (parsed again and judged by the classifier
through `Judge`), a file (unknown), a pipe (whatever arrives runs: destructive) or the output of
a command (`bash -c "$(curl …)"`, like `curl | sh`: destructive).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from aish.safety.bash.command_walk import COMMAND_OUTPUT, DYNAMIC_VALUE, Arg, Invocation, Stdin
from aish.safety.bash.live_shell import Lookup
from aish.safety.bash.options import split_args
from aish.safety.reasons import Via, destructive, located, unknown
from aish.safety.sql.checks import SQL_CLIENTS, sql_verdict
from aish.safety.verdict import SAFE, Verdict, worst


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


SHELLS = _words("bash sh zsh dash ksh mksh fish")
INTERPRETERS = _words(
    "python pypy perl ruby node nodejs deno bun php lua luajit tclsh Rscript osascript irb "
    "jshell ghci scala groovy"
)
DATABASE_CLIENTS = frozenset((*SQL_CLIENTS, "redis-cli", "mongosh", "mongo"))
_INLINE_CODE = ("-c", "-e", "-E", "--eval", "-p", "-r", "-m")
# Input that is another command's output: a pipe or `< <(cmd)`.
_FED = frozenset(("pipe", "command"))
_PLACEHOLDER = re.compile(r"^\{[^{}\s]*\}$")
_DOWNLOADERS = re.compile(r"\b(curl|wget|fetch|aria2c|nc|ncat|socat)\b")


class Judge(Protocol):
    """The classifier, as the runners call back into it."""

    def text(self, code: str, depth: int, via: Via, stdin: Stdin | None = None) -> Verdict: ...

    def words(
        self,
        name: Arg,
        args: Sequence[Arg],
        inv: Invocation,
        depth: int,
        via: Via,
        lookup: Lookup = "shell",
    ) -> Verdict: ...

    def unreadable(self) -> None:
        """Part of what the line runs cannot be read: it may run anything."""


def shell(
    judge: Judge, program: str, args: Sequence[Arg], inv: Invocation, depth: int, via: Via
) -> Verdict:
    if _syntax_check_only(args):
        return SAFE  # -n only reads the script and checks its syntax
    command_mode = from_stdin = False
    index = 0
    while index < len(args):
        value = args[index].value
        if value is None or not value.startswith(("-", "+")) or value in ("-", "+"):
            break
        index += 1
        if value == "--":
            break
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 1
        elif value == "--interactive" or (value[0] == "-" and "i" in value[1:]):
            # An interactive shell runs the user's rc files and rewrites the history file
            # when it exits, whatever the code it is given.
            return unknown(f"{program} {value} starts an interactive shell", via)
        elif not value.startswith("--"):
            command_mode = command_mode or "c" in value[1:]
            from_stdin = from_stdin or "s" in value[1:]
    rest = args[index:]
    step = (*via, f"{program} -c" if command_mode else program)
    if command_mode:
        if not rest:
            return unknown(f"{program} -c without a command", via)
        return _code(judge, rest[0].code, program, depth, step, _passed_on(inv))
    if rest and not from_stdin and rest[0].value not in ("-", "/dev/stdin"):
        if rest[0].substitution:
            return destructive(f"{program} <(…) runs code produced by a command", via)
        return unknown(f"{program} runs a script: {rest[0].text}", via)
    if inv.stdin == "text" and inv.stdin_code is not None:
        return _code(judge, inv.stdin_code, program, depth, step)
    if inv.stdin in _FED:
        return destructive(_fed_reason(program, inv), via)
    return unknown(f"{program} reads commands from its input", via)


def _syntax_check_only(args: Sequence[Arg]) -> bool:
    """`bash -n script`: -n as the only option. Any other may undo it: an interactive shell
    ignores -n (`-i`, and `-c` code then runs), a later `+n`, `+o noexec` or zsh's `--exec`,
    `-o exec`, `-o e_x_e_c` turns it off, so with them the script is judged as run."""
    seen = False
    for arg in args:
        if arg.value is None or not arg.value.startswith(("-", "+")) or arg.value in ("-", "+"):
            break
        if arg.value == "--":
            break
        if arg.value != "-n":
            return False
        seen = True
    return seen


def _code(
    judge: Judge, code: str, program: str, depth: int, step: Via, stdin: Stdin | None = None
) -> Verdict:
    if code.strip() == COMMAND_OUTPUT:
        return destructive(f"{program} runs code produced by a command (like curl | sh)", step[:-1])
    if is_placeholder(code):
        # `xargs -I{} sh -c {}`, `find -exec sh -c {}`: the code is each input name.
        return destructive(f"{program} runs each input as a command", step[:-1])
    return worst([judge.text(code, depth + 1, step, stdin), built_from_data(judge, code, step)])


def built_from_data(judge: Judge, code: str, via: Via) -> Verdict:
    """Code that holds a value expanded before it is parsed (`bash -c "echo $x"`): the value
    is parsed as code too, so `x='; rm -rf ~'` runs rm. At least unknown, and unreadable."""
    if DYNAMIC_VALUE not in code and COMMAND_OUTPUT not in code:
        return SAFE
    judge.unreadable()
    return unknown("the code holds a value expanded before it runs: the value runs as code", via)


def is_placeholder(code: str) -> bool:
    """`{}`, `{.}`, `{1}`: the code is whatever xargs, find or parallel put there."""
    return bool(_PLACEHOLDER.match(code.strip()))


def _passed_on(inv: Invocation) -> Stdin | None:
    return inv.stdin if inv.stdin in _FED else None


def trap(judge: Judge, args: Sequence[Arg], depth: int, via: Via) -> Verdict:
    """`trap 'code' SIGNAL` runs the code later, when the signal arrives: judge it now."""
    view = split_args(args)
    if not view.operands or view.has_any(("-l", "-p")):
        return SAFE  # lists signals or traps
    handler = view.operands[0]
    inner = judge.text(handler.code, depth + 1, (*via, "trap")) if len(view.operands) > 1 else SAFE
    return worst([inner, unknown("trap changes what the shell runs on a signal", via)])


def command_option(args: Sequence[Arg]) -> Arg | None:
    """The code of `su -c CODE`, `runuser -c CODE`, `script -c CODE`."""
    values = [a.value for a in args]
    for index, value in enumerate(values):
        if value is None or not value.startswith("-") or value == "--":
            continue
        name, equals, attached = value.partition("=")
        if name.startswith("--") and len(name) >= 5 and "--command".startswith(name):
            if equals:
                return Arg(value, attached, attached)
            return args[index + 1] if index + 1 < len(args) else None
        if not name.startswith("--") and "c" in value[1:]:
            # A bundle like `-qc CODE` or `-cCODE`: the rest after `c`, or the next word.
            rest = value[value.index("c", 1) + 1 :]
            if rest:
                return Arg(rest, rest, rest)
            return args[index + 1] if index + 1 < len(args) else None
    return None


def su(
    judge: Judge, program: str, args: Sequence[Arg], inv: Invocation, depth: int, via: Via
) -> Verdict:
    code = command_option(args)
    if code is None and inv.stdin in _FED:
        return destructive(f"{program} without -c runs its input as commands", via)
    if code is None:
        return unknown(f"{program} without -c opens a shell as another user", via)
    return judge.text(code.code, depth + 1, (*via, f"{program} -c"), _passed_on(inv))


def scheduler(judge: Judge, program: str, inv: Invocation, depth: int, via: Via) -> Verdict:
    """`at now` / `batch` run the commands on their input later."""
    if inv.stdin == "text" and inv.stdin_code is not None:
        return worst(
            [
                unknown(f"{program} schedules commands to run later", via),
                judge.text(inv.stdin_code, depth + 1, (*via, program)),
            ]
        )
    if inv.stdin in _FED:
        return destructive(f"{program} runs its input as commands later", via)
    return unknown(f"{program} schedules commands to run later", via)


def script(judge: Judge, args: Sequence[Arg], depth: int, via: Via) -> Verdict:
    """`script -c CODE [FILE]` runs CODE and writes a typescript of it to FILE."""
    code = command_option(args)
    records = unknown("script records the session to a file", via)
    if code is None:
        return worst([records, unknown("script opens a shell", via)])
    return worst([records, judge.text(code.code, depth + 1, (*via, "script -c"))])


def parallel_inputs(
    judge: Judge, args: Sequence[Arg], inv: Invocation, depth: int, via: Via
) -> Verdict:
    """`parallel ::: 'cmd1' 'cmd2'` with no command of its own runs each argument (or each
    input line) as a command."""
    values = [a.value for a in args]
    lists = [i for i, v in enumerate(values) if v in (":::", ":::+")]
    if lists:
        commands = [a for a in args[lists[0] + 1 :] if a.value not in (":::", ":::+", "::::")]
        step = (*via, "parallel")
        return worst([judge.text(a.code, depth + 1, step) for a in commands])
    if inv.stdin in ("pipe", "file", "command") or "::::" in values:
        return destructive("parallel runs each input line as a command", via)
    return unknown("parallel without a command runs its input as commands", via)


def _fed_reason(program: str, inv: Invocation) -> str:
    if inv.stdin == "pipe":
        return f"piping into {program} runs whatever it receives"
    return f"{program} < <(…) runs another command's output"


def eval_code(judge: Judge, args: Sequence[Arg], depth: int, via: Via) -> Verdict:
    code = " ".join(a.code for a in args)
    if code.strip() == COMMAND_OUTPUT:
        if any(_DOWNLOADERS.search(a.text) for a in args):
            return destructive("eval runs code downloaded from the network (like curl | sh)", via)
        return unknown("eval runs code produced by a command", via)
    step = (*via, "eval")
    return worst([judge.text(code, depth + 1, step), built_from_data(judge, code, step)])


def source(
    judge: Judge, program: str, args: Sequence[Arg], inv: Invocation, depth: int, via: Via
) -> Verdict:
    """`source FILE` runs FILE in the shell; from a pipe or `<(…)` it runs another command's
    output; from a here-string it runs that text."""
    script = args[0] if args else None
    from_stdin = script is not None and script.value in ("/dev/stdin", "-")
    if (script is not None and script.substitution) or (from_stdin and inv.stdin in _FED):
        return destructive(f"{program} runs code produced by a command", via)
    if from_stdin and inv.stdin == "text" and inv.stdin_code is not None:
        return _code(judge, inv.stdin_code, program, depth, (*via, program))
    return unknown(f"{program} runs a script in the shell", via)


def interpreter(program: str, args: Sequence[Arg], inv: Invocation, via: Via) -> Verdict:
    view = split_args(args)
    if program == "perl" and view.has("-i"):
        return destructive("perl -i edits files in place", via)
    reads_stdin = not view.operands or view.operands[0].value in ("-", "/dev/stdin")
    if reads_stdin and not view.has_any(_INLINE_CODE) and inv.stdin in _FED:
        return destructive(_fed_reason(program, inv), via)
    if view.operands and view.operands[0].substitution:
        return destructive(f"{program} <(…) runs code produced by a command", via)
    if view.has_any(_INLINE_CODE):
        return unknown(f"{program} runs inline code", via)
    return unknown(f"{program} runs a program", via)


def database(program: str, inv: Invocation, via: Via) -> Verdict:
    if inv.stdin in _FED:
        return destructive(_fed_reason(program, inv), via)
    if inv.stdin == "text" and inv.stdin_code is not None and program in SQL_CLIENTS:
        verdict = sql_verdict(inv.stdin_code, program)
        return located(verdict, via)
    return SAFE


def find_actions(
    judge: Judge, args: Sequence[Arg], inv: Invocation, depth: int, via: Via
) -> tuple[list[Verdict], list[Arg]]:
    """The verdicts of find's -exec commands, and find's own words without them."""
    verdicts: list[Verdict] = []
    own: list[Arg] = []
    index = 0
    while index < len(args):
        if args[index].value in ("-exec", "-execdir", "-ok", "-okdir"):
            start = index + 1
            end = start
            while end < len(args) and args[end].value not in (";", "+"):
                end += 1
            if start < end:
                step = (*via, f"find {args[index].value}")
                verdicts.append(
                    judge.words(args[start], args[start + 1 : end], inv, depth, step, "exec")
                )
            index = end
        else:
            own.append(args[index])
        index += 1
    return verdicts, own


_CONTAINER_EXEC_OPTIONS = _words(
    "-e --env -u --user -w --workdir --env-file --detach-keys -c --container -n --namespace"
)


def container_command(program: str, args: Sequence[Arg]) -> Sequence[Arg]:
    """The command `docker exec CONTAINER …` or `kubectl exec POD -- …` runs inside."""
    if program not in ("docker", "podman", "nerdctl", "kubectl", "oc"):
        return ()
    values = [a.value for a in args]
    if "exec" not in values:
        return ()
    start = values.index("exec") + 1
    if program in ("kubectl", "oc"):
        return args[values.index("--") + 1 :] if "--" in values[start:] else ()
    index = start
    while index < len(args) and (args[index].value or "").startswith("-"):
        index += 2 if args[index].value in _CONTAINER_EXEC_OPTIONS else 1
    return args[index + 1 :]  # after the container's name
