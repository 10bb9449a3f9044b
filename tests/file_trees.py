"""Real file trees for the blast-radius and undo tests: made on disk, listed with hashes.

`listing` is the independent account of a tree the predictions and restores are checked
against: every entry with its type, permission bits, size, SHA-256 or link target.
"""

from __future__ import annotations

import hashlib
import os
import random
import stat
import subprocess
from pathlib import Path

Listing = dict[str, tuple[str, int, str]]


def make_tree(root: Path, *, files: int = 60, seed: int = 7) -> None:
    """A `build/` tree of several levels with files of varied sizes (some empty), a symlink to
    a file, a symlink to a directory, a dangling symlink, an empty directory, a read-only
    file and a directory with unusual permission bits."""
    chance = random.Random(seed)
    build = root / "build"
    for depth in range(4):
        (build / Path(*[f"d{level}" for level in range(depth)])).mkdir(parents=True, exist_ok=True)
    directories = [p for p in build.rglob("*") if p.is_dir()] + [build]
    for number in range(files):
        where = chance.choice(directories)
        size = chance.choice([0, 1, 100, 4096, 70_000])
        (where / f"f{number}.{chance.choice(['o', 'log', 'txt'])}").write_bytes(
            chance.randbytes(size)
        )
    (build / "empty").mkdir()
    (build / "link-to-file").symlink_to("readonly.txt")
    (build / "link-to-dir").symlink_to("d0")
    (build / "dangling").symlink_to("does-not-exist")
    readonly = build / "readonly.txt"
    readonly.write_text("do not touch\n")
    readonly.chmod(0o444)
    (build / "d0").chmod(0o750)


def listing(root: Path) -> Listing:
    """Every entry under `root` (itself included as ""): kind, mode bits, and the content's
    SHA-256 (files), the link target (symlinks) or "" (directories)."""
    found: Listing = {}
    for directory, subdirectories, names in os.walk(root):
        for name in ["", *subdirectories, *names]:
            path = os.path.join(directory, name) if name else directory
            relative = os.path.relpath(path, root)
            if relative in found:
                continue
            info = os.lstat(path)
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                found[relative] = ("link", mode, os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                found[relative] = ("dir", mode, "")
            else:
                found[relative] = (
                    "file",
                    mode,
                    hashlib.sha256(Path(path).read_bytes()).hexdigest(),
                )
    return found


def disk_count(path: Path) -> tuple[int, int]:
    """Non-directory entries under `path` and their bytes (regular files only), by os.walk."""
    files = size = 0
    for directory, _subdirectories, names in os.walk(path):
        for name in names:
            full = os.path.join(directory, name)
            files += 1
            if os.path.isfile(full) and not os.path.islink(full):
                size += os.lstat(full).st_size
        for name in _subdirectories:
            if os.path.islink(os.path.join(directory, name)):
                files += 1  # a link to a directory is an entry rm deletes, not a tree
    return files, size


def bash(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `command` in a real bash in `cwd`, as the user's shell would."""
    return subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=60,
    )
