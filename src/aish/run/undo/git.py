"""What a git command would do to the working tree, asked of git without changing anything.

`git clean` → `git clean -n` with the same flags (minus `-f`); `git reset --hard [rev]`,
`git checkout [rev] -- paths`, `git restore [--source=rev] paths` → `git diff --name-only`
against the version they would put back; `git rm paths` → those paths. Other subcommands
that change files cannot be listed: unpredictable. git runs quiet (`aish.quiet_git`: no
fsmonitor, filter driver, pager, hook or fetch runs, no lock is taken) in the repository the
command names (`git -C dir` included, whose config the gate never read); the caller also asks
git at all only when the gate found nothing in the shell's git configuration that would make a
reading git run another program.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from aish import quiet_git
from aish.run.undo.probes import probe
from aish.run.undo.programs import Touch, Unpredictable

__all__ = ["git_touches"]

_QUOTE_PATH = ("-c", "core.quotePath=false")
# The names of files that differ; no rename detection (it would want blobs a partial clone
# fetches, and a rename touches both names anyway).
_DIFF_NAMES = ("diff", "--no-ext-diff", "--no-renames", "--name-only", "-z")


def _quiet(cwd: str, budget: float) -> list[str]:
    """The options that keep git from running anything the repository at `cwd` names: the
    fixed ones and one override per filter driver its config lists."""
    listed = probe("git", [*quiet_git.SAFE_OPTIONS, *quiet_git.LIST_CONFIG_NAMES], cwd, budget)
    names = [os.fsdecode(name) for name in listed.split(b"\0") if name]
    return [*quiet_git.SAFE_OPTIONS, *_QUOTE_PATH, *quiet_git.filter_overrides(names)]


def git_touches(words: Sequence[str | None], cwd: str, deadline: float) -> list[Touch]:
    """Absolute paths (`git -C dir` moves where git works)."""
    if any(word is None for word in words):
        raise Unpredictable("an argument of git is computed at run time")
    args = [word for word in words if word is not None]
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-C" and i + 1 < len(args):
            cwd = os.path.join(cwd, args[i + 1])
            i += 2
            continue
        raise Unpredictable(f"git {args[i]} changes where or how git works")
    if i >= len(args):
        return []
    sub, rest = args[i], args[i + 1 :]
    budget = deadline - time.monotonic()
    if sub == "clean":
        return _clean(rest, cwd, budget)
    if sub == "reset":
        if not {"--hard", "--keep", "--merge"} & set(rest):
            return []  # soft and mixed resets change only the index
        revisions = [word for word in rest if not word.startswith("-")]
        return _changed(revisions[:1] or ["HEAD"], [], cwd, budget)
    if sub == "checkout":
        if "--" not in rest:
            if rest == ["."]:
                return _changed([], ["."], cwd, budget)
            raise Unpredictable("git checkout of a branch changes files aish did not list")
        split = rest.index("--")
        revisions = [word for word in rest[:split] if not word.startswith("-")]
        return _changed(revisions[:1], rest[split + 1 :], cwd, budget)
    if sub == "restore":
        return _restore(rest, cwd, budget)
    if sub == "rm":
        if "--cached" in rest:
            return []
        paths = [word for word in rest if not word.startswith("-") or word == "-"]
        return [Touch(os.path.join(cwd, path), "delete") for path in paths]
    raise Unpredictable(f"git {sub} changes files aish cannot list")


def _clean(rest: Sequence[str], cwd: str, budget: float) -> list[Touch]:
    asked: list[str] = []
    for position, word in enumerate(rest):
        if word == "--":
            asked += rest[position:]
            break
        if word in ("--force",):
            continue
        if word in ("-i", "--interactive") or (
            word.startswith("-") and not word.startswith("--") and "i" in word
        ):
            raise Unpredictable("git clean -i asks what to delete")
        if word.startswith("-") and not word.startswith("--"):
            kept = word.replace("f", "")
            if kept != "-":
                asked.append(kept)
            continue
        asked.append(word)
    started = time.monotonic()
    quiet = _quiet(cwd, budget)
    budget -= time.monotonic() - started
    output = probe("git", [*quiet, "clean", "-n", *asked], cwd, budget)
    touches = []
    for line in output.decode("utf-8", "surrogateescape").splitlines():
        prefix = "Would remove "
        if line.startswith(prefix):
            touches.append(Touch(os.path.join(cwd, line[len(prefix) :].rstrip("/")), "delete"))
    return touches


def _restore(rest: Sequence[str], cwd: str, budget: float) -> list[Touch]:
    source: list[str] = []
    staged = worktree = False
    paths: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        i += 1
        if word in ("--staged", "-S"):
            staged = True
        elif word in ("--worktree", "-W"):
            worktree = True
        elif word in ("-s", "--source") and i < len(rest):
            source, i = [rest[i]], i + 1
        elif word.startswith("--source="):
            source = [word.partition("=")[2]]
        elif word == "--":
            paths += rest[i:]
            break
        elif not word.startswith("-"):
            paths.append(word)
    if staged and not worktree:
        return []  # only the index changes
    if staged and not source:
        source = ["HEAD"]  # both from HEAD
    return _changed(source, paths, cwd, budget)


def _changed(
    revisions: Sequence[str], paths: Sequence[str], cwd: str, budget: float
) -> list[Touch]:
    """Files whose working-tree content differs from `revisions` (the index when none)."""
    if any(revision.startswith("-") for revision in revisions):
        # `--source=--output=x` would reach git diff as an option that writes a file.
        raise Unpredictable("a revision that looks like an option")
    started = time.monotonic()
    quiet = _quiet(cwd, budget)
    top = probe("git", [*quiet, "rev-parse", "--show-toplevel"], cwd, budget).decode().strip()
    if not top:
        raise Unpredictable("not in a git working tree")
    budget -= time.monotonic() - started
    output = probe(
        "git",
        [*quiet, *_DIFF_NAMES, *revisions, "--", *paths],
        cwd,
        budget,
    )
    names = [os.fsdecode(name) for name in output.split(b"\0") if name]
    return [Touch(os.path.join(top, name), "revert", recursive=False) for name in names]
