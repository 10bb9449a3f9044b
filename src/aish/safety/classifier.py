"""The command classifier: one line of bash in, a verdict with its reasons out.

Pure and deterministic, no I/O. The line is parsed (a parse error means at least `unknown`);
every command in it is judged after unwrapping (`sudo`, `env`, `xargs`, `find -exec`, `bash -c
'…'`, `eval '…'` …, re-parsed up to a bounded depth) against the rule tables; every redirection
is judged on its own. The line takes its worst part's verdict, and the reasons of every part
at that level.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from aish.safety.bash.command_walk import (
    COMMAND_OUTPUT,
    DYNAMIC_VALUE,
    Arg,
    Invocation,
    Stdin,
    walk_bash,
)
from aish.safety.bash.history_expansion import history_expansion
from aish.safety.bash.integration_state import integration_reason, lists_every_variable
from aish.safety.bash.live_shell import SYSTEM_DIRS, Lookup, ShellFacts, resolve
from aish.safety.bash.options import ArgView, split_args
from aish.safety.bash.shell_state import (
    assignment_concern,
    builtin_assignments,
    evaluates_text,
    harmless_for_one_command,
)
from aish.safety.bash.value_options import (
    GLOBAL_FLAGS,
    SHORT_VALUES,
    SUBCOMMAND_SHORT_VALUES,
    VALUE_OPTIONS,
    WORD_OPTION_PROGRAMS,
)
from aish.safety.bash.wrappers import WRAPPERS, unwrap
from aish.safety.egress.checks import egress_verdict, network_redirect, redirect_verdict
from aish.safety.reasons import Via, destructive, located, unknown
from aish.safety.reasons import via as via_
from aish.safety.rules import code_runners
from aish.safety.rules.command_pattern import SimpleCommand, match_command, pattern_words
from aish.safety.rules.content_checks import CONTENT_CHECKS, awk_programs
from aish.safety.rules.destructive import DESTRUCTIVE_RULES, DEVICES
from aish.safety.rules.inline_code import InlineCode, inline_code, inline_verdicts
from aish.safety.rules.listing import describe_rules
from aish.safety.rules.met_command import in_directories, simple_command
from aish.safety.rules.multiplexers import multiplexer_code
from aish.safety.rules.policy_match import rule_match
from aish.safety.rules.project_launchers import PROJECT_LAUNCHERS
from aish.safety.rules.read_only import READ_ONLY_RULES
from aish.safety.rules.types import NOWHERE, DestructiveRule, ReadOnly
from aish.safety.rules.user import UserRules
from aish.safety.unseen_chars import hidden_characters_reason
from aish.safety.verdict import SAFE, Verdict, worst

__all__ = ["Judgement", "classify", "describe_rules", "judge_line", "normalise"]

# Code parsed again (`bash -c`, `eval`, `ssh host …`) nests at most this deep; wrappers that
# only drop words of their own (`sudo`, `nice`) always end, so they do not count.
MAX_DEPTH = 8


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NO_RULES = UserRules()


_OVERWRITING = frozenset((">", ">|", "&>", ">&", "<>"))
_APPENDING = frozenset((">>", "&>>"))
_DEVICES = re.compile(DEVICES)
_VERSIONED = re.compile(r"^(python|pypy|pip|perl|ruby|php|lua|node)[0-9.]*$")
_RULES_BY_PROGRAM: dict[str, tuple[DestructiveRule, ...]] = {}
for _rule in DESTRUCTIVE_RULES:
    for _name in _rule.programs:
        _RULES_BY_PROGRAM[_name] = (*_RULES_BY_PROGRAM.get(_name, ()), _rule)
_READ_ONLY_BY_PROGRAM: dict[str, tuple[ReadOnly, ...]] = {}
for _entry in READ_ONLY_RULES:
    for _name in _entry.programs:
        _READ_ONLY_BY_PROGRAM[_name] = (*_READ_ONLY_BY_PROGRAM.get(_name, ()), _entry)
_HELP_ONLY = frozenset(("--help", "--version"))
_AWKS = frozenset(("awk", "gawk", "mawk", "nawk"))


# Longer lines are not cached (a few long keys would hold a lot of memory), and lines past the
# limit are not parsed at all: no command a person reviews is that long.
_CACHED_CHARS = 4096
MAX_CHARS = 16384
# Words looked at while judging one line; past it the line is "too complex to judge" rather
# than slow (nested `find -exec find -exec …` re-reads its tail at every level).
_WORK_BUDGET = 40_000


# A simple command as met: read into a `SimpleCommand` only when the policy asks (most lines
# are judged with no policy rule to match).
_Met = tuple[str | None, Arg, Sequence[Arg], Via, bool]


@dataclass(frozen=True)
class Judgement:
    """A line's verdict and every simple command met on the way, after unwrapping (what the
    permission policy matches). Where part of the line could not be read (a parse error, too
    deep, too complex), `commands` holds a command whose every word is computed: it may be
    anything."""

    verdict: Verdict
    met: tuple[SimpleCommand | _Met, ...] = ()

    @cached_property
    def commands(self) -> tuple[SimpleCommand, ...]:
        met = (m if isinstance(m, SimpleCommand) else simple_command(*m) for m in self.met)
        return in_directories(tuple(met))


# What the policy must assume a part it could not read runs: anything.
UNREAD = SimpleCommand((None,), open_ended=True)


def classify(
    command: str, user_rules: UserRules | None = None, facts: ShellFacts | None = None
) -> Verdict:
    """The verdict for one line of bash, as typed at an interactive prompt. Never raises.

    With `facts` (the live shell that will run it) names are judged by what that shell resolves
    them to, and git by the configuration it will read; without, by the tables alone.
    """
    return judge_line(command, user_rules, facts).verdict


def judge_line(
    command: str, user_rules: UserRules | None = None, facts: ShellFacts | None = None
) -> Judgement:
    """`classify`, with the simple commands the verdict was judged from. Never raises."""
    if len(command) > MAX_CHARS:
        return Judgement(
            Verdict("unknown", (f"too long to judge ({len(command)} characters)",)), (UNREAD,)
        )
    rules = user_rules or _NO_RULES
    # A bidi override or a zero-width space makes the line shown differ from the line run:
    # never `safe`, and never cleared by a second opinion or an allow rule (it halts Norris).
    hidden = hidden_characters_reason(command)
    try:
        if len(command) <= _CACHED_CHARS:
            judgement = _classify_cached(command, rules, facts)
        else:
            judgement = _classify_line(command, rules, facts)
        if hidden is None:
            return judgement
        verdict = worst([Verdict("destructive", (hidden,)), judgement.verdict])
        return replace(judgement, verdict=verdict)
    except (RecursionError, _TooComplex):
        return Judgement(
            Verdict("unknown", ("nested too deeply or too complex to judge",)), (UNREAD,)
        )
    except Exception as error:  # a bug here must fail closed, never open
        reason = f"could not be judged ({type(error).__name__})"
        return Judgement(Verdict("destructive", (reason,)), (UNREAD,))


def normalise(command: str) -> str:
    """The key under which verdicts about `command` are cached: the exact command, without
    surrounding whitespace (whitespace inside it can be part of what it means)."""
    return command.strip()


@lru_cache(maxsize=2048)
def _classify_cached(command: str, rules: UserRules, facts: ShellFacts | None) -> Judgement:
    return _classify_line(command, rules, facts)


def _classify_line(command: str, rules: UserRules, facts: ShellFacts | None = None) -> Judgement:
    judge = _Judge(rules, facts, _CHANGES_DIRECTORY.search(command) is not None)
    verdict = judge.text(command, 0, ())
    expansion = history_expansion(command)
    if expansion is not None:
        # The shell would run an earlier line's words, not what is written here.
        reason = f"{expansion} expands to an earlier command"
        verdict = worst([verdict, Verdict("unknown", (reason,))])
        judge.seen.append(UNREAD)
    return Judgement(verdict, tuple(judge.seen))


class _TooComplex(Exception):
    """The line needs more work to judge than a command a person reviews ever does."""


# Whether anything in the line may run git somewhere other than the cwd whose config was read.
_CHANGES_DIRECTORY = re.compile(r"(?<![\w-])(cd|pushd|popd)(?![\w-])")
_GIT_ELSEWHERE = frozenset(("-C", "--git-dir", "--work-tree", "--exec-path", "--namespace"))
_SPLITTING_READERS = frozenset(("read", "mapfile", "readarray"))
# Programs that start a pager (or are one) when they write to a terminal.
_PAGING = frozenset(("less", "more", "most", "man", "git", "journalctl", "systemctl"))


class _Judge:
    def __init__(
        self, rules: UserRules, facts: ShellFacts | None = None, moves: bool = False
    ) -> None:
        self.rules = rules
        self.facts = facts
        # The line changes directory, so git may read another repository's config, and a
        # path word of any command may point elsewhere than it reads.
        self.moves = moves
        self.work = 0
        self.expanding: frozenset[str] = frozenset()  # aliases being expanded
        # Every simple command met, for the permission policy.
        self.seen: list[SimpleCommand | _Met] = []

    def unreadable(self) -> None:
        self.seen.append(UNREAD)

    def text(self, code: str, depth: int, via: Via, stdin: Stdin | None = None) -> Verdict:
        """The verdict for `code`; `stdin` is what its commands read when the code runs with
        another command's output as input (`ssh host 'bash -s' < <(curl …)`)."""
        if depth > MAX_DEPTH:
            self.seen.append(UNREAD)
            return unknown("nested too deeply to judge", via)
        walk = walk_bash(code)
        if walk.error is not None:
            self.seen.append(UNREAD)  # what bash makes of a broken line is beyond reading
        if stdin is not None:
            walk = replace(
                walk,
                invocations=tuple(
                    replace(inv, stdin=stdin) if inv.stdin == "inherited" else inv
                    for inv in walk.invocations
                ),
            )
        parts: list[Verdict] = []
        if walk.error is not None:
            parts.append(unknown(f"does not parse: {walk.error}", via))
        # Every piece of code judged, not only the line: an alias's text, `bash -c` code.
        integration = integration_reason(code)
        if integration is not None:
            parts.append(unknown(integration, via))
        parts += [self.invocation(inv, depth, via) for inv in walk.invocations]
        parts += [
            unknown(f"runs {inv.name.text}, a function defined on this line", via)
            for inv in walk.invocations
            if inv.name.value in walk.functions
        ]
        for redirect in walk.redirects:
            target = redirect.target
            if target is None or target.substitution or target.value in NOWHERE:
                continue
            if network_redirect(redirect) is not None:  # `> /dev/tcp/h/p` sends, not writes
                parts.append(redirect_verdict(redirect, via))
                continue
            if redirect.operator in _OVERWRITING:
                parts.append(
                    destructive(f"{redirect.operator} {target.text} writes over the file", via)
                )
            elif redirect.operator in _APPENDING and _DEVICES.search(target.value or ""):
                parts.append(
                    destructive(f"{redirect.operator} {target.text} writes to a device", via)
                )
            elif redirect.operator in _APPENDING:
                parts.append(unknown(f"{redirect.operator} {target.text} appends to a file", via))
        parts += [
            unknown(concern, via)
            for concern in map(assignment_concern, walk.assigned)
            if concern is not None
        ]
        parts += [
            unknown(f"exports {name} to every later command", via)
            for name in walk.exported
            if not harmless_for_one_command(name) and assignment_concern(name) is None
        ]
        parts += [self.text(code, depth + 1, (*via, "`…`")) for code in walk.embedded]
        parts += [unknown(concern, via) for concern in walk.concerns]
        return worst(parts)

    def invocation(self, inv: Invocation, depth: int, via: Via) -> Verdict:
        parts = [
            unknown(f"sets {name} for the command, which can change what it runs", via)
            for name, _ in inv.assignments
            if not harmless_for_one_command(name)
            # `IFS= read -r line`: how the builtin splits what it reads, nothing more.
            and not (name == "IFS" and inv.name.value in _SPLITTING_READERS)
        ]
        expands = self.facts.global_aliases if self.facts is not None else {}
        parts += [
            unknown(f"{word.text} is a global alias for {expands[word.text]}", via)
            for word in (inv.name, *inv.args)
            if word.value == word.text and word.text in expands
        ]
        parts.append(self.words(inv.name, inv.args, inv, depth, via))
        return worst(parts)

    def words(
        self,
        name: Arg,
        args: Sequence[Arg],
        inv: Invocation,
        depth: int,
        via: Via,
        lookup: Lookup = "shell",
    ) -> Verdict:
        if depth > MAX_DEPTH:
            self.seen.append(UNREAD)
            return unknown("nested too deeply to judge", via)
        self.work += 1 + len(args)
        if self.work > _WORK_BUDGET:
            raise _TooComplex
        program, objection = _program(name)
        self.seen.append((program, name, args, via, self.moves))
        met = _Lazy(program, name, args, via, self.moves)
        if self.facts is not None and name.value is not None and name.value == name.text:
            live = self._live(name.value, args, inv, depth, via, lookup)
            if live is not None:
                return live
        if program is None:
            # A script the user named in `safety.allow` (`./scripts/check.sh *`) is theirs to vouch
            # for; a computed name never is.
            literal = name.value is not None and DYNAMIC_VALUE not in name.value
            if literal and COMMAND_OUTPUT not in (name.value or ""):
                mine = self._user_destructive(met, via)
                allowed = self._allowed(met, via)
                if mine.level == "safe" and allowed is not None:
                    return allowed
                if mine.level != "safe":
                    return mine
            return unknown(objection, via)
        mine = self._user_destructive(met, via)
        # What the command can send off the machine; no allow rule vouches for that.
        leak = egress_verdict(program, args, inv, via)
        if program in WRAPPERS and not (program == "runuser" and code_runners.command_option(args)):
            return worst([mine, leak, self._wrapped(program, args, inv, depth, via)])
        if args and all(a.value in _HELP_ONLY for a in args):
            if program not in PROJECT_LAUNCHERS:
                return mine
            # `mvn --version`, `cargo --version`: the project's files pick what runs first.
            reason = f"{program} reads the project's files, which can name the program it runs"
            return worst([mine, leak, unknown(reason, via)])
        verdict = self._program(program, args, inv, depth, via)
        if self.facts is not None and verdict.level == "safe":
            verdict = worst([verdict, self._configured(program, args, via, lookup)])
        if verdict.level == "unknown" and mine.level == "safe":
            allowed = self._allowed(met, via)
            if allowed is not None:
                return worst([allowed, leak])
        return worst([mine, verdict, leak])

    # ---- the live shell ---------------------------------------------------------------------

    def _live(
        self, name: str, args: Sequence[Arg], inv: Invocation, depth: int, via: Via, lookup: Lookup
    ) -> Verdict | None:
        """The verdict when the live shell makes `name` something other than the program of
        that name (an alias or function is judged by its body), else None."""
        assert self.facts is not None
        found = resolve(self.facts, name, lookup, self.expanding)
        if found is None:
            return None
        if found.kind == "concern":
            return unknown(found.text, via)
        if found.kind == "function":
            return self.text(found.text, depth + 1, (*via, f"function {name}"))
        rest = " ".join(shlex.quote(a.value) if a.value is not None else a.code for a in args)
        outer = self.expanding
        self.expanding = outer | {name}
        try:
            return self.text(f"{found.text} {rest}", depth + 1, (*via, f"alias {name}"))
        finally:
            self.expanding = outer

    def _configured(self, program: str, args: Sequence[Arg], via: Via, lookup: Lookup) -> Verdict:
        """What the configuration a read-only program reads makes it run (git's config, the
        pager variables, LD_PRELOAD): unknown with those reasons, or safe."""
        assert self.facts is not None
        facts = self.facts
        if lookup == "none":
            return SAFE
        reasons = list(facts.exec_concerns)
        if program in _PAGING:
            reasons += facts.pager_concerns
        if program == "git":
            if self.moves or any((a.value or "").split("=")[0] in _GIT_ELSEWHERE for a in args):
                reasons.append("git runs in a directory whose configuration was not checked")
            elif not facts.git_checked:
                reasons.append("git's configuration could not be checked")
            reasons += facts.git_concerns
        return Verdict("unknown", tuple(via_(r, via) for r in reasons)) if reasons else SAFE

    # ---- wrappers and code that is parsed again --------------------------------------------

    def _wrapped(
        self, program: str, args: Sequence[Arg], inv: Invocation, depth: int, via: Via
    ) -> Verdict:
        inner = unwrap(program, args)
        parts = [
            unknown(f"sets {n} for the command, which can change what it runs", via)
            for n in inner.assigned
            if not harmless_for_one_command(n)
        ]
        parts += [unknown(concern, via) for concern in inner.concerns]
        step = (*via, _step(program))
        if inner.code is not None and code_runners.is_placeholder(inner.code):
            parts.append(destructive(f"{program} runs each input as a command", via))
        elif inner.code is not None:
            parts.append(self.text(inner.code, depth + 1, step, _passed_on(inv)))
        elif inner.args:
            # `time` is the shell's keyword; the others execute the program themselves.
            lookup: Lookup = "shell" if program == "time" else "exec"
            parts.append(self.words(inner.args[0], inner.args[1:], inv, depth, step, lookup))
        elif program == "parallel":
            parts.append(code_runners.parallel_inputs(self, args, inv, depth, via))
        elif inner.alone == "safe":
            parts.append(SAFE)
        elif program in _SHELL_WITHOUT_COMMAND and inv.stdin in ("pipe", "command"):
            reason = f"{program} without a command runs its input as commands"
            parts.append(destructive(reason, via))
        else:
            parts.append(Verdict(inner.alone or "unknown", (via_(inner.alone_reason, via),)))
        return worst(parts)

    def _program(
        self, program: str, args: Sequence[Arg], inv: Invocation, depth: int, via: Via
    ) -> Verdict:
        if program in code_runners.SHELLS:
            return code_runners.shell(self, program, args, inv, depth, via)
        if program == "eval":
            return code_runners.eval_code(self, args, depth, via)
        if program == "trap":
            return code_runners.trap(self, args, depth, via)
        if program == "su" or (program == "runuser" and code_runners.command_option(args)):
            return code_runners.su(self, program, args, inv, depth, via)
        if program == "script":
            return code_runners.script(self, args, depth, via)
        if program in ("source", "."):
            return code_runners.source(self, program, args, inv, depth, via)
        if program in ("at", "batch"):
            return code_runners.scheduler(self, program, inv, depth, via)
        if program in code_runners.INTERPRETERS:
            codes = inline_code(program, tuple(a.value for a in args))
            inline = inline_verdicts(self, program, codes, depth, via)
            return worst([code_runners.interpreter(program, args, inv, via), *inline])
        listing = lists_every_variable(program, [a.value or a.text for a in args])
        if listing is not None:
            return Verdict("unknown", (via_(listing, via),))
        state = self._shell_state(program, args, via)
        if state is not None:
            return state
        view = _view(program, args)
        inside = code_runners.container_command(program, args)
        if inside:
            step = (*via, f"{program} exec")
            return self.words(inside[0], inside[1:], inv, depth, step, "none")
        parts = [
            destructive(f"{program}: {rule.reason}", via)
            for rule in _RULES_BY_PROGRAM.get(program, ())
            if rule.matches(program, view)
        ]
        if program == "find":
            actions, args = code_runners.find_actions(self, args, inv, depth, via)
            parts += actions
            view = _view(program, args)
        if program in code_runners.DATABASE_CLIENTS:
            parts.append(code_runners.database(program, inv, via))
        if program in ("tmux", "screen"):  # the commands a session runs or is typed
            step = (*via, program)
            for code in multiplexer_code(program, args):
                parts.append(self.text(code, depth + 1, step))
                parts.append(code_runners.built_from_data(self, code, step))
        if program in _AWKS:  # the commands its program hands to system()
            codes = [InlineCode("awk", t) for t in awk_programs(view) if t is not None]
            parts += inline_verdicts(self, program, codes, depth, via)
        check = CONTENT_CHECKS.get(program)
        content = check(program, view) if check is not None else None
        if content is not None:
            parts.append(located(content, via))
        if any(p.level != "safe" for p in parts) or content is not None:
            return worst(parts)  # a script that proved read-only needs no table entry
        return worst([*parts, _read_only(program, view, via)])

    def _shell_state(self, program: str, args: Sequence[Arg], via: Via) -> Verdict | None:
        """Builtins that assign variables or evaluate text: unknown when that can change what
        the shell runs later or run a command now; None to judge the program as usual."""
        reasons = [
            concern
            for name in builtin_assignments(program, args) or []
            if (concern := assignment_concern(name)) is not None
        ]
        evaluated = evaluates_text(program, args)
        reasons += [evaluated] if evaluated else []
        return Verdict("unknown", tuple(via_(r, via) for r in reasons)) if reasons else None

    # ---- user rules -------------------------------------------------------------------------

    def _user_destructive(self, met: _Lazy, via: Via) -> Verdict:
        if not self.rules.destructive:
            return SAFE
        hits = [
            p
            for p in self.rules.destructive
            if match_command(pattern_words(p), met.read(), tighten=True) == "yes"
        ]
        return (
            Verdict("destructive", tuple(via_(f"matches your rule `{p}`", via) for p in hits))
            if hits
            else SAFE
        )

    def _allowed(self, met: _Lazy, via: Via) -> Verdict | None:
        """Safe, naming the user's allow rule that vouches for the command, or None."""
        allowing = self.rules.allowing()
        if not allowing:
            return None
        command = met.read()
        rule = next((r for r in allowing if rule_match(r, command) == "yes"), None)
        if rule is None:
            return None
        said = f"`{rule.commands[0]}`" if rule.name == "safety.allow" else rule.label
        return Verdict("safe", (via_(f"allowed by your rule {said}", via),))


def _read_only(program: str, view: ArgView, via: Via) -> Verdict:
    unfamiliar = _unfamiliar_global(program, view)
    if unfamiliar is not None:
        return unknown(f"{program}: {unfamiliar} before the subcommand is not known", via)
    objections: list[str] = []
    for entry in _READ_ONLY_BY_PROGRAM.get(program, ()):
        if not entry.applies(program, view):
            continue
        objection = entry.objection(view)
        if objection is None:
            return SAFE
        objections.append(objection)
    if objections:
        return unknown(f"{program}: {objections[0]}", via)
    return unknown(f"{program} is not known to be read-only", via)


# Wrappers that, given no command, start a shell reading its input.
_SHELL_WITHOUT_COMMAND = frozenset(("sudo", "doas", "ssh", "pkexec", "runuser", "chroot"))


def _passed_on(inv: Invocation) -> Stdin | None:
    """The input a wrapper hands to the code it runs, when that input is a command's output."""
    return inv.stdin if inv.stdin in ("pipe", "command") else None


def _view(program: str, args: Sequence[Arg]) -> ArgView:
    values = VALUE_OPTIONS.get(program, frozenset())
    short = SHORT_VALUES.get(program)
    if program in SUBCOMMAND_SHORT_VALUES:
        # The letters that take values depend on the subcommand (`git clean -e`, `git tag -m`).
        subcommand = split_args(args, values).operands[:1]
        if subcommand and subcommand[0].value is not None:
            short = SHORT_VALUES.get(f"{program} {subcommand[0].value}", short)
    return split_args(args, values, short, word_options=program in WORD_OPTION_PROGRAMS)


def _unfamiliar_global(program: str, view: ArgView) -> str | None:
    flags = GLOBAL_FLAGS.get(program)
    if flags is None:
        return None
    values = VALUE_OPTIONS.get(program, frozenset())
    for option in view.leading:
        name = option.split("=", 1)[0]
        attached = "=" in option or (len(option) > 2 and option[1] != "-" and option[:2] in values)
        if option not in flags and option not in values and not attached and name not in flags:
            return option
    return None


def _program(name: Arg) -> tuple[str | None, str]:
    value = name.value
    if value is None or DYNAMIC_VALUE in value or COMMAND_OUTPUT in value:
        return None, f"command name is computed at run time: {name.text}"
    if "/" in value:
        directory, _, base = value.rpartition("/")
        if directory not in SYSTEM_DIRS or not base:
            return None, f"runs a program by path: {value}"
        value = base
    if value.startswith("mkfs."):
        return "mkfs", ""
    if value == "gsed":
        return "sed", ""  # GNU sed by its BSD-side name: the same options, -i included
    versioned = _VERSIONED.match(value)
    if versioned and value not in ("python", "pip"):
        value = versioned.group(1)
    if value == "python3" or value == "pip3":
        value = value[:-1]
    return value, ""


class _Lazy:
    """A met command, read for the user's rules only when there are some."""

    def __init__(
        self, program: str | None, name: Arg, args: Sequence[Arg], via: Via, moved: bool
    ) -> None:
        self._met: _Met = (program, name, args, via, moved)
        self._read: SimpleCommand | None = None

    def read(self) -> SimpleCommand:
        if self._read is None:
            self._read = simple_command(*self._met)
        return self._read


def _step(program: str) -> str:
    """How a wrapper is named in the `via` path of a reason."""
    return "xargs (names from input)" if program == "xargs" else program
