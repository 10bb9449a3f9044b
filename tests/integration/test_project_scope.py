"""A project's config applies in its own directory tree only: `ConfigScope` with real files, the
real loader and a real SQLite store; the gate's per-action policy (`DirectoryPolicies`) with a
real agent shell that moves between repositories; `aish goal` as a real process.

Repository A's trusted file allows `make test` and turns confirmations off; B has its own
Makefile (and its own, untrusted, copy of A's rules). A's marker file shows A's rule at work, so
B's missing one means the rule stopped at the border."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from aish.agent import gate
from aish.agent.project import DirectoryPolicies
from aish.agent.shell_facts import ShellFactsSource
from aish.config import LoadedConfig, load_config
from aish.config.project import digest_of
from aish.config.project_scope import ConfigScope, ProjectState, project_state
from aish.run.agent_shell import AgentShell
from aish.session.trust import trust_lookup
from aish.store import Store

from ..conftest import ServeFn

A_RULES = '[safety]\nallow = ["make test"]\nconfirm_cmd = false\n'


def repository(root: Path, name: str, project_file: str | None) -> Path:
    repo = root / name
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    (repo / "Makefile").write_text(f"test:\n\ttouch ../{name}-ran\n")
    if project_file is not None:
        (repo / ".aish.toml").write_text(project_file)
    return repo


@pytest.fixture
def store(xdg_home: Path) -> Iterator[Store]:
    with Store.open() as opened:  # the store `aish` itself opens, under the test's XDG dirs
        yield opened


@pytest.fixture
def work(xdg_home: Path) -> Path:
    path = xdg_home / "work"
    repository(path, "A", A_RULES)
    repository(path, "B", A_RULES)
    return path


def trust(store: Store, path: Path) -> None:
    """Trusted as it is, with its allow rules (the user said yes to both questions)."""
    store.trust_project(path, digest_of(path.read_bytes()), allows=True)


class CountingLoader:
    """The real loader, counted: the scope must not load again while the state holds."""

    def __init__(self, store: Store) -> None:
        self.loads = 0
        self._lookup = trust_lookup(store)

    def __call__(self, cwd: str | None) -> LoadedConfig:
        self.loads += 1
        return load_config(env={}, autodetect=False, cwd=cwd, trusted_digest=self._lookup)


def scope_for(store: Store, home: Path) -> tuple[ConfigScope, CountingLoader]:
    loader = CountingLoader(store)
    return ConfigScope(loader, trust_lookup(store), home), loader


# ---- ConfigScope ----------------------------------------------------------------------------


def test_each_directory_gets_its_own_projects_config(
    work: Path, store: Store, xdg_home: Path
) -> None:
    a, b = work / "A", work / "B"
    trust(store, a / ".aish.toml")
    scope, loader = scope_for(store, xdg_home)

    in_a = scope.loaded_for(str(a / "sub"))
    assert in_a.project_trusted and in_a.config.safety.allow == ["make test"]
    assert not in_a.config.safety.confirm_cmd
    in_b = scope.loaded_for(str(b))
    assert in_b.project_file == b / ".aish.toml" and not in_b.project_trusted
    assert in_b.config.safety.allow == [] and in_b.config.safety.confirm_cmd
    outside = scope.loaded_for(str(work))
    assert outside.project_file is None and outside.config.safety.allow == []
    assert scope.outside_projects().config.safety.allow == []

    loads = loader.loads
    assert scope.loaded_for(str(a)) is in_a  # the same project, the same state: no load
    assert scope.loaded_for(str(b / "sub")) is in_b
    assert loader.loads == loads


def test_trust_in_b_is_its_own_and_an_edit_in_a_needs_trust_again(
    work: Path, store: Store, xdg_home: Path
) -> None:
    a, b = work / "A", work / "B"
    trust(store, a / ".aish.toml")
    scope, _ = scope_for(store, xdg_home)
    assert scope.state(str(a)) == ProjectState(
        a / ".aish.toml", digest_of(A_RULES.encode()), trusted=True, recorded=True, allows=True
    )
    assert scope.state(str(b)) == ProjectState(
        b / ".aish.toml", digest_of(A_RULES.encode()), trusted=False, recorded=False
    )  # the same bytes in another place: trust is by path and content

    trust(store, b / ".aish.toml")
    assert scope.loaded_for(str(b)).config.safety.allow == ["make test"]

    (a / ".aish.toml").write_text(A_RULES + 'destructive = ["rm *"]\n')
    edited = scope.state(str(a))
    assert not edited.trusted and edited.recorded
    loaded = scope.loaded_for(str(a))
    assert loaded.config.safety.allow == [] and not loaded.project_trusted


def test_a_failing_trust_lookup_means_not_trusted(work: Path, xdg_home: Path) -> None:
    def broken(path: Path) -> str | None:
        raise OSError("the store went away")

    state = project_state(work / "A", xdg_home, broken)
    assert state.path == work / "A" / ".aish.toml" and not state.trusted and not state.recorded


# ---- the gate, per action, in a shell that moves --------------------------------------------


def test_norris_steps_are_judged_where_the_agent_shell_is(
    work: Path, store: Store, xdg_home: Path
) -> None:
    trust(store, work / "A" / ".aish.toml")
    scope, _ = scope_for(store, xdg_home)

    async def steps() -> list[str]:
        shell = await AgentShell.start(str(work / "A"))
        policies = DirectoryPolicies(scope, "norris", lambda: shell.cwd)
        decided = []
        try:
            for command in ("make test", "cd ../B && make test", "cd ../B", "make test"):
                action = gate.ProposedCommand(command)
                authorization = await gate.authorize(
                    action, policies(action), facts=ShellFactsSource(shell.session.state_report)
                )
                decided.append(f"{command}: {authorization.decision}")
                if authorization.run:
                    await shell.run_authorized(authorization, 30)
        finally:
            await shell.close()
        return decided

    assert asyncio.run(steps()) == [
        "make test: run",  # A's rule, in A
        "cd ../B && make test: halt",  # it would leave A part-way: no project's rules
        "cd ../B: run",
        "make test: halt",  # in B, with B's (untrusted) file: nothing allows it
    ]
    assert (work / "A-ran").exists() and not (work / "B-ran").exists()


def test_the_chat_policy_follows_the_users_directory(
    work: Path, store: Store, xdg_home: Path
) -> None:
    trust(store, work / "A" / ".aish.toml")
    scope, _ = scope_for(store, xdg_home)
    where = [str(work / "A")]
    policies = DirectoryPolicies(scope, "interactive", lambda: where[0])
    make = gate.ProposedCommand("make test")
    assert not policies(make).confirm_cmd and policies(make).user_rules.allow == ("make test",)
    where[0] = str(work / "B")
    assert policies(make).confirm_cmd and policies(make).user_rules.allow == ()


# ---- aish goal ------------------------------------------------------------------------------


def test_aish_goal_does_not_carry_as_rules_into_b(
    serve: ServeFn, work: Path, store: Store, xdg_home: Path
) -> None:
    server = serve(
        {
            "rules": [
                {
                    "when": {},
                    "replies": [
                        {"text": "CMD: make test"},
                        {"text": "CMD: cd ../B"},
                        {"text": "CMD: make test"},
                    ],
                }
            ]
        }
    )
    user = xdg_home / "config" / "aish" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\nmax_retries = 0\n'
    )
    trust(store, work / "A" / ".aish.toml")
    result = subprocess.run(
        [sys.executable, "-m", "aish", "goal", "--yes-safe", "run the tests in A and B"],
        cwd=work / "A",
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
        env=os.environ.copy(),
    )
    assert result.returncode == 3, result.stdout + result.stderr  # halted: needs a person
    assert "make test" in result.stdout + result.stderr
    assert (work / "A-ran").exists() and not (work / "B-ran").exists()
