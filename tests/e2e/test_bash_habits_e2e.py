"""Bash's everyday habits, typed like a person into a real aish and into `bash --norc -i` in the
same harness: what bash does is what aish must do (parity tests)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from ..conftest import ServeFn
from .conftest import PROMPT, AishTerminal, spawn_aish
from .tmux_pane import AFTER_EXIT, TmuxPane, require_tmux

BASH_PROMPT = r"\$ "


def _config(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def _env(home: Path) -> dict[str, str]:
    """What spawn_aish gives aish, for bash too."""
    return {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "SHELL": "/bin/bash",
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_DATA_HOME": str(home / ".data"),
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "PS1": "$ ",
    }


def _spawn_bash(home: Path) -> pexpect.spawn:
    child = pexpect.spawn(
        "bash",
        ["--norc", "-i"],
        cwd=str(home / "work"),
        env=_env(home),
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(40, 120),
        timeout=20,
    )
    child.expect(BASH_PROMPT)
    return child


@pytest.fixture
def bashes() -> Iterator[list[pexpect.spawn]]:
    opened: list[pexpect.spawn] = []
    yield opened
    for child in opened:
        if child.isalive():
            child.terminate(force=True)


@pytest.fixture
def sleepers() -> Iterator[list[int]]:
    """Pids of background jobs a test leaves behind on purpose: killed afterwards."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead; its parent (init, after the shell went) reaps it soon.
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return True


def _still_alive(pid: int, for_s: float = 1.0) -> bool:
    """Alive now and a moment later: a hang-up, if any, has had its chance to land."""
    deadline = time.monotonic() + for_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return False
        time.sleep(0.1)
    return _alive(pid)


def _gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


# ---- Ctrl-R, then Enter runs the line found --------------------------------------------------


def test_enter_after_ctrl_r_runs_the_line_found_as_in_bash(
    serve: ServeFn,
    aish_home: Path,
    terminals: list[AishTerminal],
    bashes: list[pexpect.spawn],
) -> None:
    server = serve({"default": {"text": "nobody should ask me"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    assert "found-42" in aish.run("echo found-$((6*7))")
    assert "other" in aish.run("echo other")
    aish.child.sendcontrol("r")
    aish.child.send("found")
    aish.expect(re.escape("-$((6*7))"))  # the search shows the line found (match highlighted)
    aish.child.send("\r")
    shown = aish.wait_prompt()
    assert "found-42" in shown  # it ran: no second Enter needed

    bash = _spawn_bash(aish_home)
    bashes.append(bash)
    for line in ("echo found-$((6*7))", "echo other"):
        bash.send(line + "\r")
        bash.expect(BASH_PROMPT)
    bash.sendcontrol("r")
    bash.send("found")
    bash.expect(re.escape("-$((6*7))"))
    bash.send("\r")
    bash.expect("found-42")  # bash: the same keys ran the same line (the line reads $((6*7)))
    bash.expect(BASH_PROMPT)

    assert server.requests == []  # nothing above was a question for the model


# ---- exit leaves running jobs alone, warns once for stopped ones ------------------------------


def test_exit_leaves_a_running_background_job_running_as_bash_does(
    serve: ServeFn,
    aish_home: Path,
    terminals: list[AishTerminal],
    bashes: list[pexpect.spawn],
    sleepers: list[int],
) -> None:
    server = serve({"default": {"text": "nobody should ask me"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.type_line("sleep 300 & echo pid=$!")
    aish.expect(r"pid=(\d+)")
    pid = int(aish.child.match.group(1))
    sleepers.append(pid)
    aish.wait_prompt()
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=20)
    aish.child.close()
    assert aish.child.exitstatus == 0
    assert _still_alive(pid), "aish's exit killed the background job"

    bash = _spawn_bash(aish_home)
    bashes.append(bash)
    bash.send("sleep 300 & echo pid=$!\r")
    bash.expect(r"pid=(\d+)")
    bash_pid = int(bash.match.group(1))
    sleepers.append(bash_pid)
    bash.expect(BASH_PROMPT)
    bash.send("exit\r")
    bash.expect(pexpect.EOF)
    assert _still_alive(bash_pid)  # the reference: bash leaves it running too
    assert server.requests == []


def test_exit_with_a_stopped_job_warns_once_then_exits_as_bash_does(
    serve: ServeFn,
    aish_home: Path,
    terminals: list[AishTerminal],
    bashes: list[pexpect.spawn],
    sleepers: list[int],
) -> None:
    server = serve({"default": {"text": "nobody should ask me"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.type_line("sleep 301")
    _wait_for_process("sleep 301")
    aish.child.sendcontrol("z")
    assert "Stopped" in aish.wait_prompt()
    stopped = _wait_for_process("sleep 301")
    sleepers.append(stopped)

    aish.type_line("exit")
    warned = aish.wait_prompt()
    assert "There are stopped jobs." in warned
    assert aish.child.isalive()
    aish.type_line("exit")  # the second attempt, nothing in between: bash exits
    aish.child.expect(pexpect.EOF, timeout=20)
    aish.child.close()
    assert "There are stopped jobs." not in str(aish.child.before)  # warned once only
    assert _gone(stopped)  # bash ends its stopped jobs as it goes

    bash = _spawn_bash(aish_home)
    bashes.append(bash)
    bash.send("sleep 301\r")
    bash_stopped = _wait_for_process("sleep 301")
    sleepers.append(bash_stopped)
    bash.sendcontrol("z")
    bash.expect("Stopped")
    bash.expect(BASH_PROMPT)
    bash.send("exit\r")
    bash.expect("There are stopped jobs.")
    bash.expect(BASH_PROMPT)
    bash.send("exit\r")
    bash.expect(pexpect.EOF)
    assert _gone(bash_stopped)
    assert server.requests == []


def _wait_for_process(command_line: str, timeout: float = 20) -> int:
    """The pid of the newest process with exactly this command line (tests own their names)."""
    deadline = time.monotonic() + timeout
    while True:
        found = subprocess.run(
            ["pgrep", "-n", "-x", "-f", command_line], capture_output=True, text=True
        ).stdout.split()
        if found:
            return int(found[0])
        if time.monotonic() > deadline:
            raise AssertionError(f"no process {command_line!r}")
        time.sleep(0.05)


# ---- the user's history file holds what the user typed, nothing the model ran -----------------


def test_commands_run_for_the_model_never_reach_the_users_history_file(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    histfile = aish_home / ".bash_history"
    histfile.write_text("echo from-an-earlier-session\n")
    # `history -a` after every command, as many people have: a model's line must not be
    # written even for a moment.
    (aish_home / ".bashrc").write_text("PROMPT_COMMAND='history -a'\n")
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "show me"},
                    "reply": {"text": "Here:\nCMD: echo model-chat-$((2+3))\n"},
                },
            ],
            "default": {"text": "ok"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("echo typed-$((1+1))")
    aish.type_line("show me something")
    aish.expect(r"\[y\]es / \[e\]dit / \[n\]o / \[d\]escribe")
    aish.child.send("y")
    assert "model-chat-5" in aish.wait_prompt()  # it ran, in the user's shell
    aish.run("echo typed-again")
    assert histfile.read_text() == (
        "echo from-an-earlier-session\necho typed-$((1+1))\necho typed-again\n"
    )
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=20)
    aish.child.close()
    after_session = histfile.read_text()
    assert "model-chat" not in after_session
    assert after_session.startswith(
        "echo from-an-earlier-session\necho typed-$((1+1))\necho typed-again\n"
    )

    # `aish goal` runs its commands in a shell of its own: the file is not touched at all.
    goal_server = serve(
        {
            "rules": [
                {
                    "when": {},
                    "replies": [
                        {"text": "CMD: echo goal-step-$((3+4))"},
                        {"text": "GOAL: complete"},
                    ],
                }
            ]
        }
    )
    (aish_home / ".config" / "aish" / "config.toml").write_text(_config(goal_server.url))
    before = histfile.read_bytes(), histfile.stat().st_mtime_ns
    env = {k: v for k, v in _env(aish_home).items() if k != "PS1"}
    goal = subprocess.run(
        [sys.executable, "-m", "aish", "goal", "--yes-safe", "say hello"],
        cwd=aish_home / "work",
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert goal.returncode == 0, goal.stderr
    assert "goal-step-7" in goal.stdout  # it ran
    assert (histfile.read_bytes(), histfile.stat().st_mtime_ns) == before


# ---- the screen: Ctrl-D and full-screen programs leave it as bash does ------------------------


def _pane(tmp_path: Path, name: str, argv: list[str], home: Path) -> TmuxPane:
    pane = TmuxPane(tmp_path, name)
    env = _env(home)
    del env["PROMPT_TOOLKIT_NO_CPR"]  # tmux is a terminal: it answers
    env["TERM"] = "tmux-256color" if _has_terminfo("tmux-256color") else "screen"
    pane.start(argv, cwd=home / "work", env=env, cols=100, rows=30)
    return pane


def _has_terminfo(name: str) -> bool:
    return subprocess.run(["infocmp", name], capture_output=True).returncode == 0


_AISH_PROMPT = re.compile(PROMPT)


def _as_bash(lines: list[str]) -> list[str]:
    """aish's prompts written as bash's `$ `, trailing blank lines dropped."""
    shown = [_AISH_PROMPT.sub("$", line, count=1) for line in lines]
    while shown and not shown[-1].strip():
        shown.pop()
    return [line.rstrip() for line in shown]


def _prompts(lines: list[str]) -> int:
    return sum(1 for line in _as_bash(lines) if line.startswith("$"))


@pytest.fixture
def panes() -> Iterator[list[TmuxPane]]:
    opened: list[TmuxPane] = []
    yield opened
    for pane in opened:
        pane.kill()


def test_ctrl_d_and_full_screen_programs_leave_the_screen_as_bash_does(
    serve: ServeFn, aish_home: Path, tmp_path: Path, panes: list[TmuxPane]
) -> None:
    require_tmux()
    programs = [("less /etc/passwd", "q")]
    if shutil.which("vim"):
        programs.insert(0, ("vim -u NONE -N", ":q\r"))
    server = serve({"default": {"text": "nobody should ask me"}})
    config_dir = aish_home / ".config" / "aish"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.toml").write_text(_config(server.url))
    aish = _pane(tmp_path, "aish", [sys.executable, "-m", "aish"], aish_home)
    bash = _pane(tmp_path, "bash", ["bash", "--norc", "-i"], aish_home)
    panes.extend((aish, bash))

    screens = []
    for pane in (aish, bash):
        pane.wait_for(lambda lines: _prompts(lines) == 1, "the first prompt")
        pane.type_line("echo one")
        pane.wait_for(lambda lines: _prompts(lines) == 2, "the prompt after echo")
        for n, (program, quit_keys) in enumerate(programs, start=3):
            pane.type_line(program)
            # Full screen: the prompts are gone from view until it quits.
            pane.wait_for(lambda lines: _prompts(lines) == 0, f"{program} to take the screen")
            pane.keys("-l", quit_keys)
            pane.wait_for(lambda lines, n=n: _prompts(lines) == n, f"the prompt after {program}")
        pane.type_line("echo two")
        pane.wait_for(lambda lines: "two" in _as_bash(lines), "echo two")
        pane.keys("C-d")
        screens.append(
            _as_bash(pane.wait_for(lambda lines: AFTER_EXIT in lines, "the program to exit"))
        )
    aish_screen, bash_screen = screens
    assert aish_screen == bash_screen
    # What that means: no blank line anywhere, and after Ctrl-D the terminal's next output
    # starts on a line of its own, below `exit`.
    assert "" not in aish_screen
    assert aish_screen[-2:] == ["exit", AFTER_EXIT]
    assert server.requests == []


def test_zsh_keeps_the_models_commands_out_of_its_histfile_too(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    zsh = shutil.which("zsh")
    if zsh is None:
        pytest.skip("zsh is not installed")
    histfile = aish_home / ".zsh_history"
    histfile.write_text("echo from-an-earlier-session\n")
    # Written as each line is accepted: a model's line must not get there even for a moment.
    (aish_home / ".zshrc").write_text(
        f"HISTFILE={histfile}\nHISTSIZE=100\nSAVEHIST=100\nsetopt INC_APPEND_HISTORY\n"
    )
    server = serve(
        {
            "rules": [
                {"when": {"user": "show me"}, "reply": {"text": "CMD: echo model-zsh-$((2+3))\n"}},
                {
                    "when": {},
                    "replies": [
                        {"text": "CMD: echo goal-zsh-$((3+4))"},
                        {"text": "GOAL: complete"},
                    ],
                },
            ]
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url), extra_env={"SHELL": zsh})
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("echo typed-$((1+1))")
    aish.type_line("show me something")
    aish.expect(r"\[y\]es / \[e\]dit / \[n\]o / \[d\]escribe")
    aish.child.send("y")
    assert "model-zsh-5" in aish.wait_prompt()
    assert "goal-zsh-7" in aish.run(":norris say hello", timeout=60)  # the agent's own zsh
    aish.run("echo typed-again")
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=20)
    aish.child.close()
    assert histfile.read_text() == (
        "echo from-an-earlier-session\necho typed-$((1+1))\necho typed-again\nexit\n"
    )


# ---- history expansion: !!, ^old^new, and one that fails ---------------------------------------


def _shown_lines(text: str) -> list[str]:
    """The lines a command printed, without the echo of the typed line and terminal codes."""
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", text)
    lines = [line.strip() for line in plain.split("\n")]
    return [line for line in lines[1:] if line]


def test_history_expansion_prints_and_fails_as_in_bash(
    serve: ServeFn,
    aish_home: Path,
    terminals: list[AishTerminal],
    bashes: list[pexpect.spawn],
) -> None:
    keys = [
        "echo one two three",
        "^three^four",
        "!!",
        "echo !no-such-event",
        "^absent^x",
        "echo $?",
    ]
    server = serve({"default": {"text": "nobody should ask me"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    in_aish = [_shown_lines(aish.run(line)) for line in keys]

    bash = _spawn_bash(aish_home)
    bashes.append(bash)
    in_bash = []
    for line in keys:
        bash.send(line + "\r")
        bash.expect(BASH_PROMPT)
        in_bash.append(_shown_lines(str(bash.before)))

    assert in_bash[1] == ["echo one two four", "one two four"]  # the line it made, then its run
    assert "event not found" in in_bash[3][0] and in_bash[5] == ["0"]
    assert in_aish == in_bash
    assert server.requests == []  # `^three^four` is a line for bash, not a question


# ---- vi keys where the shell sets them --------------------------------------------------------

# `echo hello world`, Esc, `b` (back a word), `cw` (change it), `there`, Enter: vi keys make
# `hello there`; emacs keys take Esc-b as back a word and type the rest.
_VI_KEYS = "echo hello world\x1bbcwthere\r"


def test_set_o_vi_in_bashrc_gives_the_prompt_vi_keys_as_in_bash(
    serve: ServeFn,
    aish_home: Path,
    terminals: list[AishTerminal],
    bashes: list[pexpect.spawn],
) -> None:
    server = serve({"default": {"text": "nobody should ask me"}})
    with (aish_home / ".bashrc").open("a") as rc:
        rc.write("set -o vi\n")
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("true")  # the shell has told its keys by now, whenever the first prompt came
    aish.child.send(_VI_KEYS)
    assert "hello there" in aish.wait_prompt()
    # Typed at the prompt, as in bash: the next prompt has the keys the shell now has.
    aish.run("set -o emacs")
    aish.child.send(_VI_KEYS)
    assert "hello cwthereworld" in aish.wait_prompt()

    bash = _spawn_bash(aish_home)
    bashes.append(bash)
    bash.send("set -o vi\r")
    bash.expect(BASH_PROMPT)
    bash.send(_VI_KEYS)
    bash.expect("hello there")
    bash.expect(BASH_PROMPT)


def test_edit_mode_in_the_config_outranks_the_shell(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "nobody should ask me"}})
    with (aish_home / ".bashrc").open("a") as rc:
        rc.write("set -o vi\n")
    aish = spawn_aish(aish_home, config=_config(server.url) + '[ui]\nedit_mode = "emacs"\n')
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("true")
    aish.child.send(_VI_KEYS)
    assert "hello cwthereworld" in aish.wait_prompt()


# ---- exec bash: a fresh shell that reads the rc files again -----------------------------------


def test_exec_bash_reads_the_rc_files_again_as_in_bash(
    serve: ServeFn,
    aish_home: Path,
    terminals: list[AishTerminal],
    bashes: list[pexpect.spawn],
) -> None:
    keys = ["export KEPT=yes", "echo 'alias rcalias=\"echo from-rc\"' >> ~/.bashrc", "exec bash"]
    check = 'echo "$KEPT"; rcalias'
    server = serve({"default": {"text": "nobody should ask me"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    for line in keys:
        aish.run(line)
    in_aish = _shown_lines(aish.run(check))

    (aish_home / ".bashrc").write_text("alias ll='ls -l'\n")  # as the fixture wrote it
    bash = _spawn_bash(aish_home)
    bashes.append(bash)
    for line in keys:
        bash.send(line + "\r")
        if line == "exec bash":  # the new one reads /etc/bash.bashrc, which sets its own PS1
            bash.send("PS1='$ '\r")
            bash.expect(re.escape("PS1='$ '") + "\r\n")
        bash.expect(BASH_PROMPT)
    bash.send(check + "\r")
    bash.expect(BASH_PROMPT)
    in_bash = _shown_lines(str(bash.before))

    assert in_aish == ["yes", "from-rc"]
    assert in_bash == in_aish
    assert server.requests == []


# ---- Ctrl-C gives a line up, and the screen says so -------------------------------------------


def test_ctrl_c_leaves_the_abandoned_line_marked_as_in_bash(
    serve: ServeFn,
    aish_home: Path,
    terminals: list[AishTerminal],
    bashes: list[pexpect.spawn],
) -> None:
    server = serve({"default": {"text": "nobody should ask me"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.child.send("echo half typed")
    aish.expect("half typed")
    aish.child.sendcontrol("c")
    in_aish = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", aish.wait_prompt())

    bash = _spawn_bash(aish_home)
    bashes.append(bash)
    bash.send("echo half typed")
    bash.expect("half typed")
    bash.sendcontrol("c")
    bash.expect(BASH_PROMPT)
    in_bash = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", str(bash.before))

    assert "^C" in in_bash and "^C" in in_aish  # the line is shown given up, in both
    assert "half typed\n" not in in_aish and "half typed\n" not in in_bash  # and never ran
    assert server.requests == []
