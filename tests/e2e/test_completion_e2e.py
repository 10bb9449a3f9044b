"""Tab at aish's prompt completes as the user's shell would, typed like a person in a real PTY:
file names from the shell's cwd (after `cd`), variables, aliases and functions, programmable
completion loaded by the rc file (and git's from bash-completion when it is installed); a slow
spec never holds typing up, and nothing of it changes the user's shell. No model is asked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

BASH_COMPLETION = Path("/usr/share/bash-completion/bash_completion")

RC = """\
alias aishalias_vwkp='echo via-alias'
aishfunc_zqxj() { echo "hello from a function"; }
export AISH_TEST_VARIABLE=from-rc
mycmd() { echo "mycmd got $*"; }
othercmd() { echo "othercmd got $*"; }
slowcmd() { echo "slowcmd got $*"; }
_mycmd_complete() {
  COMPLETION_RAN=yes  # a global: it must not show up in the user's shell
  COMPREPLY=($(compgen -W "zebra-crossing zebu apple" -- "$2"))
}
complete -F _mycmd_complete mycmd
complete -W "alpha-one beta-two" othercmd
_slow_complete() {
  echo "$BASHPID" > ~/slow-started
  sleep 60
  COMPREPLY=(too-late)
}
complete -F _slow_complete slowcmd
"""


@pytest.fixture
def home(aish_home: Path) -> Path:
    (aish_home / ".bashrc").write_text(RC)
    sub = aish_home / "work" / "sub"
    (sub / "inner-dir").mkdir(parents=True)
    (sub / "only-in-sub.txt").write_text("contents of the file in sub\n")
    (aish_home / "work" / "only-in-start.txt").write_text("start\n")
    return aish_home


@pytest.fixture
def model(serve: ServeFn) -> Iterator[str]:
    """A model that must never be asked: completion and these commands are the shell's."""
    server = serve({"rules": [], "default": {"text": "nothing to say"}})
    yield f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\nmodel = "m"\n'
    assert server.requests == []


def _aish(home: Path, terminals: list[AishTerminal], config: str) -> AishTerminal:
    aish = spawn_aish(home, config=config)
    terminals.append(aish)
    aish.wait_prompt()
    return aish


def _tab(aish: AishTerminal, typed: str, shown: str) -> None:
    """Type `typed`, press Tab, and wait until `shown` (what the completion inserts) appears."""
    aish.child.send(typed)
    aish.expect(re.escape(typed[-8:]))
    aish.child.send("\t")
    aish.expect(re.escape(shown))


def test_paths_complete_from_the_shells_cwd_after_cd(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    aish = _aish(home, terminals, model)
    _quietly(aish, "cd sub")
    aish.child.send("ls ./")
    aish.expect(re.escape("ls ./"))
    aish.child.send("\t")
    aish.expect("inner-dir/")  # the menu lists sub's entries, in order
    aish.expect("only-in-sub.txt")
    aish.child.sendcontrol("u")
    _tab(aish, "cat ./only-in-s", "ub.txt")
    _enter_shows(aish, "contents of the file in sub")
    assert "only-in-start" not in aish.child.before


def test_variables_complete_with_and_without_braces(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    aish = _aish(home, terminals, model)
    aish.child.send("echo $HO\t")
    aish.expect(re.escape("$HOME"))  # a menu, as in bash: $HOME $HOSTNAME $HOSTTYPE
    aish.expect(re.escape("$HOSTNAME"))
    aish.child.sendcontrol("u")
    _tab(aish, "echo $AISH_TEST_V", "ARIABLE")
    _enter_shows(aish, "from-rc")
    _tab(aish, "echo ${AISH_TEST_V", "ARIABLE}")
    _enter_shows(aish, "from-rc")
    # A variable exported at the prompt completes too: the helper follows the live shell.
    _quietly(aish, "export AISH_LATER_EXPORT=later-value")
    _tab(aish, "echo $AISH_LATER_E", "XPORT")
    _enter_shows(aish, "later-value")


def test_aliases_and_functions_complete_as_the_command_word(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    aish = _aish(home, terminals, model)
    _tab(aish, "aishfunc_z", "qxj")
    _enter_shows(aish, "hello from a function")
    _tab(aish, "aishalias_v", "wkp")
    _enter_shows(aish, "via-alias")
    _quietly(aish, "prompt_fn_jmyr() { echo defined-at-the-prompt; }")
    _tab(aish, "prompt_fn_j", "myr")
    _enter_shows(aish, "defined-at-the-prompt")


def test_programmable_completion_from_the_rc_file(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    aish = _aish(home, terminals, model)
    _tab(aish, "mycmd zebr", "a-crossing")
    _enter_shows(aish, "mycmd got zebra-crossing")
    aish.child.send("mycmd ze\t")
    aish.expect("zebra-crossing")  # two matches: a menu
    aish.expect("zebu")
    aish.child.sendcontrol("u")
    _tab(aish, "othercmd be", "ta-two")
    _enter_shows(aish, "othercmd got beta-two")


@pytest.mark.skipif(not BASH_COMPLETION.exists(), reason="bash-completion is not installed")
def test_gits_own_completion_through_bash_completion(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    with (home / ".bashrc").open("a") as rc:
        rc.write(f"source {BASH_COMPLETION}\n")
    repo = home / "work" / "repo"
    env = {**os.environ, "HOME": str(home)}
    for args in (
        ["init", "-q", "-b", "main", str(repo)],
        [
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "first",
        ],
        ["-C", str(repo), "branch", "feature-xyzzy"],
    ):
        subprocess.run(["git", *args], check=True, env=env)
    aish = _aish(home, terminals, model)
    _quietly(aish, "cd repo")
    _tab(aish, "git checkout feature-x", "yzzy")
    _enter_shows(aish, "Switched to branch 'feature-xyzzy'")


def test_a_slow_spec_never_holds_typing_up(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    aish = _aish(home, terminals, model + "[ui]\ncompletion_timeout_s = 30\n")
    started = home / "slow-started"
    aish.child.send("slowcmd x\t")
    helper_pid = _wait_for_pid(started)
    # The completion function is still sleeping, and the keys typed now are edited and shown.
    aish.child.send(" typed-while-pending")
    aish.expect("typed-while-pending")
    os.kill(helper_pid, 0)  # still running: typing did not wait for it
    _enter_shows(aish, "slowcmd got x typed-while-pending")
    assert "too-late" not in aish.child.before
    _line_shows(aish, "echo command-ran-$((6*7))", "command-ran-42")
    _wait_gone(helper_pid)  # the abandoned completion's helper does not linger


def test_a_slow_spec_is_given_up_after_the_bound(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    aish = _aish(home, terminals, model + "[ui]\ncompletion_timeout_s = 1\n")
    started = home / "slow-started"
    aish.child.send("slowcmd x\t")
    helper_pid = _wait_for_pid(started)
    _wait_gone(helper_pid)  # killed at the bound while the prompt is still up
    # Nothing was inserted, and the next Tab is answered by a fresh helper.
    aish.child.send(" ")
    aish.child.sendcontrol("u")
    _tab(aish, "mycmd zebr", "a-crossing")
    _enter_shows(aish, "mycmd got zebra-crossing")


def test_completing_leaves_the_users_shell_alone(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    aish = _aish(home, terminals, model)
    aish.type_line("false")
    aish.expect(r"\[1\]>")  # the prompt shows the status
    _tab(aish, "mycmd zebr", "a-crossing")  # a completion function ran (in the helper)
    aish.child.sendcontrol("u")
    _tab(aish, "echo $AISH_TEST_V", "ARIABLE")
    aish.child.sendcontrol("u")
    _tab(aish, "cat ./only-in-st", "art.txt")
    aish.child.sendcontrol("u")
    _line_shows(aish, "echo status=$?", "status=1\r")
    _line_shows(aish, 'echo "ran=${COMPLETION_RAN-unset}"', "ran=unset")
    aish.type_line("history; echo history-$((1+1))-done")
    shown = aish.expect("history-2-done")
    aish.wait_prompt()
    assert "__aish" not in shown and "mycmd" not in shown and "compgen" not in shown
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=20)
    history = home / ".bash_history"
    written = history.read_text() if history.exists() else ""
    assert "__aish" not in written and "mycmd" not in written
    assert "echo status=$?" in written  # the user's own lines are there, as in bash


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_paths_variables_and_functions(
    home: Path, terminals: list[AishTerminal], model: str
) -> None:
    (home / ".zshrc").write_text(
        "export AISH_TEST_VARIABLE=from-zshrc\nzshfunc_kvbn() { echo hello from zsh; }\n"
    )
    aish = _aish(home, terminals, model + '[ui]\nshell = "zsh"\n')
    _quietly(aish, "cd sub")
    _tab(aish, "cat ./only-in-s", "ub.txt")
    _enter_shows(aish, "contents of the file in sub")
    _tab(aish, "echo $AISH_TEST_V", "ARIABLE")
    _enter_shows(aish, "from-zshrc")
    _tab(aish, "zshfunc_k", "vbn")
    _enter_shows(aish, "hello from zsh")


def test_parity_with_bash_for_a_path_after_cd_and_a_spec(home: Path) -> None:
    """The same keys in `bash -i` (with the same rc file) print the same output."""
    bash = pexpect.spawn(
        "bash",
        ["--noprofile", "--rcfile", str(home / ".bashrc"), "-i"],
        cwd=str(home / "work"),
        env={"HOME": str(home), "PATH": os.environ["PATH"], "TERM": "xterm", "PS1": "$ "},
        encoding="utf-8",
        dimensions=(40, 120),
        timeout=20,
    )
    try:
        bash.sendline("PS1='bash> '")
        bash.expect("bash> ")
        bash.sendline("cd sub")
        bash.expect("bash> ")
        bash.send("cat ./only-in-s\t\r")
        bash.expect("contents of the file in sub")
        bash.expect("bash> ")
        bash.send("mycmd zebr\t\r")
        bash.expect("mycmd got zebra-crossing")
    finally:
        bash.terminate(force=True)


def _enter_shows(aish: AishTerminal, output: str) -> None:
    """Press Enter and wait for the command's output, then for the next prompt (a prompt redrawn
    around the completion menu must not pass for the next one)."""
    _line_shows(aish, "", output)


def _line_shows(aish: AishTerminal, line: str, output: str) -> None:
    aish.type_line(line)
    aish.expect(re.escape(output))
    aish.wait_prompt()


def _quietly(aish: AishTerminal, command: str) -> None:
    """Run a command that prints nothing and wait until it has run."""
    _line_shows(aish, f"{command} && echo ran-$((20+1))-ok", "ran-21-ok")


def _wait_for_pid(path: Path, timeout_s: float = 30.0) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return int(text)
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared: the slow spec did not start")


def _wait_gone(pid: int, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} is still running")
