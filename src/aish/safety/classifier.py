"""The command classifier: one line of bash in, a verdict with its reasons out.

Pure and deterministic, no I/O. The line is parsed (a parse error means at least `unknown`);
every command in it is judged after unwrapping (`sudo`, `env`, `xargs`, `find -exec`, `bash -c
'…'`, `eval '…'` …, re-parsed up to a bounded depth) against the rule tables; every redirection
is judged on its own. The line takes its worst part's verdict, and the reasons of every part
at that level.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatchcase
from functools import lru_cache

from aish.safety.command_walk import COMMAND_OUTPUT, DYNAMIC_VALUE, Arg, Invocation, walk_bash
from aish.safety.content_checks import CONTENT_CHECKS, SQL_CLIENTS, sql_verdict
from aish.safety.destructive_rules import DESTRUCTIVE_RULES
from aish.safety.options import ArgView, split_args
from aish.safety.read_only_rules import READ_ONLY_RULES
from aish.safety.rule_types import DestructiveRule, ReadOnly
from aish.safety.user_rules import UserRules
from aish.safety.value_options import VALUE_OPTIONS
from aish.safety.verdict import SAFE, Verdict, worst
from aish.safety.wrappers import WRAPPERS, unwrap

__all__ = ["classify", "describe_rules", "normalise"]

# Code parsed again (`bash -c`, `eval`, `ssh host …`) nests at most this deep; wrappers that
# only drop words of their own (`sudo`, `nice`) always end, so they do not count.
MAX_DEPTH = 8


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NO_RULES = UserRules()

# Only these directories hold the programs the tables describe; `./rm` could be anything.
_SYSTEM_DIRS = _words(
    "/bin /usr/bin /sbin /usr/sbin /usr/local/bin /usr/local/sbin /opt/homebrew/bin"
)
_HARMLESS_TARGETS = frozenset(("/dev/null", "/dev/stdout", "/dev/stderr"))
_OVERWRITING = frozenset((">", ">|", "&>", ">&", "<>"))
_APPENDING = frozenset((">>", "&>>"))
_SHELLS = _words("bash sh zsh dash ksh mksh fish")
_INTERPRETERS = _words(
    "python pypy perl ruby node nodejs deno bun php lua luajit tclsh Rscript osascript irb "
    "jshell ghci scala groovy"
)
_DATABASE_CLIENTS = frozenset((*SQL_CLIENTS, "redis-cli", "mongosh", "mongo"))
# Variables that change how every later command runs.
_SENSITIVE_VARIABLES = _words(
    "PATH LD_PRELOAD LD_LIBRARY_PATH BASH_ENV ENV PROMPT_COMMAND IFS PS4 SHELLOPTS "
    "BASHOPTS GIT_SSH_COMMAND GIT_EXEC_PATH PYTHONPATH NODE_OPTIONS"
)
_VERSIONED = re.compile(r"^(python|pypy|pip|perl|ruby|php|lua|node)[0-9.]*$")
_RULES_BY_PROGRAM: dict[str, tuple[DestructiveRule, ...]] = {}
for _rule in DESTRUCTIVE_RULES:
    for _name in _rule.programs:
        _RULES_BY_PROGRAM[_name] = (*_RULES_BY_PROGRAM.get(_name, ()), _rule)
_INLINE_CODE = ("-c", "-e", "-E", "--eval", "-p", "-r", "-m")
_HELP_ONLY = frozenset(("--help", "--version"))


def classify(command: str, user_rules: UserRules | None = None) -> Verdict:
    """The verdict for one line of bash. Never raises."""
    return _classify_cached(command, user_rules or _NO_RULES)


def normalise(command: str) -> str:
    """The key under which verdicts about `command` are cached: whitespace collapsed."""
    return " ".join(command.split())


def describe_rules(user_rules: UserRules | None = None) -> list[str]:
    """One line per rule, for `:safety rules`."""
    rules = user_rules or _NO_RULES
    lines = [f"destructive  {rule.describe()}" for rule in DESTRUCTIVE_RULES]
    lines += [
        "destructive  redirection > >| &> <> onto any file but /dev/null, /dev/stdout, "
        "/dev/stderr: writes over the file",
        "destructive  a pipe, here-string or <(…) into a shell, interpreter or database "
        "client: runs whatever it receives",
        "destructive  sed -i, awk print > file, SQL DROP/TRUNCATE/DELETE or UPDATE without "
        "WHERE, redis FLUSHALL/DEL, mongo drop/delete",
    ]
    lines += [f"destructive  {p}  (your rule, safety.destructive)" for p in rules.destructive]
    lines += [
        f"safe         {p}  (your rule, safety.allow; never over a destructive rule)"
        for p in rules.allow
    ]
    lines += [f"read-only    {_describe_read_only(entry)}" for entry in READ_ONLY_RULES]
    lines.append(
        "unknown      everything else: parse errors, computed command names, programs "
        "run by path, unfamiliar programs, inline interpreter code"
    )
    return lines


@lru_cache(maxsize=2048)
def _classify_cached(command: str, rules: UserRules) -> Verdict:
    try:
        return _Judge(rules).text(command, 0, ())
    except RecursionError:
        return Verdict("unknown", ("nested too deeply to judge",))


class _Judge:
    def __init__(self, rules: UserRules) -> None:
        self.rules = rules

    def text(self, code: str, depth: int, via: tuple[str, ...]) -> Verdict:
        if depth > MAX_DEPTH:
            return Verdict("unknown", (_via("nested too deeply to judge", via),))
        walk = walk_bash(code)
        parts: list[Verdict] = []
        if walk.error is not None:
            parts.append(Verdict("unknown", (_via(f"does not parse: {walk.error}", via),)))
        parts += [self.invocation(inv, depth, via) for inv in walk.invocations]
        parts += [
            _unknown(f"runs {inv.name.text}, a function defined on this line", via)
            for inv in walk.invocations
            if inv.name.value in walk.functions
        ]
        for redirect in walk.redirects:
            target = redirect.target
            if target is None or target.substitution or target.value in _HARMLESS_TARGETS:
                continue
            if redirect.operator in _OVERWRITING:
                parts.append(
                    _destructive(f"{redirect.operator} {target.text} writes over the file", via)
                )
            elif redirect.operator in _APPENDING:
                parts.append(_unknown(f"{redirect.operator} {target.text} appends to a file", via))
        parts += [
            _unknown(f"sets {name}, which changes how later commands run", via)
            for name in walk.assigned
            if name in _SENSITIVE_VARIABLES
        ]
        return worst(parts)

    def invocation(self, inv: Invocation, depth: int, via: tuple[str, ...]) -> Verdict:
        parts = [
            _unknown(f"sets {name} for the command", via)
            for name, _ in inv.assignments
            if name in _SENSITIVE_VARIABLES
        ]
        parts.append(self.words(inv.name, inv.args, inv, depth, via))
        return worst(parts)

    def words(
        self, name: Arg, args: Sequence[Arg], inv: Invocation, depth: int, via: tuple[str, ...]
    ) -> Verdict:
        if depth > MAX_DEPTH:
            return _unknown("nested too deeply to judge", via)
        program, objection = _program(name)
        if program is None:
            # A script the user named in `safety.allow` (`./scripts/check.sh *`) is theirs to vouch
            # for; a computed name never is.
            literal = name.value is not None and DYNAMIC_VALUE not in name.value
            if literal and COMMAND_OUTPUT not in (name.value or ""):
                mine = self._user_destructive(name.value or "", args, via)
                if mine.level == "safe" and self._allowed(name.value or "", args):
                    return SAFE
                if mine.level != "safe":
                    return mine
            return _unknown(objection, via)
        mine = self._user_destructive(program, args, via)
        if program in WRAPPERS:
            return worst([mine, self._wrapped(program, args, inv, depth, via)])
        if args and all(a.value in _HELP_ONLY for a in args):
            return mine
        verdict = self._program(program, args, inv, depth, via)
        if verdict.level == "unknown" and mine.level == "safe" and self._allowed(program, args):
            return SAFE
        return worst([mine, verdict])

    # ---- wrappers and code that is parsed again --------------------------------------------

    def _wrapped(
        self, program: str, args: Sequence[Arg], inv: Invocation, depth: int, via: tuple[str, ...]
    ) -> Verdict:
        inner = unwrap(program, args)
        parts = [
            _unknown(f"sets {n} for the command", via)
            for n in inner.assigned
            if n in _SENSITIVE_VARIABLES
        ]
        parts += [_unknown(concern, via) for concern in inner.concerns]
        step = (*via, _step(program, args))
        if inner.code is not None:
            parts.append(self.text(inner.code, depth + 1, step))
        elif inner.args:
            parts.append(self.words(inner.args[0], inner.args[1:], inv, depth, step))
        elif inner.alone == "safe":
            parts.append(SAFE)
        else:
            parts.append(Verdict(inner.alone or "unknown", (_via(inner.alone_reason, via),)))
        return worst(parts)

    def _program(
        self, program: str, args: Sequence[Arg], inv: Invocation, depth: int, via: tuple[str, ...]
    ) -> Verdict:
        if program in _SHELLS:
            return self._shell(program, args, inv, depth, via)
        if program == "eval":
            return self._eval(args, depth, via)
        if program == "trap":
            return self._trap(args, depth, via)
        if program == "su":
            return self._su(args, depth, via)
        if program in ("source", "."):
            if args and args[0].substitution:
                return _destructive(f"{program} <(…) runs code produced by a command", via)
            return _unknown(f"{program} runs a script in the shell", via)
        if program in _INTERPRETERS:
            return self._interpreter(program, args, inv, via)
        view = split_args(args, VALUE_OPTIONS.get(program, frozenset()))
        inside = _container_command(program, args)
        if inside:
            step = (*via, f"{program} exec")
            return self.words(inside[0], inside[1:], inv, depth, step)
        parts = [
            _destructive(f"{program}: {rule.reason}", via)
            for rule in _RULES_BY_PROGRAM.get(program, ())
            if rule.matches(program, view)
        ]
        if program == "find":
            actions, args = self._find_actions(args, inv, depth, via)
            parts += actions
            view = split_args(args)
        if program in _DATABASE_CLIENTS:
            parts.append(self._database(program, inv, via))
        check = CONTENT_CHECKS.get(program)
        content = check(program, view) if check is not None else None
        if content is not None:
            parts.append(Verdict(content.level, tuple(_via(r, via) for r in content.reasons)))
        if any(p.level != "safe" for p in parts) or content is not None:
            return worst(parts)  # a script that proved read-only needs no table entry
        return worst([*parts, _read_only(program, view, via)])

    def _shell(
        self, program: str, args: Sequence[Arg], inv: Invocation, depth: int, via: tuple[str, ...]
    ) -> Verdict:
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
            elif not value.startswith("--"):
                if "n" in value[1:] and value[0] == "-":
                    return SAFE  # -n only reads the script and checks its syntax
                command_mode = command_mode or "c" in value[1:]
                from_stdin = from_stdin or "s" in value[1:]
        rest = args[index:]
        step = (*via, f"{program} -c" if command_mode else program)
        if command_mode:
            if not rest:
                return _unknown(f"{program} -c without a command", via)
            return self._code(rest[0].code, program, depth, step)
        if rest and not from_stdin and rest[0].value not in ("-", "/dev/stdin"):
            if rest[0].substitution:
                return _destructive(f"{program} <(…) runs code produced by a command", via)
            return _unknown(f"{program} runs a script: {rest[0].text}", via)
        if inv.stdin == "text" and inv.stdin_code is not None:
            return self._code(inv.stdin_code, program, depth, step)
        if inv.stdin == "pipe":
            return _destructive(f"piping into {program} runs whatever it receives", via)
        return _unknown(f"{program} reads commands from its input", via)

    def _code(self, code: str, program: str, depth: int, step: tuple[str, ...]) -> Verdict:
        if code.strip() == COMMAND_OUTPUT:
            return _destructive(
                f"{program} runs code produced by a command (like curl | sh)", step[:-1]
            )
        return self.text(code, depth + 1, step)

    def _trap(self, args: Sequence[Arg], depth: int, via: tuple[str, ...]) -> Verdict:
        """`trap 'code' SIGNAL` runs the code later, when the signal arrives: judge it now."""
        view = split_args(args)
        if not view.operands or view.has_any(("-l", "-p")):
            return SAFE  # lists signals or traps
        handler = view.operands[0]
        inner = (
            self.text(handler.code, depth + 1, (*via, "trap")) if len(view.operands) > 1 else SAFE
        )
        return worst([inner, _unknown("trap changes what the shell runs on a signal", via)])

    def _su(self, args: Sequence[Arg], depth: int, via: tuple[str, ...]) -> Verdict:
        values = [a.value for a in args]
        for flag in ("-c", "--command"):
            if flag in values and values.index(flag) + 1 < len(args):
                return self.text(args[values.index(flag) + 1].code, depth + 1, (*via, "su -c"))
        return _unknown("su without -c opens a shell as another user", via)

    def _eval(self, args: Sequence[Arg], depth: int, via: tuple[str, ...]) -> Verdict:
        code = " ".join(a.code for a in args)
        if code.strip() == COMMAND_OUTPUT:
            return _unknown("eval runs code produced by a command", via)
        return self.text(code, depth + 1, (*via, "eval"))

    def _interpreter(
        self, program: str, args: Sequence[Arg], inv: Invocation, via: tuple[str, ...]
    ) -> Verdict:
        view = split_args(args)
        if program == "perl" and view.has("-i"):
            return _destructive("perl -i edits files in place", via)
        reads_stdin = not view.operands or view.operands[0].value in ("-", "/dev/stdin")
        if reads_stdin and not view.has_any(_INLINE_CODE) and inv.stdin == "pipe":
            return _destructive(f"piping into {program} runs whatever it receives", via)
        if view.operands and view.operands[0].substitution:
            return _destructive(f"{program} <(…) runs code produced by a command", via)
        if view.has_any(_INLINE_CODE):
            return _unknown(f"{program} runs inline code", via)
        return _unknown(f"{program} runs a program", via)

    def _database(self, program: str, inv: Invocation, via: tuple[str, ...]) -> Verdict:
        if inv.stdin == "pipe":
            return _destructive(f"piping into {program} runs whatever it receives", via)
        if inv.stdin == "text" and inv.stdin_code is not None and program in SQL_CLIENTS:
            verdict = sql_verdict(inv.stdin_code) or SAFE
            return Verdict(verdict.level, tuple(_via(r, via) for r in verdict.reasons))
        return SAFE

    def _find_actions(
        self, args: Sequence[Arg], inv: Invocation, depth: int, via: tuple[str, ...]
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
                        self.words(args[start], args[start + 1 : end], inv, depth, step)
                    )
                index = end
            else:
                own.append(args[index])
            index += 1
        return verdicts, own

    # ---- user rules -------------------------------------------------------------------------

    def _user_destructive(self, program: str, args: Sequence[Arg], via: tuple[str, ...]) -> Verdict:
        if not self.rules.destructive:
            return SAFE
        line = _line(program, args)
        hits = [p for p in self.rules.destructive if fnmatchcase(line, p)]
        return (
            Verdict("destructive", tuple(_via(f"matches your rule `{p}`", via) for p in hits))
            if hits
            else SAFE
        )

    def _allowed(self, program: str, args: Sequence[Arg]) -> bool:
        line = _line(program, args)
        return any(fnmatchcase(line, p) for p in self.rules.allow)


_CONTAINER_EXEC_OPTIONS = _words(
    "-e --env -u --user -w --workdir --env-file --detach-keys -c --container -n --namespace"
)


def _container_command(program: str, args: Sequence[Arg]) -> Sequence[Arg]:
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


def _read_only(program: str, view: ArgView, via: tuple[str, ...]) -> Verdict:
    objections: list[str] = []
    for entry in READ_ONLY_RULES:
        if not entry.applies(program, view):
            continue
        objection = entry.objection(view)
        if objection is None:
            return SAFE
        objections.append(objection)
    if objections:
        return _unknown(f"{program}: {objections[0]}", via)
    return _unknown(f"{program} is not known to be read-only", via)


def _program(name: Arg) -> tuple[str | None, str]:
    value = name.value
    if value is None or DYNAMIC_VALUE in value or COMMAND_OUTPUT in value:
        return None, f"command name is computed at run time: {name.text}"
    if "/" in value:
        directory, _, base = value.rpartition("/")
        if directory not in _SYSTEM_DIRS or not base:
            return None, f"runs a program by path: {value}"
        value = base
    if value.startswith("mkfs."):
        return "mkfs", ""
    versioned = _VERSIONED.match(value)
    if versioned and value not in ("python", "pip"):
        value = versioned.group(1)
    if value == "python3" or value == "pip3":
        value = value[:-1]
    return value, ""


def _line(program: str, args: Sequence[Arg]) -> str:
    return " ".join([program, *(a.value if a.value is not None else a.text for a in args)])


def _step(program: str, args: Sequence[Arg]) -> str:
    if program == "xargs":
        return "xargs (names from input)"
    return program


def _via(reason: str, via: tuple[str, ...]) -> str:
    return f"{reason} (via {' → '.join(via)})" if via else reason


def _destructive(reason: str, via: tuple[str, ...]) -> Verdict:
    return Verdict("destructive", (_via(reason, via),))


def _unknown(reason: str, via: tuple[str, ...]) -> Verdict:
    return Verdict("unknown", (_via(reason, via),))


def _describe_read_only(entry: ReadOnly) -> str:
    names = " ".join(entry.programs[:12]) + (" …" if len(entry.programs) > 12 else "")
    parts = [names, *entry.sub]
    if entry.require:
        parts.append("with " + " or ".join(entry.require))
    if entry.deny:
        parts.append("without " + " ".join(entry.deny[:8]) + (" …" if len(entry.deny) > 8 else ""))
    if entry.max_operands is not None:
        parts.append(f"(at most {entry.max_operands} operands)")
    return " ".join(parts)
