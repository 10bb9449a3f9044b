"""Rebuild `commands.txt` and `descriptions.txt` from this machine's manual pages.

Run by hand (`python tests/data/routing_examples/build.py`); the test reads the two files, never
this script. See README.md beside it for what is taken and why.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).parent
MAN_DIRS = (Path("/usr/share/man/man1"), Path("/usr/share/man/man8"))
SEED = 18
GCLOUD_PAGES = 40  # thousands of generated gcloud pages would drown everything else
_EXAMPLES_HEADING = re.compile(rb"^\.S[Hh] \"?EXAMPLES?\"?\s*$", re.MULTILINE)
_SECTION = re.compile(r"^[A-Z][A-Z /-]+$")
_PROMPT = re.compile(r"^\s+(?:\$|%)\s+(\S.*)$")
_ANNOTATION = re.compile(r"\s{2,}\(\d+\)$|\s{4,}[\[(].*$|\s+#\s.*$")
_OPTION_LINE = re.compile(r"^\s+-[^ ].*?\s{2,}([a-zA-Z].*)$")
HELP_PACKAGES = (
    "coreutils",
    "util-linux",
    "procps",
    "findutils",
    "grep",
    "sed",
    "tar",
    "gzip",
    "diffutils",
    "bsdextrautils",
)
_PLACEHOLDER = re.compile(r"<[^>]*>|\.\.\.|…")


def pages_with_examples() -> list[Path]:
    pages: list[Path] = []
    for directory in MAN_DIRS:
        for page in sorted(directory.glob("*.gz")):
            try:
                raw = gzip.decompress(page.read_bytes())
            except (OSError, EOFError):
                continue
            if _EXAMPLES_HEADING.search(raw):
                pages.append(page)
    gcloud = [p for p in pages if p.name.startswith("gcloud")]
    others = [p for p in pages if not p.name.startswith("gcloud")]
    return others + random.Random(SEED).sample(gcloud, min(GCLOUD_PAGES, len(gcloud)))


def render(page: Path) -> list[str]:
    env = dict(os.environ, MANWIDTH="200", MAN_KEEP_FORMATTING="")
    shown = subprocess.run(
        ["man", "-P", "cat", "-l", str(page)], capture_output=True, env=env, check=False
    ).stdout
    plain = subprocess.run(["col", "-bx"], input=shown, capture_output=True, check=False).stdout
    return plain.decode("utf-8", "replace").splitlines()


def example_commands(page: Path) -> list[str]:
    """Lines of the EXAMPLES section shown after a prompt or led by the page's own command."""
    name = page.name.split(".")[0]
    command = name.split("_")[0] if name.startswith("gcloud") else name
    found: list[str] = []
    inside = False
    for line in render(page):
        if _SECTION.match(line):
            inside = line.startswith("EXAMPLE")
            continue
        if not inside or not line.startswith(" "):
            continue
        prompted = _PROMPT.match(line)
        text = prompted.group(1) if prompted else line.strip()
        if not prompted and text.split(" ", 1)[0] not in (command, "sudo"):
            continue
        text = _ANNOTATION.sub("", text).strip()
        if text.endswith((".", ":", ",")) or not _starts_with_a_program(text):
            continue  # prose about the command, or a program this machine does not have
        if not _bash_accepts(text):
            continue
        if text.endswith("\\") or _PLACEHOLDER.search(text) or len(text) < 2:
            continue  # continued lines and templates are not what a person types
        found.append(text)
    return found


def _starts_with_a_program(text: str) -> bool:
    """The first word after any `NAME=value` is a program on this PATH (or a path to one)."""
    words = [w for w in text.split() if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
    if not words:
        return True
    first = words[0]
    return "/" in first or shutil.which(first) is not None


def _bash_accepts(text: str) -> bool:
    """Bash itself is the judge of what is a command line: `bash -n` parses without running."""
    return (
        subprocess.run(["bash", "-n", "-c", text], capture_output=True, check=False).returncode == 0
    )


def whatis_descriptions() -> list[str]:
    """The one-line NAME descriptions of sections 1 and 8 (`apropos -l`), in lower case.

    A description that starts with its own program's name (`zsh options`, `devlink tool`) is a
    noun phrase naming the program, not something a person asks for, and is left out.
    """
    listing = subprocess.run(
        ["apropos", "-l", "-s", "1,8", "."], capture_output=True, text=True, check=False
    ).stdout
    found: set[str] = set()
    for line in listing.splitlines():
        name, _, text = line.partition(" - ")
        page = name.split(" ", 1)[0].lower()
        if not text or page.startswith("gcloud"):
            continue
        text = _as_typed(text)
        first = text.split(" ", 1)[0]
        if len(text.split()) >= 2 and not page.startswith(first) and not first.startswith(page):
            found.add(text)
    return sorted(found)


def help_descriptions() -> list[str]:
    """From `--help` of the GNU and util-linux tools: the sentence after the usage lines and
    the description of every option (`show output in bytes`), in lower case."""
    found: set[str] = set()
    for program in _help_programs():
        try:
            shown = subprocess.run(
                [program, "--help"],
                capture_output=True,
                text=True,
                timeout=2,
                stdin=subprocess.DEVNULL,
                check=False,
            ).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        for text in _help_sentences(shown.splitlines()):
            text = _as_typed(text)
            if len(text.split()) >= 2 and text[0].isalpha():
                found.add(text)
    return sorted(found)


def _help_programs() -> list[str]:
    listed = subprocess.run(
        ["dpkg", "-L", *HELP_PACKAGES], capture_output=True, text=True, check=False
    ).stdout
    programs = {
        path
        for path in listed.splitlines()
        if re.match(r"^/(usr/)?s?bin/[^/]+$", path) and os.access(path, os.X_OK)
    }
    return sorted(programs)


def _help_sentences(lines: list[str]) -> list[str]:
    sentences: list[str] = []
    usage_done = False
    for line in lines:
        option = _OPTION_LINE.match(line)
        if option:
            sentences.append(option.group(1))
        elif not usage_done and line[:1].isupper() and not line.startswith("Usage"):
            usage_done = True
            sentences.append(line.split(". ")[0])
    return sentences


def _as_typed(text: str) -> str:
    """In lower case, as a person types a request: no trailing full stop."""
    return " ".join(text.split()).rstrip(".;:").lower()


def main() -> None:
    commands: list[str] = []
    for page in pages_with_examples():
        commands.extend(example_commands(page))
    unique = list(dict.fromkeys(commands))
    (HERE / "commands.txt").write_text("\n".join(unique) + "\n", encoding="utf-8")
    rows = [f"whatis\t{text}" for text in whatis_descriptions()]
    rows += [f"help\t{text}" for text in help_descriptions()]
    (HERE / "descriptions.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
