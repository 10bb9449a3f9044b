"""ShellFactsSource against a real bash on a real PTY and real git repositories: what the gate
learns about the shell that will run a command, and about the configuration git reads there."""

from __future__ import annotations

import subprocess
from pathlib import Path

from aish.agent.shell_facts import ShellFactsSource
from aish.safety.classifier import classify
from tests.support.shell_harness import open_shell


def _git(*args: str, cwd: Path) -> None:
    settings = ("-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always")
    subprocess.run(
        ["git", *settings, *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _repo(path: Path) -> Path:
    path.mkdir(parents=True)
    _git("init", "-q", cwd=path)
    (path / "f.txt").write_text("x\n")
    _git("add", ".", cwd=path)
    _git("commit", "-qm", "one", cwd=path)
    return path


async def test_the_same_state_gives_the_same_facts_and_a_change_a_new_one(tmp_path: Path) -> None:
    async with open_shell(tmp_path) as sh:
        source = ShellFactsSource(sh.session.state_report)
        first = await source("ls")
        assert first is not None and await source("ls -l") is first
        assert classify("ls", None, first).level == "safe"
        await sh.run("alias ls='rm -rf'")
        changed = await source("ls")
        assert changed is not None and changed is not first
        assert classify("ls x", None, changed).level == "destructive"


async def test_git_concerns_come_from_the_repository_the_shell_is_in(tmp_path: Path) -> None:
    clean = _repo(tmp_path / "clean")
    hooked = _repo(tmp_path / "hooked")
    _git("config", "core.fsmonitor", "touch PWNED", cwd=hooked)
    async with open_shell(tmp_path) as sh:
        source = ShellFactsSource(sh.session.state_report)
        await sh.run(f"cd '{clean}'")
        facts = await source("git status")
        assert facts is not None and facts.git_checked and facts.git_concerns == ()
        await sh.run(f"cd '{hooked}'")
        facts = await source("git status")
        assert facts is not None and "core.fsmonitor" in facts.git_concerns[0]
        # A command that does not mention git does not pay for asking it.
        quiet = await source("ls")
        assert quiet is not None and not quiet.git_checked
        await sh.run("export GIT_EXTERNAL_DIFF=/tmp/x")
        facts = await source("git diff")
        assert facts is not None and any("GIT_EXTERNAL_DIFF" in r for r in facts.git_concerns)
    assert not (hooked / "PWNED").exists()


async def test_a_submodules_own_config_counts(tmp_path: Path) -> None:
    inner = _repo(tmp_path / "inner")
    outer = _repo(tmp_path / "outer")
    _git("submodule", "add", "-q", str(inner), "sub", cwd=outer)
    _git("config", "core.fsmonitor", "touch PWNED", cwd=outer / "sub")
    async with open_shell(tmp_path) as sh:
        await sh.run(f"cd '{outer}'")
        facts = await ShellFactsSource(sh.session.state_report)("git status")
        assert facts is not None
        assert any(r.startswith("in submodule sub:") for r in facts.git_concerns)
        assert classify("git status", None, facts).level == "unknown"


async def test_a_post_index_change_hook_counts(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    hook = repo / ".git" / "hooks" / "post-index-change"
    hook.write_text("#!/bin/sh\ntouch PWNED\n")
    hook.chmod(0o755)
    async with open_shell(tmp_path) as sh:
        await sh.run(f"cd '{repo}'")
        facts = await ShellFactsSource(sh.session.state_report)("git status")
        assert facts is not None and any("post-index-change" in r for r in facts.git_concerns)


async def test_a_dead_shell_gives_no_facts(tmp_path: Path) -> None:
    async def broken() -> object:
        raise TimeoutError

    assert await ShellFactsSource(broken)("ls") is None  # type: ignore[arg-type]
