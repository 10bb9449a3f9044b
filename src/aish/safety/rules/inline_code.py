"""Code handed to an interpreter on its command line (`perl -e '…'`, `python -c '…'`, an awk
program): what its literal text shows it will destroy, and the shell commands it hands to
`system()` and its kin, for the classifier to judge as commands.

Inline code is `unknown` at best: nothing here proves it harmless. What this adds is the other
direction: where the code is literal and calls a function that deletes, truncates, renames or
writes over a file (`unlink`, `os.remove`, `shutil.rmtree`, `open(F, ">f")`, `fs.rmSync`), the
command is `destructive`; and a command string given to `system("rm -f " $1)`,
`os.system(…)`, `subprocess.run([…])`, backticks or `qx{}` is read as the shell command it
is, its computed parts standing in as computed words, so `rm -f <computed>` is judged as such
and the permission policy sees it. Names inside string literals are data and do not count;
the reading is shallow (no interpreter grammar), so it can only add alarms, never remove them.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from aish.safety.bash.command_walk import DYNAMIC_VALUE
from aish.safety.reasons import Via, destructive
from aish.safety.rules.code_runners import Judge, built_from_data
from aish.safety.verdict import Verdict

__all__ = ["InlineCode", "destroying_call", "inline_code", "inline_verdicts", "shell_commands"]


@dataclass(frozen=True)
class InlineCode:
    language: str  # "perl", "python", "ruby", "js", "php", "lua" or "awk"
    text: str


_LANGUAGES = {
    "perl": "perl",
    "python": "python",
    "pypy": "python",
    "ruby": "ruby",
    "irb": "ruby",
    "node": "js",
    "nodejs": "js",
    "deno": "js",
    "bun": "js",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
}
# The option whose value is the code, per language (perl and ruby also in bundles: `-ne`).
_CODE_OPTIONS = {
    "perl": ("-e", "-E"),
    "python": ("-c",),
    "ruby": ("-e",),
    "js": ("-e", "--eval", "-p", "--print"),
    "php": ("-r",),
    "lua": ("-e",),
}


def inline_code(program: str, words: Sequence[str | None]) -> list[InlineCode]:
    """The literal code given on the command line (a computed one is left out: it stays
    `unknown` where the caller already judges it)."""
    language = _LANGUAGES.get(program)
    if language is None:
        return []
    options = _CODE_OPTIONS[language]
    found: list[InlineCode] = []
    for index, word in enumerate(words[:-1]):
        if word is None or not word.startswith("-"):
            continue
        bundled = (
            language in ("perl", "ruby")
            and not word.startswith("--")
            and word[1:].isalpha()
            and word[-1] in "eE"
        )
        code = words[index + 1]
        if (word in options or bundled) and code is not None:
            found.append(InlineCode(language, code))
    return found


# ---- literals --------------------------------------------------------------------------------

_QUOTES = {"'", '"', "`"}


def _literals(code: str) -> list[tuple[int, int]]:
    """The spans of string literals (quotes included), read shallowly: a backslash escapes,
    a quote of the same kind ends."""
    spans = []
    i = 0
    while i < len(code):
        c = code[i]
        if c in _QUOTES:
            j = i + 1
            while j < len(code) and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            spans.append((i, min(j + 1, len(code))))
            i = j + 1
        else:
            i += 1
    return spans


def _blanked(code: str) -> str:
    """The code with every literal's content as spaces: same length, so a position found in
    it is the same position in the code."""
    out, last = [], 0
    for start, end in _literals(code):
        inner = max(end - start - 2, 0)
        out += [code[last:start], code[start], " " * inner, code[end - 1 : end]]
        last = end
    return "".join([*out, code[last:]])


# ---- calls that destroy ----------------------------------------------------------------------

_DESTROYERS = {
    "perl": re.compile(r"\b(unlink|rmdir|rmtree|remove_tree|truncate|rename|kill)\b"),
    "python": re.compile(
        r"\b(os\.(remove|unlink|rmdir|removedirs|truncate|rename|replace|kill|killpg)"
        r"|shutil\.(rmtree|move))\s*\(|\.(unlink|rmdir|write_text|write_bytes)\s*\("
    ),
    "ruby": re.compile(
        r"\b(File|FileUtils|Dir)\.(delete|unlink|rm\w*|remove\w*|rmdir|write|truncate|rename|mv)"
        r"\b|\bProcess\.kill\b"
    ),
    "js": re.compile(
        r"\.(unlink|rm|rmdir|writeFile|truncate|rename|remove|writeTextFile)(Sync)?\s*\("
        r"|\bprocess\.kill\s*\("
    ),
    "php": re.compile(r"\b(unlink|rmdir|file_put_contents|rename|ftruncate)\s*\("),
    "lua": re.compile(r"\bos\.(remove|rename)\s*\("),
    "awk": re.compile(r"(?!)"),  # awk's writes are judged by its own reader
}
# Opening a file for writing: the mode is inside a literal, so these read the raw code.
_WRITE_OPENS = {
    "perl": re.compile(r"\bopen\s*\(?\s*[\w$]+\s*,\s*['\"]\s*(\+?>|\+<)"),
    "python": re.compile(r"\bopen\s*\([^()]*,\s*(mode\s*=\s*)?['\"][rbt]*[wax+]"),
    "ruby": re.compile(r"\b(File\.open|open)\s*\(?[^()]*,\s*['\"][rb]*[wa+]"),
    "php": re.compile(r"\bfopen\s*\([^()]*,\s*['\"][rb]*[wax+c]"),
    "lua": re.compile(r"\bio\.open\s*\([^()]*,\s*['\"][rb]*[wa+]"),
}


def destroying_call(code: InlineCode) -> str | None:
    """What the code's literal text deletes or writes over ("calls unlink"), or None."""
    hit = _DESTROYERS[code.language].search(_blanked(code.text))
    if hit is not None:
        return f"calls {hit.group(0).rstrip('( ')}"
    opens = _WRITE_OPENS.get(code.language)
    if opens is not None and opens.search(code.text):
        return "opens a file for writing"
    return None


# ---- commands handed to a shell --------------------------------------------------------------

_RUNNERS = {
    "perl": r"\b(system|exec)\b",
    "python": r"\b(os\.(system|popen)|subprocess\.(run|call|check_call|check_output|Popen"
    r"|getoutput|getstatusoutput))\s*\(",
    "ruby": r"\b(system|exec|spawn)\b",
    "js": r"\b(execSync|exec|spawnSync|spawn|execFileSync|execFile)\s*\(",
    "php": r"\b(system|exec|shell_exec|passthru|popen|proc_open)\s*\(",
    "lua": r"\b(os\.execute|io\.popen)\s*\(",
    "awk": r"\bsystem\s*\(",
}
# Languages where backticks (and qx / %x) run a command.
_BACKTICKS = frozenset(("perl", "ruby", "php"))
_QX = re.compile(r"\b(qx|%x)\s*([{(\[<|/!])")
_CLOSERS = {"{": "}", "(": ")", "[": "]", "<": ">"}
# Interpolation in double-quoted perl, ruby and php strings: a value known only at run time.
_INTERPOLATED = re.compile(r"[$@][{\w:]+[}\w:]*|#\{[^}]*\}")


def shell_commands(code: InlineCode) -> list[str]:
    """The shell commands the code hands to `system()` and its kin, as bash text with
    `__aish_dynamic_value__` where a part is computed (no literal at all: a computed name)."""
    text = code.text
    blank = _blanked(text)
    commands = []
    for match in re.finditer(_RUNNERS[code.language], blank):
        commands.append(_argument_command(text, match.end(), code.language))
    if code.language in _BACKTICKS:
        for start, end in _literals(text):
            if text[start] == "`":
                commands.append(_interpolated(text[start + 1 : end - 1], code.language))
        for match in _QX.finditer(blank):
            opener = match.group(2)
            closer = _CLOSERS.get(opener, opener)
            close = text.find(closer, match.end())
            inner = text[match.end() : close if close >= 0 else len(text)]
            commands.append(_interpolated(inner, code.language))
    return commands


def _argument_command(text: str, start: int, language: str) -> str:
    """The first argument of the call at `start`, as a command: literals as their text,
    anything else as a computed word; a list (`["rm", "-rf", p]`) as words."""
    spans = {s: e for s, e in _literals(text)}
    pieces: list[str] = []
    depth = 0
    listed = False
    computed = False
    i = start
    while i < len(text):
        c = text[i]
        if i in spans:
            literal = text[i + 1 : spans[i] - 1]
            value = _interpolated(literal, language) if c == '"' else literal
            pieces.append(shlex.quote(value) if listed and depth == 1 else value)
            computed = False
            i = spans[i]
            continue
        if c in "([":
            depth += 1
            listed = listed or (c == "[" and depth == 1 and not pieces)
        elif c in ")]":
            depth -= 1
            if depth < 0:
                break
        elif c == "," and listed and depth == 1:
            pieces.append(" ")  # the next word of the list
            computed = False
        elif c == "," and depth <= 0:
            break  # the call's later arguments are options (`shell=True`), not the command
        elif c in ";\n}" and depth <= 0:
            break
        elif (c.isalnum() or c in "_$") and not computed:
            pieces.append(DYNAMIC_VALUE)
            computed = True
        elif c.isspace() or c in "+.":
            pass  # concatenation
        i += 1
    command = "".join(pieces).strip()
    return command or DYNAMIC_VALUE


def _interpolated(literal: str, language: str) -> str:
    if language in ("perl", "ruby", "php"):
        return _INTERPOLATED.sub(DYNAMIC_VALUE, literal)
    return literal


def inline_verdicts(
    judge: Judge, program: str, codes: Sequence[InlineCode], depth: int, via: Via
) -> list[Verdict]:
    """The verdicts the literal code adds: destructive for a destroying call, and the
    classifier's own verdict on every command it hands to a shell."""
    parts = []
    for code in codes:
        what = destroying_call(code)
        if what is not None:
            parts.append(destructive(f"{program} inline code {what}", via))
        step = (*via, f"{program} code")
        for command in shell_commands(code):
            parts += [judge.text(command, depth + 1, step), built_from_data(judge, command, step)]
    return parts
