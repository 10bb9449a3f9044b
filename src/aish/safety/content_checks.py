"""Programs whose danger is in their arguments' content: sed scripts, awk programs, tar and
curl/wget output options, git's global options (and, from `sql_checks`, what database clients
are given). Each check reads the literal text and returns a verdict for it, or None when the
text alone says nothing beyond the rule tables.

Scripts are read conservatively: anything that could write a file or run a program makes the
command at least `unknown`; only what provably writes over data is `destructive`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aish.safety.options import ArgView
from aish.safety.rule_types import NOWHERE
from aish.safety.sql_checks import SQL_CHECKS
from aish.safety.verdict import Verdict, worst

Check = Callable[[str, ArgView], Verdict | None]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _unknown(reason: str) -> Verdict:
    return Verdict("unknown", (reason,))


def _destructive(reason: str) -> Verdict:
    return Verdict("destructive", (reason,))


# ---- sed ----------------------------------------------------------------------------------

# One address: a line (with GNU `first~step`), `$`, a /regex/ or \cregexc (with flags).
_SED_ONE = r"(?:\d+(?:~\d+)?|\$|/(?:\\.|[^/\\])*/[IM]*|\\(.)(?:\\.|(?!\1).)*\1[IM]*)"
_SED_ADDRESS = re.compile(rf"\s*(?:{_SED_ONE}(?:\s*,\s*(?:[+~]\d+|{_SED_ONE}))?)?\s*!*\s*")
_SED_FLAGS = re.compile(r"[gpiImMe0-9w ]*")
_SED_VALUE_LETTERS = "fl"  # options of sed that take the rest of the word as their value


def _sed_scripts(view: ArgView) -> list[str | None]:
    scripts = _values_after(view, ("-e", "--expression"))
    for option in view.options:
        if option.startswith("--expression="):
            scripts.append(option.split("=", 1)[1])
        elif option.startswith("-") and not option.startswith("--"):
            attached = _attached_script(option[1:])
            if attached:
                scripts.append(attached)
    if scripts or view.has_any(("-f", "--file*")):
        return scripts
    return [view.operands[0].value] if view.operands else []


def _attached_script(letters: str) -> str:
    """The script in a bundle like `-ne'p'`: the text after `e`, when there is any."""
    for index, letter in enumerate(letters):
        if letter == "e":
            return letters[index + 1 :]
        if letter in _SED_VALUE_LETTERS:
            return ""
    return ""


def _values_after(view: ArgView, names: tuple[str, ...]) -> list[str | None]:
    values: list[str | None] = []
    words = view.words
    for i, word in enumerate(words[:-1]):
        if word in names:
            values.append(words[i + 1])
    return values


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
        elif command in "aicrRbtTv:":
            # The argument runs to the end of the line: text, a label or a file to read. Text
            # of a/i/c continues on the next line after a trailing backslash.
            i = _end_of_argument(script, i + 1, continued=command in "aic")
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
    for script in _sed_scripts(view):
        if script is None:
            return _unknown("sed script is computed at run time")
        reason = sed_writes(script)
        if reason:
            return _unknown(reason)
    return None


# ---- awk ----------------------------------------------------------------------------------

_AWK_PRINT = re.compile(r"\bprintf?\b([^;{}\n]*)")
_AWK_HARMLESS = ('"/dev/stderr"', '"/dev/stdout"', '"/dev/null"', '"/dev/tty"', '"-"')


def _awk_programs(view: ArgView) -> list[str | None]:
    programs = _values_after(view, ("-e", "--source"))
    programs += [o.split("=", 1)[1] for o in view.options if o.startswith("--source=")]
    if programs:
        return programs
    return [view.operands[0].value] if view.operands else []


def check_awk(program: str, view: ArgView) -> Verdict | None:
    included = _values_after(view, ("-i", "--include"))
    included += [o.split("=", 1)[1] for o in view.options if o.startswith("--include=")]
    included += [o[2:] for o in view.options if o.startswith("-i") and len(o) > 2]
    if "inplace" in included:
        return _destructive("gawk -i inplace edits files in place")
    if view.has_any(("-f", "--file*", "-E", "--exec*")):
        return _unknown(f"{program} runs a program file")
    verdicts = [_awk_program(text) for text in _awk_programs(view)]
    found = [v for v in verdicts if v is not None]
    return worst(found) if found else None


def _awk_program(text: str | None) -> Verdict | None:
    if text is None:
        return _unknown("awk program is computed at run time")
    code = re.sub(
        r'"(?:\\.|[^"\\])*"', lambda m: m.group(0) if m.group(0) in _AWK_HARMLESS else '""', text
    )  # string literals are data, except the harmless devices
    if re.search(r"\bsystem\s*\(", code):
        return _unknown("awk system() runs commands")
    if re.search(r"\|\s*getline|\bprintf?\b[^;{}\n]*\|(?!\|)", code.replace("||", "")):
        return _unknown("awk pipes to or from a command")
    for match in _AWK_PRINT.finditer(code):
        statement = _without_parentheses(match.group(1))
        for harmless in _AWK_HARMLESS:
            statement = statement.replace(f">> {harmless}", "").replace(f">{harmless}", "")
            statement = statement.replace(f"> {harmless}", "").replace(f">>{harmless}", "")
        if ">>" in statement:
            return _unknown("awk print >> appends to a file")
        if ">" in statement:
            return _destructive("awk print > writes over a file")
    return None


def _without_parentheses(text: str) -> str:
    """`print ($1 > 5)` compares; only a `>` outside parentheses redirects."""
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\([^()]*\)", "", text)
    return text


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
        return _unknown(f"tar {unfamiliar} is not known to be harmless")
    if reading:
        return Verdict("safe")
    if mode == "c":
        return _unknown("tar creates an archive file")
    return _unknown("tar extracts or changes files")


def check_wget(program: str, view: ArgView) -> Verdict | None:
    targets = _values_after(view, ("-O",))
    for option in view.options:
        if option.startswith("--output-document="):
            targets.append(option.split("=", 1)[1])
        elif option.startswith("-") and not option.startswith("--") and "O" in option:
            rest = option[option.index("O") + 1 :]
            if rest:
                targets.append(rest)
    if any(t != "-" for t in targets):
        return _destructive("wget -O writes the download over a file")
    if targets:
        return Verdict("safe")  # -O - prints the download
    return None


def check_curl(program: str, view: ArgView) -> Verdict | None:
    """`curl -o FILE` writes over FILE; `-o /dev/null` (a health check) writes nowhere."""
    targets = _values_after(view, ("-o", "--output"))
    targets += [o.split("=", 1)[1] for o in view.options if o.startswith("--output=")]
    targets += [o[2:] for o in view.options if o.startswith("-o") and len(o) > 2]
    if any(t is None or t not in NOWHERE for t in targets):
        return _destructive("curl -o writes the download over a file")
    return None


def check_git(program: str, view: ArgView) -> Verdict | None:
    for option in view.leading:
        if option == "-c" or option.startswith(("--config-env", "--exec-path")):
            return _unknown("git -c/--config-env can make git run other programs")
    return None


CONTENT_CHECKS: dict[str, Check] = {
    "sed": check_sed,
    **{name: check_awk for name in ("awk", "gawk", "mawk", "nawk")},
    **SQL_CHECKS,
    "tar": check_tar,
    "git": check_git,
    "wget": check_wget,
    "curl": check_curl,
}
