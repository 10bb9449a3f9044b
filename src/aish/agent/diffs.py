"""Unified diffs in a model's reply: found, validated and summarised, never applied here.

A diff is taken from a ```diff / ```patch fence (or an unlabelled fence that starts like one) or
from bare `--- a/x` / `+++ b/x` / `@@` lines in the prose, with or without `diff --git` headers,
one or several files each. Every hunk's lines must add up to the counts in its `@@` header: a
diff with any hunk that does not, or with anything else it cannot account for, is skipped whole,
so a malformed diff is never offered and never half-applied.

Paths are kept as `git apply -p1` / `patch -p1` will use them (one leading component such as
`a/` stripped); absolute paths are kept absolute so `outside_project` can refuse them.
Pure: nothing here touches a file except `outside_project`, which resolves symlinks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class FileChange:
    old_path: str | None  # None for a new file (/dev/null)
    new_path: str | None  # None for a deleted file
    added: int
    removed: int

    @property
    def path(self) -> str:
        """The name to show: the new path, or the old one for a deletion."""
        return self.new_path or self.old_path or "?"


@dataclass(frozen=True)
class ProposedDiff:
    text: str  # the diff as the model wrote it, with LF line ends, ending with "\n"
    files: tuple[FileChange, ...]


class _Malformed(Exception):
    pass


_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<mark>`{3,}|~{3,})\s*(?P<info>[^`\s]*)[^`]*$")
_DIFF_LANGUAGES = frozenset({"diff", "patch", "udiff"})
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_GIT_HEADER = "diff --git "
# Lines git may put between `diff --git` and `---`; anything else there is not a text diff.
_GIT_EXTENDED = (
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "copy from ",
    "copy to ",
    "rename from ",
    "rename to ",
    "similarity index ",
    "dissimilarity index ",
    "index ",
)
_NO_NEWLINE = "\\"
_BINARY = ("GIT binary patch", "Binary files ")


def extract_diffs(reply_text: str) -> list[ProposedDiff]:
    """Unified diffs in a reply: inside ```diff / ```patch fences, or bare `--- a/x` /
    `+++ b/x` / `@@` blocks; `diff --git` headers; several files per diff; a malformed one is
    skipped (never half-applied)."""
    lines = reply_text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    diffs: list[ProposedDiff] = []
    for block, fenced in _blocks(lines):
        if fenced:
            diff = _parse_fenced(block)
            if diff is not None:
                diffs.append(diff)
        else:
            diffs.extend(_parse_bare(block))
    return diffs


def outside_project(diff: ProposedDiff, root: str) -> list[str]:
    """Paths the diff would touch outside `root` (absolute paths, `..` escapes, symlinked
    parents resolving outside): a diff touching any is not offered for applying.

    Paths inside a `.git` directory count too: writing there (hooks, config) runs programs."""
    real_root = os.path.realpath(root)
    refused: list[str] = []
    for change in diff.files:
        for path in (change.old_path, change.new_path):
            if path is None or path in refused:
                continue
            if _escapes(path, real_root):
                refused.append(path)
    return refused


def summary_line(diff: ProposedDiff) -> str:
    """One line for the whole diff, e.g. `2 files: src/a.py +3 -1, README.md +1 -0 (new)`."""
    count = len(diff.files)
    noun = "file" if count == 1 else "files"
    return f"{count} {noun}: " + ", ".join(file_summary(change) for change in diff.files)


def file_summary(change: FileChange) -> str:
    """`src/a.py +3 -1`, with `(new)`, `(deleted)` or the old name of a rename."""
    text = f"{change.path} +{change.added} -{change.removed}"
    if change.old_path is None:
        return text + " (new)"
    if change.new_path is None:
        return text + " (deleted)"
    if change.old_path != change.new_path:
        return text + f" (from {change.old_path})"
    return text


def _escapes(path: str, real_root: str) -> bool:
    if os.path.isabs(path) or not path or "\x00" in path:
        return True
    parts = path.replace("\\", "/").split("/")
    if any(part.lower() == ".git" for part in parts):
        return True
    target = os.path.realpath(os.path.join(real_root, path))
    if target == real_root:
        return True
    return os.path.commonpath([real_root, target]) != real_root


def _blocks(lines: list[str]) -> Iterator[tuple[list[str], bool]]:
    """The reply cut into fenced diff blocks and the prose between fences; other fences
    (```python …) are dropped, so a diff quoted in code is not taken for one."""
    prose: list[str] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            prose.append(lines[index])
            index += 1
            continue
        mark = opening.group("mark")
        indent = opening.group("indent")
        body: list[str] = []
        index += 1
        while index < len(lines):
            closing = lines[index].strip()
            if closing.startswith(mark[0] * len(mark)) and not closing.strip(mark[0]):
                break
            line = lines[index]
            body.append(line[len(indent) :] if line.startswith(indent) else line)
            index += 1
        index += 1  # the closing fence (or the end of an unclosed one)
        if prose:
            yield prose, False
            prose = []
        info = opening.group("info").lower()
        if info in _DIFF_LANGUAGES or (not info and _starts_like_diff(body)):
            yield body, True
    if prose:
        yield prose, False


def _starts_like_diff(body: list[str]) -> bool:
    first = next((line for line in body if line.strip()), "")
    return first.startswith((_GIT_HEADER, "--- "))


def _parse_fenced(body: list[str]) -> ProposedDiff | None:
    start = next((i for i, _ in enumerate(body) if _header_at(body, i)), None)
    if start is None:
        return None
    try:
        end, files = _parse_files(body, start)
    except _Malformed:
        return None
    if any(line.strip() for line in body[end:]):
        return None  # something after the last hunk that is not part of a diff
    return _diff(body[start:end], files)


def _parse_bare(prose: list[str]) -> Iterator[ProposedDiff]:
    index = 0
    while index < len(prose):
        if not _header_at(prose, index):
            index += 1
            continue
        try:
            end, files = _parse_files(prose, index)
        except _Malformed:
            index = _past_diff_lines(prose, index)
            continue
        yield _diff(prose[index:end], files)
        index = end


def _past_diff_lines(lines: list[str], index: int) -> int:
    """Where the run of diff-looking lines from `index` ends: the rest of a malformed bare diff
    must not be offered on its own."""
    index += 1
    while index < len(lines):
        line = lines[index]
        if not line:
            following = next((x for x in lines[index:] if x), "")
            if not _looks_like_diff(following):
                break
        elif not _looks_like_diff(line):
            break
        index += 1
    return index


def _looks_like_diff(line: str) -> bool:
    return line[:1] in (" ", "+", "-", "@", "\\") or line.startswith((_GIT_HEADER, *_GIT_EXTENDED))


def _header_at(lines: list[str], index: int) -> bool:
    line = lines[index]
    if line.startswith(_GIT_HEADER):
        return True
    return (
        line.startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ ")
    )


def _diff(lines: list[str], files: list[FileChange]) -> ProposedDiff:
    return ProposedDiff(text="\n".join(lines) + "\n", files=tuple(files))


def _parse_files(lines: list[str], index: int) -> tuple[int, list[FileChange]]:
    """Every file section from `index`; returns where the diff ends and its files."""
    files: list[FileChange] = []
    while index < len(lines) and _header_at(lines, index):
        index, change = _parse_file(lines, index)
        files.append(change)
    if not files:
        raise _Malformed
    return index, files


def _parse_file(lines: list[str], index: int) -> tuple[int, FileChange]:
    git_paths: tuple[str | None, str | None] | None = None
    renamed_from = renamed_to = None
    created = deleted = mode_changed = False
    if lines[index].startswith(_GIT_HEADER):
        git_paths = _git_header_paths(lines[index][len(_GIT_HEADER) :])
        index += 1
        while index < len(lines) and lines[index].startswith(_GIT_EXTENDED):
            line = lines[index]
            if line.startswith("rename from "):
                renamed_from = _unquote(line[len("rename from ") :])
            elif line.startswith("rename to "):
                renamed_to = _unquote(line[len("rename to ") :])
            created = created or line.startswith("new file mode ")
            deleted = deleted or line.startswith("deleted file mode ")
            mode_changed = mode_changed or line.startswith(("old mode ", "new mode "))
            index += 1
        if not (index + 1 < len(lines) and lines[index].startswith("--- ")):
            # A section with no text change: a rename, a mode change or an empty new file.
            binary = index < len(lines) and lines[index].startswith(_BINARY)
            changed = created or deleted or mode_changed or renamed_from or renamed_to
            if binary or not changed:
                raise _Malformed
            paths = (renamed_from, renamed_to) if renamed_from and renamed_to else git_paths
            if paths is None or (created and deleted):
                raise _Malformed
            old: str | None = None if created else paths[0]
            new: str | None = None if deleted else paths[1]
            return index, FileChange(old, new, 0, 0)
    if not (lines[index].startswith("--- ") and lines[index + 1].startswith("+++ ")):
        raise _Malformed
    old_path = _header_path(lines[index][4:])
    new_path = _header_path(lines[index + 1][4:])
    if old_path is None and new_path is None:
        raise _Malformed
    index += 2
    added = removed = 0
    hunks = 0
    while index < len(lines) and lines[index].startswith("@@"):
        index, plus, minus = _parse_hunk(lines, index)
        added, removed, hunks = added + plus, removed + minus, hunks + 1
    if hunks == 0:
        raise _Malformed
    if index < len(lines) and lines[index][:1] in ("+", "-", " ") and not _header_at(lines, index):
        raise _Malformed  # more changed lines than the last hunk header counted
    return index, FileChange(old_path, new_path, added, removed)


def _parse_hunk(lines: list[str], index: int) -> tuple[int, int, int]:
    header = _HUNK.match(lines[index])
    if header is None:
        raise _Malformed
    old_left = int(header.group(2) or "1")
    new_left = int(header.group(4) or "1")
    index += 1
    added = removed = 0
    while old_left > 0 or new_left > 0:
        if index >= len(lines):
            raise _Malformed
        kind = lines[index][:1]
        if kind in (" ", ""):  # an empty line is a context line whose space was trimmed
            old_left, new_left = old_left - 1, new_left - 1
        elif kind == "-":
            old_left, removed = old_left - 1, removed + 1
        elif kind == "+":
            new_left, added = new_left - 1, added + 1
        elif kind != _NO_NEWLINE:
            raise _Malformed
        if old_left < 0 or new_left < 0:
            raise _Malformed
        index += 1
    if index < len(lines) and lines[index].startswith(_NO_NEWLINE):
        index += 1
    return index, added, removed


def _header_path(field: str) -> str | None:
    """The path on a `---`/`+++` line, without a timestamp, as `-p1` will read it."""
    raw = field.split("\t", 1)[0]
    raw = _unquote(raw) if raw.startswith('"') else raw.rstrip()
    if raw == "/dev/null":
        return None
    return _strip_component(raw)


def _git_header_paths(rest: str) -> tuple[str | None, str | None] | None:
    """The two paths of `diff --git a/x b/x`, when they can be told apart."""
    if rest.startswith('"'):
        end = _quoted_end(rest)
        first, second = rest[:end], rest[end:].lstrip()
        return _strip_component(_unquote(first)), _strip_component(_unquote(second))
    half = (len(rest) - 1) // 2
    if len(rest) % 2 == 1 and rest[half] == " ":
        first, second = rest[:half], rest[half + 1 :]
        if first.partition("/")[2] == second.partition("/")[2]:
            return _strip_component(first), _strip_component(second)
    return None


def _strip_component(path: str) -> str:
    if path.startswith("/"):
        return path  # kept absolute so it is refused, not quietly made relative
    _, slash, rest = path.partition("/")
    if not slash:
        raise _Malformed  # nothing for -p1 to strip: it would patch the wrong file or none
    return rest


def _quoted_end(text: str) -> int:
    index = 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            return index + 1
        index += 1
    raise _Malformed


_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r"}


def _unquote(text: str) -> str:
    """Git's C-style quoting of unusual path names (`"a/caf\\303\\251.txt"`)."""
    if not text.startswith('"'):
        return text
    if not text.endswith('"') or len(text) < 2:
        raise _Malformed
    body = text[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.extend(char.encode())
            index += 1
            continue
        escaped = body[index + 1 : index + 2]
        if escaped in _ESCAPES:
            out.extend(_ESCAPES[escaped].encode())
            index += 2
        elif re.fullmatch(r"[0-7]{3}", body[index + 1 : index + 4]):
            out.append(int(body[index + 1 : index + 4], 8))
            index += 4
        elif escaped:
            out.extend(escaped.encode())
            index += 2
        else:
            raise _Malformed
    return out.decode(errors="surrogateescape")


def file_sections(diff: ProposedDiff) -> list[tuple[FileChange, list[str]]]:
    """Each file of a diff with its own lines (headers and hunks), for showing them apart."""
    lines = diff.text.split("\n")[:-1]
    sections: list[tuple[FileChange, list[str]]] = []
    index = 0
    for change in diff.files:
        end, _ = _parse_file(lines, index)
        sections.append((change, lines[index:end]))
        index = end
    return sections
