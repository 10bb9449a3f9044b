"""The file parts of a `[project]` block: a bounded tree, a bounded walk, manifest heads.

`render_tree` is pure. It takes the project's files as relative paths (from `git ls-files`, or
from `walk_files` outside git) and shows them breadth first, so the top levels are complete
before any deeper level gets a line: at most `max_files` entries, directories at `max_depth`
collapsed to `name/ (N files)`, and `(+N more files)` wherever entries were left out. Order is
deterministic: directories before files, each by name.

`walk_files` lists a plain directory breadth first, skipping the usual generated and vendored
directories (`.git`, `node_modules`, `.venv`, `__pycache__`, `target`, `dist`, `build` …), never
following symbolic links, and stopping after a number of entries or at a deadline.

`read_manifests` gives the first lines of the key manifests (`MANIFESTS` and `README*`) in the
project root. The repository is untrusted: a manifest that is a symbolic link out of the project
(a clone must not make aish send `~/.ssh/id_rsa` to a model), a FIFO or a device is not read.

Every name is passed through `printable` first: a file name is text from the repository, so
control characters (newlines, escape sequences, bidi overrides) are shown escaped rather than
allowed to forge lines in the block.
"""

from __future__ import annotations

import os
import stat
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = [
    "JUNK_DIRS",
    "MANIFESTS",
    "WalkResult",
    "cut_line",
    "printable",
    "read_manifests",
    "render_tree",
    "walk_files",
]

JUNK_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        ".cache",
        ".gradle",
        ".next",
        ".idea",
        "target",
        "dist",
        "build",
    }
)

MANIFESTS = ("pyproject.toml", "package.json", "Cargo.toml", "go.mod", "Makefile", "GNUmakefile")
MAX_READMES = 2
MANIFEST_LINE_CHARS = 160
_MANIFEST_BYTES = 64 * 1024

_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def printable(text: str) -> str:
    """`text` with control characters, bidi controls and undecodable bytes escaped."""
    if text.isprintable():
        return text
    out: list[str] = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif char == "\t" or (char.isprintable() and char not in _BIDI_CONTROLS):
            out.append(char)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


@dataclass
class _Dir:
    dirs: dict[str, _Dir] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    total: int = 0  # files anywhere below


def _build(paths: Iterable[str]) -> _Dir:
    root = _Dir()
    for path in paths:
        parts = [part for part in path.split("/") if part not in ("", ".")]
        if not parts:
            continue
        node = root
        chain = [root]
        for part in parts[:-1]:
            node = node.dirs.setdefault(part, _Dir())
            chain.append(node)
        if parts[-1] in node.files or parts[-1] in node.dirs:
            continue  # a duplicate (unmerged index stages) or a file shadowed by a directory
        node.files.add(parts[-1])
        for ancestor in chain:
            ancestor.total += 1
    return root


def _sort_key(name: str) -> tuple[str, str]:
    return (name.casefold(), name)


# One entry of a directory: its path (directories end in "/"), its name and, for a
# directory, its node.
_Entry = tuple[str, str, "_Dir | None"]


def _entries(prefix: str, node: _Dir) -> list[_Entry]:
    dirs: list[_Entry] = [
        (f"{prefix}{name}/", name, node.dirs[name]) for name in sorted(node.dirs, key=_sort_key)
    ]
    files: list[_Entry] = [
        (prefix + name, name, None) for name in sorted(node.files, key=_sort_key)
    ]
    return dirs + files


def _choose(root: _Dir, max_files: int, max_depth: int) -> set[str]:
    """The paths that get a line: breadth first until `max_files` entries are taken."""
    shown: set[str] = set()
    queue: deque[tuple[int, _Entry]] = deque((1, entry) for entry in _entries("", root))
    while queue and len(shown) < max_files:
        depth, (path, _name, node) = queue.popleft()
        shown.add(path)
        if node is not None and depth < max_depth:
            queue.extend((depth + 1, entry) for entry in _entries(path, node))
    return shown


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def _emit(prefix: str, node: _Dir, indent: str, shown: set[str], lines: list[str]) -> None:
    omitted = 0
    for path, name, child in _entries(prefix, node):
        if path not in shown:
            omitted += child.total if child is not None else 1
        elif child is None:
            lines.append(indent + printable(name))
        elif any(entry[0] in shown for entry in _entries(path, child)):
            lines.append(f"{indent}{printable(name)}/")
            _emit(path, child, indent + "  ", shown, lines)
        else:
            lines.append(f"{indent}{printable(name)}/ ({_files(child.total)})")
    if omitted:
        lines.append(f"{indent}(+{omitted} more {'file' if omitted == 1 else 'files'})")


def render_tree(
    paths: Iterable[str], *, max_files: int, max_depth: int, indent: str = "  "
) -> tuple[list[str], int, int]:
    """The tree of `paths` as indented lines, with the number of files and of entries shown.

    Paths are relative, `/`-separated and name files; directories come from the paths.
    """
    root = _build(paths)
    shown = _choose(root, max(max_files, 0), max(max_depth, 1))
    lines: list[str] = []
    _emit("", root, indent, shown, lines)
    return lines, root.total, len(shown)


@dataclass(frozen=True)
class WalkResult:
    """Files found by `walk_files`, relative and `/`-separated; `complete` is False when cut."""

    paths: list[str]
    complete: bool


def walk_files(root: str, *, max_entries: int, deadline: float) -> WalkResult:
    """Files under `root`, breadth first, without junk directories or following symlinks.

    Stops after `max_entries` directory entries or once `time.monotonic()` passes `deadline`.
    """
    paths: list[str] = []
    seen = 0
    queue: deque[tuple[str, str]] = deque([(root, "")])
    while queue:
        directory, rel = queue.popleft()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue  # unreadable directories are left out, as `ls -R` would
        for entry in entries:
            seen += 1
            if seen > max_entries or time.monotonic() > deadline:
                return WalkResult(paths, complete=False)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if not is_dir:
                paths.append(rel + entry.name)
            elif entry.name not in JUNK_DIRS and not entry.name.endswith(".egg-info"):
                queue.append((entry.path, f"{rel}{entry.name}/"))
    return WalkResult(paths, complete=True)


def cut_line(text: str, width: int) -> str:
    """`text`, cut to `width` characters with an ellipsis when longer."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _open_inside(root: str, name: str) -> int | None:
    """A read-only descriptor for the regular file `name` in `root`, or None.

    Symbolic links are followed only within the project (a cloned repository must not make
    aish send `~/.ssh/id_rsa` to a model); FIFOs and devices are refused after opening
    without blocking.
    """
    path = os.path.join(root, name)
    real = os.path.realpath(path)
    real_root = os.path.realpath(root)
    if os.path.commonpath([real, real_root]) != real_root:
        return None
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
    try:
        fd = os.open(real, flags)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _manifest_names(root: str) -> list[str]:
    try:
        with os.scandir(root) as scan:
            names = {entry.name for entry in scan if not entry.is_dir()}
    except OSError:
        return []
    readmes = sorted((n for n in names if n.casefold().startswith("readme")), key=str.casefold)
    return [name for name in MANIFESTS if name in names] + readmes[:MAX_READMES]


def read_manifests(root: str, max_lines: int) -> list[str]:
    """The `manifest <name>:` sections for the manifests present in `root`."""
    lines: list[str] = []
    for name in _manifest_names(root):
        fd = _open_inside(root, name)
        if fd is None:
            lines.append(
                f"manifest {printable(name)}: (not read: not a regular file inside the project)"
            )
            continue
        with os.fdopen(fd, "rb") as file:
            data = file.read(_MANIFEST_BYTES)
        if b"\0" in data:
            lines.append(f"manifest {printable(name)}: (binary, not read)")
            continue
        text = data.decode("utf-8", "replace").splitlines()
        lines.append(f"manifest {printable(name)}:")
        head = text[: max(max_lines, 0)]
        lines.extend(
            "  " + cut_line(printable(line.rstrip()), MANIFEST_LINE_CHARS) for line in head
        )
        if len(text) > len(head):
            lines.append("  …")
    return lines
