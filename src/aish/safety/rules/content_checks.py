"""Programs whose danger is in their arguments' content: sed scripts, awk programs, tar and
curl/wget output options, aws output files, dmesg's clearing options, git's global options
(and, from `sql.checks`, what database clients are given). Each check reads the literal text,
with the program's own option letters (`getopt_words`), and returns a verdict for it, or None
when the text alone says nothing beyond the rule tables.

Scripts are read conservatively: anything that could write a file or run a program makes the
command at least `unknown`; only what provably writes over data is `destructive`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aish.safety.bash.getopt_words import abbreviates, read_options, scripts_given, spelled
from aish.safety.bash.options import ArgView
from aish.safety.reasons import destructive, unknown
from aish.safety.rules.awk_program import awk_program_verdict
from aish.safety.rules.editor_scripts import EDITORS, check_editor
from aish.safety.rules.read_only import WGET_WRITES
from aish.safety.rules.types import NOWHERE
from aish.safety.sql.checks import SQL_CHECKS
from aish.safety.verdict import Verdict, worst

Check = Callable[[str, ArgView], Verdict | None]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# ---- sed ----------------------------------------------------------------------------------

# One address: a line (with GNU `first~step`), `$`, a /regex/ or \cregexc (with flags).
_SED_ONE = r"(?:\d+(?:~\d+)?|\$|/(?:\\.|[^/\\])*/[IM]*|\\(.)(?:\\.|(?!\1).)*\1[IM]*)"
_SED_ADDRESS = re.compile(rf"\s*(?:{_SED_ONE}(?:\s*,\s*(?:[+~]\d+|{_SED_ONE}))?)?\s*!*\s*")
_SED_FLAGS = re.compile(r"[gpiImMe0-9w ]*")


def _sed_scripts(view: ArgView) -> tuple[list[str | None], bool]:
    """The scripts sed runs, and whether it reads one from a file (`-f`, `--file`, `--fi`)."""
    found = read_options(
        view.words, "efl", ("--expression", "--file", "--line-length"), optional="i"
    )
    options, _ = found
    from_file = any(name == "-f" or abbreviates(name, "--file") for name, _, _ in options)
    scripts = scripts_given(found, lambda name: name == "-e" or abbreviates(name, "--expression"))
    return scripts, from_file


def sed_writes(script: str) -> str | None:
    """Why a sed script could write a file or run a command (or cannot be read), or None."""
    i, n = 0, len(script)
    while i < n:
        if script[i] in " \t\n;{}":
            i += 1
            continue
        if script[i] == "#":
            end = script.find("\n", i)
            i = n if end < 0 else end
            continue
        match = _SED_ADDRESS.match(script, i)
        i = match.end() if match else i
        if i >= n:
            break
        command = script[i]
        if command in "wWe":
            return f"sed `{command}` command writes a file or runs a program"
        if command in "sy":
            after = _after_delimited(script, i + 1, 2)
            if after is None:
                return "sed script cannot be read"
            flags = _SED_FLAGS.match(script, after)
            text = flags.group(0) if flags else ""
            if command == "s" and ("w" in text or "e" in text):
                return "sed s///w or s///e writes a file or runs a program"
            i = after + len(text)
        elif command in "aicrR":
            # The argument runs to the end of the line: text or a file to read. Text of a/i/c
            # continues on the next line after a trailing backslash.
            i = _end_of_argument(script, i + 1, continued=command in "aic")
        elif command in "btTv:":
            # GNU sed ends a label (and v's version) at `;` or a blank, not only at the end of
            # the line: in `b;w f` and `:a;w f` the `w` is a command of its own.
            i = _end_of_label(script, i + 1)
        elif command in "lqQLz=dDgGhHnNpPxF{}":
            i += 1
        else:
            return f"sed script has an unfamiliar command `{command}`"
    return None


def _end_of_argument(script: str, start: int, *, continued: bool) -> int:
    i = start
    while True:
        end = script.find("\n", i)
        if end < 0:
            return len(script)
        if not (continued and script[:end].endswith("\\")):
            return end
        i = end + 1


def _end_of_label(script: str, start: int) -> int:
    i = start
    while i < len(script) and script[i] in " \t":
        i += 1
    while i < len(script) and script[i] not in " \t\n;}":
        i += 1
    return i


def _after_delimited(script: str, start: int, parts: int) -> int | None:
    """The index after `parts` delimited fields starting at the delimiter at `start`."""
    if start >= len(script):
        return None
    delimiter = script[start]
    i = start + 1
    for _ in range(parts):
        while i < len(script) and script[i] != delimiter:
            i += 2 if script[i] == "\\" else 1
        if i >= len(script):
            return None
        i += 1
    return i


def check_sed(program: str, view: ArgView) -> Verdict | None:
    scripts, from_file = _sed_scripts(view)
    if from_file:
        return unknown("sed runs a script file")
    for script in scripts:
        if script is None:
            return unknown("sed script is computed at run time")
        reason = sed_writes(script)
        if reason:
            return unknown(reason)
    return None


# ---- awk ----------------------------------------------------------------------------------

# gawk's and mawk's options that take a value; -d -D -L -o -p take one only when attached.
_AWK_VALUES = "FfveEilWZ"
_AWK_LONG_VALUES = (
    "--field-separator", "--file", "--assign", "--source", "--exec", "--include", "--load",
)  # fmt: skip


def awk_programs(view: ArgView) -> list[str | None]:
    """The awk program texts given (`-e`/`--source`, or the first operand)."""
    found = read_options(view.words, _AWK_VALUES, _AWK_LONG_VALUES, optional="dDLop")
    return scripts_given(found, lambda name: name == "-e" or abbreviates(name, "--source"))


def check_awk(program: str, view: ArgView) -> Verdict | None:
    found = read_options(view.words, _AWK_VALUES, _AWK_LONG_VALUES, optional="dDLop")
    for name, value, _ in found[0]:
        if name == "-i" or abbreviates(name, "--include"):
            if value is not None and value.removesuffix(".awk") == "inplace":
                return destructive("gawk -i inplace edits files in place")
            return unknown(f"{program} {name} includes a program file")
        if name in ("-f", "-E") or abbreviates(name, "--file") or abbreviates(name, "--exec"):
            return unknown(f"{program} runs a program file")
        if name == "-l" or abbreviates(name, "--load"):
            return unknown(f"{program} {name} loads an extension library")
        if name == "-W":
            return unknown(f"{program} -W {value or ''} is not known to be harmless")
    programs = scripts_given(found, lambda name: name == "-e" or abbreviates(name, "--source"))
    verdicts = [awk_program_verdict(text) for text in programs]
    hits = [v for v in verdicts if v is not None]
    return worst(hits) if hits else None


# ---- tar and git: modes that decide between reading and writing ---------------------------

_TAR_MODES = "ctxruAd"


def tar_mode(view: ArgView) -> tuple[str, str | None, bool]:
    """tar's mode letter, its archive (`-f`), and whether extraction goes to stdout."""
    mode, archive = "", None
    tokens = list(view.words)
    for index, token in enumerate(tokens):
        if index == 0 and token and token.isalpha():
            token = "-" + token  # the old style: `tar cvf out.tar src`
        if token is None or token.startswith("--") or not token.startswith("-"):
            if token and token.startswith(("--file=", "--file")):
                archive = token.split("=", 1)[1] if "=" in token else None
            if token in ("--list", "--extract", "--get", "--create", "--append"):
                mode = mode or {"--list": "t", "--create": "c", "--append": "r"}.get(token, "x")
            continue
        letters = token[1:]
        mode = mode or next((c for c in letters if c in _TAR_MODES), "")
        if "f" in letters:
            rest = letters[letters.index("f") + 1 :]
            archive = rest or (tokens[index + 1] if index + 1 < len(tokens) else None)
    to_stdout = view.has_any(("-O", "--to-stdout"))
    return mode, archive, to_stdout


# Letters and long options that change nothing beyond what a reading mode prints. Anything
# else (`--checkpoint-action=exec=…`, `-I prog`, `--index-file=f`, `--to-command`,
# `--remove-files`, `-g`, `-F` …) leaves tar unproven.
_TAR_PLAIN_LETTERS = frozenset("tvfzjJaxOcCkmoST")
_TAR_VALUE_LETTERS = frozenset("fCT")
_TAR_PLAIN_LONG = (
    "--list", "--extract", "--get", "--create", "--to-stdout", "--file", "--gzip", "--gunzip",
    "--bzip2", "--xz", "--zstd", "--lzma", "--auto-compress", "--verbose", "--wildcards",
    "--no-wildcards", "--anchored", "--no-anchored", "--exclude", "--directory",
    "--numeric-owner", "--full-time", "--utc", "--ignore-case", "--totals", "--null",
    "--strip-components", "--occurrence", "--files-from", "--show-transformed-names",
    "--blocking-factor", "--record-size", "--keep-old-files", "--skip-old-files",
)  # fmt: skip


def _tar_unfamiliar_option(view: ArgView) -> str | None:
    words = list(view.words)
    for index, word in enumerate(words):
        if word is None:
            continue
        if index == 0 and word.isalpha():
            word = "-" + word
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if name not in _TAR_PLAIN_LONG:
                return word
        elif word.startswith("-") and word != "-":
            for letter in word[1:]:
                if letter not in _TAR_PLAIN_LETTERS:
                    return f"-{letter}"
                if letter in _TAR_VALUE_LETTERS:
                    break  # the rest of the word is the option's value
    return None


def check_tar(program: str, view: ArgView) -> Verdict | None:
    mode, archive, to_stdout = tar_mode(view)
    reading = mode == "t" or (mode == "x" and to_stdout) or (mode == "c" and archive == "-")
    unfamiliar = _tar_unfamiliar_option(view)
    if reading and unfamiliar is not None:
        return unknown(f"tar {unfamiliar} is not known to be harmless")
    if reading:
        return Verdict("safe")
    if mode == "c":
        return unknown("tar creates an archive file")
    return unknown("tar extracts or changes files")


# wget's short options that take a value (`-nv` is -n with the value v).
_WGET_VALUES = "eoaiBtOTwQPUlARDXIn"


def check_wget(program: str, view: ArgView) -> Verdict | None:
    """`wget -O FILE` writes over FILE; `-O -` prints the download, `-O /dev/null` drops it
    and `--spider` only checks that it exists: read-only when nothing else writes."""
    options, _ = read_options(view.words, _WGET_VALUES, ("--output-document",))
    targets = [
        value
        for name, value, _ in options
        if name == "-O"
        or (name.startswith("--output-d") and abbreviates(name, "--output-document"))
    ]
    if any(t is None or (t != "-" and t not in NOWHERE) for t in targets):
        return destructive("wget -O writes the download over a file")
    names = [name for name, _, _ in options]
    if not targets and not any(spelled(name, "--spider") for name in names):
        return None
    hit = next((s for s in WGET_WRITES if any(spelled(name, s) for name in names)), None)
    if hit is not None:
        return unknown(f"wget {hit} writes files, sends data or runs commands")
    return Verdict("safe")


# curl's short options that take a value.
_CURL_VALUES = "AbcCdDeEFHKmoPQrtTuUwxXyYz"
# Protocols whose URL is raw bytes for a server (`gopher://127.0.0.1:6379/_FLUSHALL`).
_RAW_PROTOCOLS = re.compile(r"(?i)^\s*(gophers?|dict|telnet)://")


def check_curl(program: str, view: ArgView) -> Verdict | None:
    """`curl -o FILE` writes over FILE; `-o /dev/null` (a health check) writes nowhere and
    `-o -` prints. `-w '%output{FILE}'` writes too; gopher:// and friends send raw bytes."""
    options, operands = read_options(view.words, _CURL_VALUES, ("--output", "--write-out", "--url"))
    targets = [v for n, v, _ in options if n == "-o" or abbreviates(n, "--output")]
    if any(t is None or (t != "-" and t not in NOWHERE) for t in targets):
        return destructive("curl -o writes the download over a file")
    formats = [v or "" for n, v, _ in options if n == "-w" or abbreviates(n, "--write-out")]
    if any(re.search(r"%output\{(?!>>)", f) for f in formats):
        return destructive("curl -w %output{file} writes over a file")
    if any("%output{" in f or f.startswith("@") for f in formats):
        return unknown("curl -w can write to a file (%output{}, or a format read from a file)")
    urls = [w for w, _ in operands] + [v for n, v, _ in options if n == "--url"]
    if any(u is not None and _RAW_PROTOCOLS.match(u) for u in urls):
        return unknown("curl sends raw commands to a server (gopher://, dict://, telnet://)")
    return None


# aws options that take no value: a word after one of them is positional.
_AWS_FLAGS = _words(
    "--debug --no-paginate --no-sign-request --no-verify-ssl --no-cli-pager --cli-auto-prompt "
    "--no-cli-auto-prompt --dry-run"
)


def check_aws(program: str, view: ArgView) -> Verdict | None:
    """A streaming `get-*` operation writes its result over a positional output file (`aws
    s3api get-object --bucket b --key k out`): any word after the operation that is no
    option's value may be that file."""
    operands = [a.value for a in view.operands[:2]]
    if len(operands) < 2 or not (operands[1] or "").startswith("get-"):
        return None
    words = list(view.words)
    start = words.index(operands[0]) if operands[0] in words else 0
    start = words.index(operands[1], start) + 1 if operands[1] in words[start:] else len(words)
    takes_value = False
    for word in words[start:]:
        if word is not None and word.startswith("--"):
            takes_value = "=" not in word and word not in _AWS_FLAGS
            takes_value = takes_value and not word.startswith(("--no-", "--with-"))
        elif not takes_value:
            return unknown(f"aws {operands[1]} may write its result to a file: {word or '…'}")
        else:
            takes_value = False
    return None


# dmesg's short options that take a value (not -k, --kernel: `dmesg -kc` clears the log).
_DMESG_VALUES = "fFlns"
_DMESG_LONG_VALUES = (
    "--facility", "--file", "--level", "--console-level", "--buffer-size", "--time-format",
    "--since", "--until",
)  # fmt: skip


def check_dmesg(program: str, view: ArgView) -> Verdict | None:
    """dmesg's clearing and console options, read with dmesg's own value letters."""
    names = [n for n, _, _ in read_options(view.words, _DMESG_VALUES, _DMESG_LONG_VALUES)[0]]
    if any(spelled(n, s) for n in names for s in ("-c", "-C", "--clear", "--read-clear")):
        return destructive("dmesg -c/-C clears the kernel log")
    if any(spelled(n, s) for n in names for s in ("-D", "-E", "-n", "--console*")):
        return unknown("dmesg -D/-E/-n changes console logging")
    return None


def check_git(program: str, view: ArgView) -> Verdict | None:
    for option in view.leading:
        if option == "-c" or option.startswith(("--config-env", "--exec-path")):
            return unknown("git -c/--config-env can make git run other programs")
    return None


CONTENT_CHECKS: dict[str, Check] = {
    "sed": check_sed,
    **{name: check_awk for name in ("awk", "gawk", "mawk", "nawk")},
    **SQL_CHECKS,
    "tar": check_tar,
    "git": check_git,
    "wget": check_wget,
    "curl": check_curl,
    "aws": check_aws,
    "dmesg": check_dmesg,
    **{name: check_editor for name in EDITORS},
}
