"""Programs that run another command: what they run, so the classifier can judge that instead.

`sudo -u postgres psql …` runs `psql …`; `timeout 30 rm -r x` runs `rm -r x`; `watch -n 5 rm
-f x` and `ssh host 'rm x'` hand their words to a shell, so the joined words are code to parse
again. `unwrap` answers with the inner command's words, with code to re-parse, or with a
verdict when nothing else runs (`env` alone prints the environment).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace

from aish.safety.bash.command_walk import DYNAMIC_VALUE, Arg
from aish.safety.verdict import Level


@dataclass(frozen=True)
class Wrapper:
    """How a wrapper's own words end and its command begins.

    Options come first (`value_options` take the next word); then `skip_operands` words of its
    own (a duration, a host, a directory); then, with `assignments`, `NAME=value` words; the
    rest is the command. `joins`: the command words are joined by spaces and run by a shell.
    `alone`: the verdict when no command follows. `concern`: why the wrapper itself is never
    read-only (`nohup` writes nohup.out); `risky`: its options that write files or edit.
    """

    value_options: frozenset[str] = frozenset()
    skip_operands: int = 0
    assignments: bool = False
    joins: bool = False
    alone: Level = "safe"
    alone_reason: str = ""
    concern: str = ""
    risky: tuple[tuple[str, str], ...] = ()


def _opts(text: str) -> frozenset[str]:
    return frozenset(text.split())


WRAPPERS: dict[str, Wrapper] = {
    "sudo": Wrapper(
        _opts(
            "-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role "
            "-t --type -U --other-user -T --command-timeout -R --chroot"
        ),
        assignments=True,
        alone="unknown",
        alone_reason="sudo without a command opens a root shell",
        risky=(("-e", "sudo -e edits files"), ("--edit", "sudo --edit edits files")),
    ),
    "doas": Wrapper(_opts("-u -C"), alone="unknown", alone_reason="doas opens a root shell"),
    "env": Wrapper(_opts("-u --unset -C --chdir -S --split-string"), assignments=True),
    # `jobs -x cmd args` runs cmd with job specs replaced; without -x it only lists.
    "jobs": Wrapper(),
    "nice": Wrapper(_opts("-n --adjustment")),
    "ionice": Wrapper(_opts("-c --class -n --classdata -t")),
    "nohup": Wrapper(concern="nohup appends the output to nohup.out"),
    "time": Wrapper(
        _opts("-f --format -o --output"),
        risky=(("-o", "time -o writes a file"), ("--output", "time --output writes a file")),
    ),
    "timeout": Wrapper(_opts("-s --signal -k --kill-after"), skip_operands=1),
    "stdbuf": Wrapper(_opts("-i -o -e --input --output --error")),
    "command": Wrapper(),
    "builtin": Wrapper(),
    "exec": Wrapper(
        _opts("-a"),
        alone="unknown",
        alone_reason="exec with only redirections rewires the shell's own output",
        concern="exec replaces the shell with the command",
    ),
    # Read-only or not, a command in a session of its own outlives the shell that started it:
    # no Ctrl-C, timeout or hang-up reaches it.
    "setsid": Wrapper(concern="setsid runs the command detached, beyond Ctrl-C and timeouts"),
    "coproc": Wrapper(),
    "busybox": Wrapper(alone="unknown", alone_reason="busybox without an applet"),
    "unbuffer": Wrapper(),
    "chronic": Wrapper(),
    "caffeinate": Wrapper(_opts("-t -w")),
    "chroot": Wrapper(
        _opts("--userspec --groups"),
        skip_operands=1,
        alone="unknown",
        alone_reason="chroot opens a shell",
    ),
    "flock": Wrapper(
        _opts("-w --wait --timeout -E --conflict-exit-code -c --command"),
        skip_operands=1,
        concern="flock creates its lock file",
    ),
    "xargs": Wrapper(
        _opts(
            "-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s "
            "--max-chars --process-slot-var"
        ),
    ),
    "watch": Wrapper(_opts("-n --interval -q --equexit"), joins=True),
    "ssh": Wrapper(
        _opts("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w"),
        skip_operands=1,
        joins=True,
        alone="unknown",
        alone_reason="ssh opens a remote shell",
    ),
    "parallel": Wrapper(
        _opts(
            "-j -P --jobs -S --sshlogin -a --arg-file --joblog --results --tmpdir -N -n -L "
            "--delay --timeout --colsep -d --delimiter -I --workdir --wd"
        ),
        joins=True,
        alone="unknown",
        alone_reason="parallel without a command runs its input as commands",
        risky=(("--joblog", "parallel --joblog writes a file"), ("--results", "writes files")),
    ),
    "pkexec": Wrapper(_opts("--user"), alone="unknown", alone_reason="pkexec opens a root shell"),
    "runuser": Wrapper(
        _opts("-u --user -g --group -G --supp-group -s --shell -w --whitelist-environment"),
        alone="unknown",
        alone_reason="runuser opens a shell as another user",
    ),
    "strace": Wrapper(
        _opts("-o -e -p -s -u -a -E -I -b -O -P -S -X --output --trace --attach --user"),
        risky=(("-o", "strace -o writes a file"), ("--output", "strace -o writes a file")),
        alone="unknown",
        alone_reason="strace attaches to a process",
    ),
    "ltrace": Wrapper(_opts("-o -e -p -s -u -a -n"), risky=(("-o", "ltrace -o writes a file"),)),
    "systemd-run": Wrapper(
        _opts(
            "-u --unit -p --property -M --machine -H --host --uid --gid --nice -E --setenv "
            "--working-directory --slice --description --on-active --on-calendar"
        ),
        concern="systemd-run starts a service unit",
    ),
    "nsenter": Wrapper(_opts("-t --target -S --setuid -G --setgid -w --wd -r --root")),
    "unshare": Wrapper(_opts("--propagation --setgroups --map-user --map-group")),
    "taskset": Wrapper(_opts(""), skip_operands=1),
    "fakeroot": Wrapper(_opts("-l --lib --faked -s -i")),
    "eatmydata": Wrapper(),
}

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

# Options of a wrapper that mean "nothing runs" (a lookup or a listing).
_LOOKUPS: dict[str, frozenset[str]] = {
    "command": _opts("-v -V"),
    # Not -k/-K/-v: with a command after them, sudo still runs it.
    "sudo": _opts("-l --list -V --version"),
}


@dataclass(frozen=True)
class Unwrapped:
    """What a wrapper runs: `args` (the inner command's words) or `code` (to parse again), or
    neither, when `alone` is the whole verdict. `assigned` are variables set for the command."""

    args: tuple[Arg, ...] = ()
    code: str | None = None
    alone: Level | None = None
    alone_reason: str = ""
    assigned: tuple[str, ...] = ()
    # Why the wrapper, whatever it runs, is at least `unknown`.
    concerns: tuple[str, ...] = ()


def is_wrapper(program: str) -> bool:
    """Whether `program` runs another command that `unwrap` can find in its words."""
    return program in WRAPPERS


def unwrap(program: str, args: Sequence[Arg]) -> Unwrapped:
    unwrapped, own = _unwrap(program, args)
    concerns = _concerns(program, args[:own], args)
    return replace(unwrapped, concerns=concerns) if concerns else unwrapped


_LOCAL_COMMANDS = re.compile(r"(?i)(proxycommand|localcommand|knownhostscommand|proxyjump)")


def _concerns(program: str, args: Sequence[Arg], every: Sequence[Arg]) -> tuple[str, ...]:
    """Why the wrapper is never read-only: its own words (`args`), and for parallel, whose
    replacement strings run Perl anywhere on the line, all of them (`every`)."""
    wrapper = WRAPPERS[program]
    found = [wrapper.concern] if wrapper.concern else []
    values = {a.value for a in args if a.value is not None}
    found += [
        reason
        for option, reason in wrapper.risky
        if any(v == option or v.startswith(option + "=") for v in values)
    ]
    if program == "ssh" and any(_LOCAL_COMMANDS.search(v) for v in values):
        found.append("ssh -o ProxyCommand/LocalCommand runs a local command")
    if program == "ssh":
        found += _ssh_concerns(args)
    if program == "parallel":
        found += _parallel_concerns(every)
    return tuple(found)


# ssh options that only choose how to connect; anything else may write a log (-E), load a
# library (-I), leave a tunnel or master process behind (-f -L -R -D -M -S -w) or append to
# an arbitrary known-hosts file (-o UserKnownHostsFile).
_SSH_PLAIN_LETTERS = frozenset("46AaCgKkNnqsTtVvXxYy")
_SSH_PLAIN_VALUES = frozenset("pliJbcmBeQ")
_SSH_PLAIN_CONFIG = _opts(
    "port user connecttimeout batchmode loglevel serveraliveinterval serveralivecountmax "
    "stricthostkeychecking identityfile identitiesonly compression hostname "
    "passwordauthentication pubkeyauthentication preferredauthentications"
)


def _ssh_concerns(own: Sequence[Arg]) -> list[str]:
    words = [a.value for a in own]
    for index, word in enumerate(words):
        if word is None or not word.startswith("-") or word == "--":
            continue
        for position, letter in enumerate(word[1:], start=1):
            if letter in _SSH_PLAIN_VALUES:
                break  # the rest of the word (or the next word) is its value
            if letter == "o":
                setting = word[position + 1 :] or (
                    words[index + 1] if index + 1 < len(words) else ""
                )
                key = (setting or "").split("=", 1)[0].split()[0].lower() if setting else ""
                if key not in _SSH_PLAIN_CONFIG:
                    return [f"ssh -o {key or '…'} is more than a connection setting"]
                break
            if letter not in _SSH_PLAIN_LETTERS:
                return [f"ssh -{letter} can write files, load code or leave processes behind"]
    return []


_PARALLEL_RISKY = ("--res", "--files", "-S", "--sshlogin", "--slf", "--ssh", "--transfer",
                   "--return", "--cleanup", "--basefile", "--bf", "--tmux", "--rpl")  # fmt: skip


def _parallel_concerns(args: Sequence[Arg]) -> list[str]:
    texts = [a.value if a.value is not None else a.text for a in args]
    if any("{=" in t for t in texts):
        return ["parallel {= … =} runs Perl code"]
    risky = [t for t in texts if t.startswith(_PARALLEL_RISKY)]
    return [f"parallel {risky[0]} writes files or runs elsewhere"] if risky else []


def _unwrap(program: str, args: Sequence[Arg]) -> tuple[Unwrapped, int]:
    """What the wrapper runs, and how many of `args` are the wrapper's own words."""
    wrapper = WRAPPERS[program]
    i = 0
    split_string: str | None = None
    lookups = _LOOKUPS.get(program, frozenset())
    shell_mode = False
    command: str | None = None
    while i < len(args):
        value = args[i].value
        if program == "env" and value == "-":
            i += 1  # the same as -i
            continue
        if value is None or not value.startswith("-") or value == "-":
            break
        if program in ("ssh", "parallel") and value in (":::", "::::"):
            break
        i += 1
        if value == "--":
            break
        if value in lookups:
            return Unwrapped(alone="safe"), i
        if program == "env":
            split_string, takes_next = _env_option(value, args, i)
            if split_string is not None:
                i += takes_next
                break
        if program == "flock" and command is None:
            command = _command_value(value, args, i)
        if program == "sudo":
            shell_mode = shell_mode or _sudo_shell(value)
        if program == "jobs":
            shell_mode = shell_mode or value == "-x" or _bundle_has(value, "x")
        if _takes_next(value, wrapper):
            i += 1
    if program == "jobs" and not shell_mode:
        return Unwrapped(alone="safe"), i  # lists jobs; operands are job specs
    if program == "flock" and command is None and i + 1 < len(args):
        # `flock FILE -c CMD`: the lock file first, then the command for a shell.
        command = _command_value(args[i + 1].value or "", args, i + 2)
    if command is not None:
        return Unwrapped(code=command), len(args)
    i += wrapper.skip_operands
    assigned: list[str] = []
    while wrapper.assignments and i < len(args) and _ASSIGNMENT.match(args[i].value or ""):
        assigned.append((args[i].value or "").split("=", 1)[0])
        i += 1
    rest = tuple(args[i:])
    if program == "parallel":
        rest = _before_argument_lists(rest)
    if split_string is not None:
        code = " ".join([split_string, *_quoted(rest)])
        return Unwrapped(code=code, assigned=tuple(assigned)), i
    if not rest:
        alone = Unwrapped(
            alone=wrapper.alone, alone_reason=wrapper.alone_reason, assigned=tuple(assigned)
        )
        return alone, i
    if program == "sudo" and shell_mode:
        return Unwrapped(code=_sudo_shell_code(rest), assigned=tuple(assigned)), i
    if wrapper.joins and not (program == "watch" and _watch_exec(args)):
        return Unwrapped(code=" ".join(a.code for a in rest), assigned=tuple(assigned)), i
    return Unwrapped(args=rest, assigned=tuple(assigned)), i


def _takes_next(token: str, wrapper: Wrapper) -> bool:
    """Whether the option word `token` takes the next word as its value: a value option, a
    bundle whose first value-taking letter ends it (`sudo -nu root`), or an abbreviation of a
    long value option (`env --uns NAME`)."""
    if token in wrapper.value_options:
        return True
    if token.startswith("--"):
        return "=" not in token and any(
            len(token) > 2 and o.startswith("--") and o.startswith(token)
            for o in wrapper.value_options
        )
    for index, letter in enumerate(token[1:], start=2):
        if f"-{letter}" in wrapper.value_options:
            return index == len(token)
    return False


def _bundle_has(token: str, letter: str) -> bool:
    return len(token) > 1 and token[0] == "-" and token[1] != "-" and letter in token[1:]


def _env_option(option: str, args: Sequence[Arg], after: int) -> tuple[str | None, int]:
    """The string of env's -S (split into words and run), and how many of the following words
    it took: `-S STR`, `-SSTR`, `-vS STR`, `-iSSTR`, `--split-string=STR`, `--sp STR` (getopt
    accepts any unique prefix). None when `option` is not -S."""
    following = args[after].code if after < len(args) else ""
    if option.startswith("--"):
        name, equals, value = option.partition("=")
        if len(name) < 3 or not "--split-string".startswith(name):
            return None, 0
        return (value, 0) if equals else (following, 1)
    for index, letter in enumerate(option[1:], start=2):
        if letter == "S":
            attached = option[index:]
            return (attached, 0) if attached else (following, 1)
        if letter in "uC":
            return None, 0  # the rest of the word is that option's value
    return None, 0


def _sudo_shell(option: str) -> bool:
    """`-s`, `-i`, `--shell`, `--login` (also in a bundle, before a value-taking letter)."""
    if option.startswith("--"):
        return option == "--login" or (len(option) > 3 and "--shell".startswith(option))
    for letter in option[1:]:
        if letter in "si":
            return True
        if f"-{letter}" in WRAPPERS["sudo"].value_options:
            return False
    return False


def _sudo_shell_code(words: Sequence[Arg]) -> str:
    """`sudo -s CMD …`/`sudo -i CMD …` run `$SHELL -c` on the words. sudo backslash-escapes
    every character but letters, digits, `_`, `-` and `$` first, so words mostly stay words
    (and `$NAME` expands); a port that joins them unescaped re-splits them. Both readings, one
    per line, so the worse one counts."""
    joined = " ".join(a.code for a in words)
    kept = " ".join(
        shlex.quote(a.value) if a.value is not None and "$" not in a.value else a.code
        for a in words
    )
    return f"{joined}\n{kept}"


def _command_value(option: str, args: Sequence[Arg], after: int) -> str | None:
    """The command text of `-c CMD`, `-xc CMD`, `-cCMD`, `--command CMD`, `--command=CMD`
    (flock runs it with `sh -c`), or None when `option` is not -c."""
    following = args[after].code if after < len(args) else ""
    if option.startswith("--"):
        name, equals, value = option.partition("=")
        if len(name) < 5 or not "--command".startswith(name):
            return None
        return value if equals else following
    if not option.startswith("-"):
        return None
    for index, letter in enumerate(option[1:], start=2):
        if letter == "c":
            return option[index:] or following
        if f"-{letter}" in WRAPPERS["flock"].value_options:
            return None
    return None


def _quoted(args: Sequence[Arg]) -> list[str]:
    return [shlex.quote(a.value) if a.value is not None else DYNAMIC_VALUE for a in args]


def _before_argument_lists(args: tuple[Arg, ...]) -> tuple[Arg, ...]:
    for index, arg in enumerate(args):
        if arg.value in (":::", "::::", ":::+", "::::+"):
            return args[:index]
    return args


def _watch_exec(args: Sequence[Arg]) -> bool:
    return any(a.value in ("-x", "--exec") for a in args)
