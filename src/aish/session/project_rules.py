""" "Always in this project": an allow rule written into the project's `.aish.toml`.

The confirm prompt's `[p]roject` allows a command prefix for the session at once and asks for
this rule; the REPL shows the rule and the file it goes into, and only a second yes writes it.
The file is the project file governing the shell's directory, or a new one at the git root.

A project file applies only once the user trusted exactly its bytes, and a project's allow
rules only when the user let them apply. Writing changes the bytes, so trust follows: when the
user trusted the file as it was (or it is new), the new bytes are trusted as they were — with
allow rules applying when they did before or the file had none, since this rule is the user's
own — and otherwise the file waits for `:trust` like any edit. The rule is appended, and the
result must parse as TOML before anything is written; it is written whole (temporary file, then
a rename), so a reader never sees half of it.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aish.config.bounded_read import read_bounded
from aish.config.policy_layers import allow_rule_count
from aish.config.project import PROJECT_FILE_NAME, digest_of, find_project_file
from aish.store.errors import StoreError

if TYPE_CHECKING:
    from aish.store import Store

__all__ = ["ProjectRule", "project_rule", "write_project_rule"]

_REASON = "approved at the confirm prompt"


@dataclass(frozen=True)
class ProjectRule:
    """An allow rule about to be offered: where it goes and exactly what is appended."""

    path: Path
    pattern: str
    text: str

    @property
    def exists(self) -> bool:
        return self.path.is_file()


def project_rule(pattern: str, cwd: str, home: Path | None) -> ProjectRule | None:
    """The rule for `pattern` in the project of `cwd`; None outside any project (no project
    file and no git repository up to the home directory)."""
    found = find_project_file(cwd, home)
    if found is None:
        root = _git_root(Path(cwd), home)
        if root is None:
            return None
        found = root / PROJECT_FILE_NAME
    text = (
        "\n[[safety.rule]]\n"
        'decision = "allow"\n'
        f"command = {json.dumps(pattern, ensure_ascii=False)}\n"
        f"reason = {json.dumps(_REASON)}\n"
    )
    return ProjectRule(Path(os.path.abspath(found)), pattern, text)


def write_project_rule(store: Store, rule: ProjectRule) -> list[str]:
    """Append the rule and carry the file's trust over; the lines to tell the user."""
    try:
        mode = os.lstat(rule.path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        return [f"not written: {rule.path}: {error}"]
    if mode is not None and not stat.S_ISREG(mode):
        # A repository's `.aish.toml` may be a link to a file of yours: appending would copy
        # that file's contents into the working tree, where it can be committed and pushed.
        return [f"not written: {rule.path} is not a regular file (a link?)"]
    existed = mode is not None
    try:
        old = read_bounded(rule.path) if existed else b""
    except OSError as error:
        return [f"not written: cannot read {rule.path}: {error}"]
    new = old + (b"\n" if old and not old.endswith(b"\n") else b"") + rule.text.encode()
    try:
        tomllib.loads(new.decode("utf-8-sig"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return [f"not written: {rule.path} would not be valid TOML with the rule ({error})"]
    try:
        record = store.project_trust_record(rule.path)
    except StoreError as error:
        return [f"not written: cannot look up the file's trust: {error}"]
    trusted_before = not existed or (record is not None and record.digest == digest_of(old))
    try:
        _replace(rule.path, new)
    except OSError as error:
        return [f"not written: {rule.path}: {error}"]
    said = [f"added to {rule.path}: allow `{rule.pattern}`"]
    if not trusted_before:
        return [*said, "the file was not trusted as it was: :trust to review it"]
    withheld = existed and record is not None and not record.allows and _allow_rules(old) > 0
    try:
        store.trust_project(rule.path, digest_of(new), allows=not withheld)
    except StoreError as error:
        return [*said, f"cannot record trust: {error}; :trust to review it"]
    if withheld:
        return [*said, "its allow rules (this one too) apply once you let them: :trust"]
    return [*said, "trusted as it is now (your own rule)"]


def _allow_rules(data: bytes) -> int:
    try:
        return allow_rule_count(tomllib.loads(data.decode("utf-8-sig")))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return 0


def _git_root(start: Path, home: Path | None) -> Path | None:
    for folder in [start, *start.parents]:
        if (folder / ".git").exists():
            return folder
        if home is not None and folder == home:
            return None
    return None


def _replace(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(prefix=".aish.toml.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        # The file keeps its mode; a new one gets a config file's usual 0644.
        os.chmod(temporary, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
