"""`[p]roject`'s second step: the allow rule appended to the project's `.aish.toml`, and the
file's trust carried over only when the user trusted it as it was — real files, a real store,
the real loader."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aish.config import load_config
from aish.config.project import digest_of
from aish.session.project_rules import project_rule, write_project_rule
from aish.session.trust import trust_lookup
from aish.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "aish.db") as opened:
        yield opened


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "home" / "repo"
    (path / ".git").mkdir(parents=True)
    (path / "src").mkdir()
    return path


def allowed(repo: Path, store: Store) -> list[str]:
    config = load_config(env={}, autodetect=False, cwd=repo, trusted_digest=trust_lookup(store))
    rules = config.config.safety.rule
    return [pattern for r in rules if r.decision == "allow" for pattern in r.patterns()]


def test_a_new_file_at_the_git_root_is_trusted_with_the_users_rule(
    repo: Path, store: Store, tmp_path: Path
) -> None:
    rule = project_rule("npm test", str(repo / "src"), tmp_path / "home")
    assert rule is not None and rule.path == repo / ".aish.toml" and not rule.exists
    said = write_project_rule(store, rule)
    assert said == [
        f"added to {rule.path}: allow `npm test`",
        "trusted as it is now (your own rule)",
    ]
    assert allowed(repo, store) == ["npm test"]


def test_outside_any_project_there_is_no_rule(tmp_path: Path) -> None:
    (tmp_path / "home" / "loose").mkdir(parents=True)
    assert project_rule("make", str(tmp_path / "home" / "loose"), tmp_path / "home") is None


def test_an_untrusted_file_gets_the_rule_but_stays_untrusted(repo: Path, store: Store) -> None:
    path = repo / ".aish.toml"
    path.write_text('[safety]\nallow = ["*"]\n')  # a cloned repository's, never trusted
    rule = project_rule("npm test", str(repo), None)
    assert rule is not None
    said = write_project_rule(store, rule)
    assert said[-1] == "the file was not trusted as it was: :trust to review it"
    assert store.project_trust(path) is None and allowed(repo, store) == []
    assert path.read_text().startswith('[safety]\nallow = ["*"]\n')


def test_withheld_allow_rules_are_not_let_in_by_writing_one(repo: Path, store: Store) -> None:
    path = repo / ".aish.toml"
    path.write_text('[safety]\nallow = ["rm *"]\n')
    store.trust_project(path, digest_of(path.read_bytes()), allows=False)
    rule = project_rule("npm test", str(repo), None)
    assert rule is not None
    said = write_project_rule(store, rule)
    assert said[-1] == "its allow rules (this one too) apply once you let them: :trust"
    record = store.project_trust_record(path)
    assert record is not None and record.digest == digest_of(path.read_bytes())
    assert not record.allows and allowed(repo, store) == []


def test_a_rule_that_would_break_the_file_is_not_written(repo: Path, store: Store) -> None:
    path = repo / ".aish.toml"
    before = "[safety]\nrule = []\n"  # an inline array: a [[safety.rule]] table would clash
    path.write_text(before)
    rule = project_rule('make "x"', str(repo), None)
    assert rule is not None
    [said] = write_project_rule(store, rule)
    assert said.startswith("not written:") and "not be valid TOML" in said
    assert path.read_text() == before


def test_a_linked_project_file_is_never_written_through(
    repo: Path, store: Store, tmp_path: Path
) -> None:
    mine = tmp_path / "my-config.toml"
    mine.write_text('[models.x]\napi_key = "sk-live-NOT-FOR-THE-REPO"\n')
    (repo / ".aish.toml").symlink_to(mine)
    rule = project_rule("npm test", str(repo), None)
    assert rule is not None
    [said] = write_project_rule(store, rule)
    assert said == f"not written: {rule.path} is not a regular file (a link?)"
    assert (repo / ".aish.toml").is_symlink() and "npm test" not in mine.read_text()
