"""The shapes of the rule tables: a destructive rule, a read-only entry, and how they match.

A rule names programs, optionally the leading operands that pick a subcommand (`git stash
drop`; each position may list alternatives `drop|clear` or end in a glob `delete-*`), and
options in manual spelling (see `options`). Tables of these are data: adding a rule never
needs new code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

from aish.safety.bash.options import ArgView


@dataclass(frozen=True)
class DestructiveRule:
    """Destructive when the program (and subcommand) match, and — when given — any of
    `options` is present or any operand after the subcommand matches `operand`; never when
    one of `unless` is present (a dry run)."""

    programs: tuple[str, ...]
    reason: str
    sub: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    operand: str | None = None
    unless: tuple[str, ...] = ()
    # An operand that makes it harmless (`parted /dev/sda print`).
    unless_operand: str | None = None
    # Match `operand` against the last operand only: the destination of `cp a b`.
    last_operand: bool = False
    # Match `operand` against the first operand only: the source of `cp /dev/null f`.
    first_operand: bool = False

    def matches(self, program: str, view: ArgView) -> bool:
        if program not in self.programs or not sub_matches(self.sub, view):
            return False
        if view.has_any(self.unless, certain=True):
            return False
        if self.unless_operand is not None and any(
            a.value is not None and _regex(self.unless_operand).search(a.value)
            for a in view.operands[len(self.sub) :]
        ):
            return False
        if not self.options and self.operand is None:
            return True
        if self.options and view.has_any(self.options, abbreviated=True):
            return True
        if self.operand is None:
            return False
        pattern = _regex(self.operand)
        rest = view.operands[len(self.sub) :]
        if self.last_operand:
            rest = rest[-1:]
        if self.first_operand:
            rest = rest[:1] if len(rest) > 1 else ()
        # A computed operand (`of="$DISK"`, `tee "$f"`) is matched as written: the rule is about
        # where it points, and a variable can point anywhere.
        return any(
            pattern.search(a.value if a.value is not None else a.text)
            for a in rest
            if not a.substitution
        )

    def describe(self) -> str:
        return _describe(self.programs, self.sub, self.options, self.operand, self.reason)


@dataclass(frozen=True)
class ReadOnly:
    """Read-only when the program (and subcommand) match, none of `deny` is present, one of
    `require` is (when given), and at most `max_operands` operands follow the subcommand."""

    programs: tuple[str, ...]
    sub: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    require: tuple[str, ...] = ()
    max_operands: int | None = None
    # When given, every option must be one of these (`set` lists only with none or `-o`).
    allow_options: tuple[str, ...] | None = None
    # An operand that makes it act (`less '+!cmd' f` runs cmd).
    deny_operand: str | None = None

    def applies(self, program: str, view: ArgView) -> bool:
        return program in self.programs and sub_matches(self.sub, view)

    def objection(self, view: ArgView) -> str | None:
        """Why this entry does not prove the command read-only, or None when it does."""
        if view.computed_option and (self.deny or self.require):
            # A reader with dangerous options is only proven safe when its options are known.
            return "an option is computed at run time"
        hit = next((spec for spec in self.deny if view.has(spec, abbreviated=True)), None)
        if hit is not None:
            return f"{hit} can write or run programs"
        if self.require and not view.has_any(self.require, certain=True):
            return f"read-only only with {' or '.join(self.require)}"
        if self.allow_options is not None:
            stray = next((o for o in view.options if o not in self.allow_options), None)
            if stray is not None:
                return f"{stray} changes state"
        if self.deny_operand is not None:
            pattern = _regex(self.deny_operand)
            hit = next((a.text for a in view.operands if pattern.search(a.value or a.text)), None)
            if hit is not None:
                return f"{hit} runs a command"
        # A `<(…)` or /dev/null operand is no file of the user's.
        extra = sum(1 for a in view.operands if not a.substitution and a.value not in NOWHERE)
        extra -= len(self.sub)
        if self.max_operands is not None and extra > self.max_operands:
            return (
                "read-only only without operands" if not self.max_operands else "too many operands"
            )
        return None


def sub_matches(sub: tuple[str, ...], view: ArgView) -> bool:
    if len(view.operands) < len(sub):
        return False
    for pattern, arg in zip(sub, view.operands, strict=False):
        if arg.value is None or not any(fnmatchcase(arg.value, p) for p in pattern.split("|")):
            return False
    return True


NOWHERE = frozenset(
    ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2")
)
_COMPILED: dict[str, re.Pattern[str]] = {}


def _regex(pattern: str) -> re.Pattern[str]:
    compiled = _COMPILED.get(pattern)
    if compiled is None:
        compiled = _COMPILED[pattern] = re.compile(pattern)
    return compiled


def _describe(
    programs: tuple[str, ...],
    sub: tuple[str, ...],
    options: tuple[str, ...],
    operand: str | None,
    reason: str,
) -> str:
    head = "/".join(programs[:4]) + ("/…" if len(programs) > 4 else "")
    parts = [head, *sub]
    if options:
        parts.append("[" + " | ".join(options) + "]")
    if operand:
        parts.append(f"operand ~ /{operand}/")
    return f"{' '.join(parts)}: {reason}"
