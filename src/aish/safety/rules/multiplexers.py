"""Terminal multiplexers running commands: `screen -dm CMD`, `tmux new -d 'CMD'`, `tmux
run-shell`, and keys typed into a pane with `tmux send-keys` / `screen -X stuff`.

Each hands the classifier the shell code it will run, so `tmux new -d 'rm -rf build'` is
judged as `rm -rf build` (and the permission policy sees it). A computed part stays computed:
the classifier then says `unknown`. Nothing here makes a multiplexer `safe`: a detached
session outlives the line, and attaching or listing talks to a server.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from aish.safety.bash.command_walk import DYNAMIC_VALUE, Arg

__all__ = ["multiplexer_code"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# tmux commands whose trailing words are a shell command, and those that type keys.
_TMUX_RUNS = _words(
    "new new-session neww new-window splitw split-window respawnp respawn-pane respawnw "
    "respawn-window run run-shell"
)
_TMUX_TYPES = frozenset(("send", "send-keys"))
# Options of those commands that take a value (run-shell's -d is a delay, new-session's a flag).
_TMUX_VALUES = _words("-c -e -f -F -n -s -t -x -y -l -N")
_TMUX_GLOBAL_VALUES = _words("-f -L -S -T")
# Key names send-keys translates; the rest is typed as written.
_ENTER = frozenset(("Enter", "C-m", "KPEnter", "C-j"))
_KEY_NAME = re.compile(
    r"^([CMS]-.+|Escape|Space|Tab|BTab|BSpace|Up|Down|Left|Right|Home|End|IC|DC|"
    r"NPage|PPage|PageUp|PageDown|F\d+)$"
)
# screen's letters that take the next word (also last in a bundle: `-dmS name`), and its
# word options that do not.
_SCREEN_VALUE_LETTERS = "ScehpsTtX"
_SCREEN_WORDS = _words("-ls -list -wipe -dm -Dm -d -D -r -R -x -q -Q -U -a -A -O -i -l -L -m")


def multiplexer_code(program: str, args: Sequence[Arg]) -> list[str]:
    """The shell code `tmux` or `screen` will run for these arguments (none: it runs none
    that can be read here)."""
    words = [a.code if a.value is None else a.value for a in args]
    if program == "tmux":
        return _tmux(words)
    if program == "screen":
        return _screen(words)
    return []


def _tmux(words: list[str]) -> list[str]:
    index = 0
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in _TMUX_GLOBAL_VALUES else 1
    # Several commands can be chained with `;` as a word of its own.
    codes: list[str] = []
    while index < len(words):
        end = words.index(";", index) if ";" in words[index:] else len(words)
        codes += _tmux_command(words[index:end])
        index = end + 1
    return codes


def _tmux_command(words: list[str]) -> list[str]:
    if not words:
        return []
    command, rest = words[0], words[1:]
    if command not in _TMUX_RUNS and command not in _TMUX_TYPES:
        return []
    literal = False
    index = 0
    while index < len(rest) and rest[index].startswith("-") and rest[index] != "--":
        flag = rest[index]
        literal = literal or ("l" in flag[1:] and command in _TMUX_TYPES)
        takes_value = flag in _TMUX_VALUES or (flag == "-d" and command in ("run", "run-shell"))
        index += 2 if takes_value else 1
    if index < len(rest) and rest[index] == "--":
        index += 1
    operands = rest[index:]
    if not operands:
        return []
    if command in _TMUX_TYPES:
        return [_typed(operands, literal)]
    # One word is given to a shell as it is; several are run as a command, word by word.
    return [operands[0] if len(operands) == 1 else " ".join(map(_quoted, operands))]


def _typed(keys: list[str], literal: bool) -> str:
    """What send-keys types, as the shell in the pane will read it."""
    typed = []
    for key in keys:
        if not literal and key in _ENTER:
            typed.append("\n")
        elif not literal and key == "Space":
            typed.append(" ")
        elif not literal and _KEY_NAME.match(key):
            typed.append("\n")  # a control key ends what was typed before it
        else:
            typed.append(key)
    return "".join(typed)


def _screen(words: list[str]) -> list[str]:
    index = 0
    stuffed: list[str] = []
    while index < len(words) and words[index].startswith("-"):
        word = words[index]
        if word.endswith("X") and not word.startswith("--") and index + 1 < len(words):
            # `-X stuff TEXT` types TEXT into the session's window.
            if words[index + 1] == "stuff" and index + 2 < len(words):
                stuffed.append(_unescaped(words[index + 2]))
            return stuffed
        takes_value = word == "-Logfile" or (
            word not in _SCREEN_WORDS
            and not word.startswith("--")
            and word[-1] in _SCREEN_VALUE_LETTERS
        )
        index += 2 if takes_value else 1
    operands = words[index:]
    letters = "".join(w[1:] for w in words[:index] if w.startswith("-"))
    if not operands or ("m" not in letters and any(c in letters for c in "rRxdD")):
        return []  # reattaching or detaching a session: its operand names the session
    return [" ".join(map(_quoted, operands))]


def _quoted(word: str) -> str:
    return word if DYNAMIC_VALUE in word else shlex.quote(word)


def _unescaped(text: str) -> str:
    """screen's stuff string: `\\n`, `\\r` and `^M` are line ends."""
    return re.sub(r"\\[nr]|\^M", "\n", text)
