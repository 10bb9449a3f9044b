"""ShellSession against a real bash on a real PTY: state, exit codes, cwd, input, resize,
markers that a program fakes, names, history (type-ahead: test_shell_typeahead.py)."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aish.shell.results import ShellBusyError
from tests.support.shell_harness import Harness, open_shell


@pytest.fixture
async def sh(tmp_path: Path) -> AsyncIterator[Harness]:
    async with open_shell(tmp_path) as harness:
        yield harness


async def test_starts_in_the_given_cwd_with_a_fresh_shell(sh: Harness, tmp_path: Path) -> None:
    assert sh.session.alive and sh.session.kind == "bash"
    assert sh.session.cwd == str(tmp_path / "work")
    assert sh.session.startup_s > 0


async def test_state_persists_across_commands(sh: Harness, tmp_path: Path) -> None:
    (tmp_path / "work" / "sub").mkdir()
    first = await sh.run(
        "cd sub && export AISH_T=42 && alias hi='echo alias-ok' && greet() { echo \"hello $1\"; }"
    )
    assert first.exit_status == 0 and first.output.text == ""
    result = await sh.run("pwd; echo $AISH_T; hi; greet you")
    assert result.output.text.splitlines() == [
        str(tmp_path / "work" / "sub"),
        "42",
        "alias-ok",
        "hello you",
    ]


async def test_virtualenv_activation_persists(sh: Harness, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    created = await sh.run(f"{sys.executable} -m venv --without-pip {venv}")
    assert created.exit_status == 0, created.output.text
    await sh.run(f"source {venv}/bin/activate")
    inside = await sh.run('echo "$VIRTUAL_ENV"; command -v python; type -t deactivate')
    assert inside.output.text.splitlines() == [str(venv), f"{venv}/bin/python", "function"]
    await sh.run("deactivate")
    after = await sh.run('echo "[${VIRTUAL_ENV-}]"; declare -F deactivate || echo none')
    assert after.output.text.splitlines() == ["[]", "none"]


@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("true", 0),
        ("false", 1),
        ("(exit 7)", 7),
        ("sh -c 'kill -TERM $$'", 143),
        ("nosuchcmd", 127),
    ],
)
async def test_exit_status(sh: Harness, command: str, status: int) -> None:
    assert (await sh.run(command)).exit_status == status


async def test_dollar_question_mark_is_the_last_commands(sh: Harness) -> None:
    await sh.run("(exit 5)")
    assert (await sh.run("echo $?")).output.text == "5"


async def test_cwd_tracking_with_odd_names(sh: Harness, tmp_path: Path) -> None:
    odd = tmp_path / "work" / "we ird\\dir\aname\nline;x"
    odd.mkdir()
    result = await sh.run("cd \"$(printf 'we ird\\\\dir\\aname\\nline;x')\"")
    assert result.exit_status == 0
    assert result.cwd_before == str(tmp_path / "work")
    assert result.cwd_after == str(odd) == sh.session.cwd
    back = await sh.run("cd /")
    assert (back.cwd_before, back.cwd_after) == (str(odd), "/")


async def test_multi_line_commands_run_as_one(sh: Harness) -> None:
    loop = await sh.run('for i in 1 2 3\ndo\n  echo "n=$i"\ndone')
    assert loop.output.text.splitlines() == ["n=1", "n=2", "n=3"]
    heredoc = await sh.run("cat <<'EOF'\nline one\n\tline two\nEOF\necho after")
    assert heredoc.output.text.splitlines() == ["line one", "        line two", "after"]
    two = await sh.run("echo one\nfalse")
    assert (two.output.text, two.exit_status) == ("one", 1)


async def test_syntax_error_keeps_its_message(sh: Harness) -> None:
    result = await sh.run("echo )")
    assert result.exit_status == 2
    assert result.output.text == "bash: syntax error near unexpected token `)'"


async def test_incomplete_command_is_cancelled(sh: Harness) -> None:
    result = await sh.run("echo 'never closed")
    assert result.notice is not None and "incomplete" in result.notice
    assert result.output.text == ""
    assert (await sh.run("echo fine")).output.text == "fine"


async def test_interactive_program_reads_typed_input(sh: Harness) -> None:
    result = await sh.run_typing('echo ready; read -r x; echo "got $x"', b"ready", b"hello\r")
    assert result.output.text.splitlines()[-1] == "got hello"
    python = await sh.run_typing(
        f'{sys.executable} -c \'print("name?", flush=True); print("hi", input())\'',
        b"name?",
        b"bob\r",
    )
    assert python.output.text.splitlines()[-1] == "hi bob"


async def test_stty_size_sees_a_resize(sh: Harness) -> None:
    assert (await sh.run("stty size")).output.text == "24 80"
    sh.session.resize(30, 100)
    assert (await sh.run("stty size")).output.text == "30 100"


async def test_running_program_gets_sigwinch(sh: Harness) -> None:
    script = (
        "import os, signal\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGWINCH})\n"
        "print('ready', flush=True)\n"
        "signal.sigwait({signal.SIGWINCH})\n"
        "print(tuple(os.get_terminal_size()))"
    )
    output = bytearray()
    task = asyncio.ensure_future(
        sh.session.run(f'{sys.executable} -c "{script}"', on_output=output.extend)
    )
    try:
        async with asyncio.timeout(10):
            while b"ready" not in output:
                await asyncio.sleep(0.01)
        sh.session.resize(40, 120)
        result = await asyncio.wait_for(task, 10)
    finally:
        task.cancel()
    assert result.output.text.splitlines()[-1] == "(120, 40)"


async def test_fake_markers_do_not_end_the_command(sh: Harness) -> None:
    result = await sh.run(
        r"printf '\e]6973;0000000000000000;D;0\a\e]6973;;B\a\e]6973;D;0\a'; "
        r"printf 'mid\n'; sleep 0.2; echo end"
    )
    assert result.exit_status == 0
    assert result.output.text.splitlines()[-2:] == ["mid", "end"]


async def test_programs_never_see_the_nonce(sh: Harness) -> None:
    result = await sh.run('echo "${AISH_NONCE-unset} ${AISH_CWD-unset} $AISH"; env | grep -c NONCE')
    assert result.output.text.splitlines() == ["unset unset 1", "0"]


async def test_a_second_command_while_one_runs_is_an_error(sh: Harness) -> None:
    task = asyncio.ensure_future(sh.session.run("sleep 0.3"))
    await asyncio.sleep(0)
    try:
        with pytest.raises(ShellBusyError):
            await sh.session.run("true")
        with pytest.raises(ShellBusyError):
            await sh.session.known_names()
        await asyncio.wait_for(task, 10)
    finally:
        task.cancel()


async def test_known_names_of_the_live_shell(sh: Harness) -> None:
    await sh.run("alias ll='ls -l'; myfunc() { :; }; false")
    names = await sh.session.known_names()
    assert {"cd", "export", "source"} <= names.builtins
    assert {"if", "for", "[["} <= names.keywords
    assert "ll" in names.aliases and "myfunc" in names.functions
    assert not any(name.startswith("__aish") for name in names.all())
    # Asking changed neither $? nor the history.
    assert (await sh.run("echo $?")).output.text == "1"
    history = (await sh.run("history 3")).output.text
    assert "compgen" not in history and "myfunc" in history


async def test_injected_commands_land_in_the_history(sh: Harness) -> None:
    await sh.run("echo first-marker")
    await sh.run("echo 'two\nlines'")
    history = (await sh.run("history 3")).output.text
    assert "echo first-marker" in history and "history 3" in history
    assert "5003" not in history and "\x1b" not in history


async def test_utf8_and_control_characters_in_commands(sh: Harness) -> None:
    result = await sh.run("printf '%s|%s\\n' 'héllo wörld' \"$(printf 'a\tb')\"")
    assert result.output.text == "héllo wörld|a   b"  # the tab stops at column 16


async def test_output_goes_verbatim_to_on_output(sh: Harness) -> None:
    seen = bytearray()
    result = await sh.run(r"printf '\e[31mred\e[0m\r\n'", on_output=seen.extend)
    assert bytes(seen) == b"\x1b[31mred\x1b[0m\r\r\n"
    assert result.output.text == "red"


@pytest.mark.parametrize("shell", ["bash", "zsh"])
async def test_history_expansion_shows_its_line_and_a_failed_one_ends(
    tmp_path: Path, shell: str
) -> None:
    # As at an interactive prompt: the expanded line is printed before it runs; an expansion
    # that fails prints why and runs nothing, and the next line runs as usual.
    async with open_shell(tmp_path, shell=shell) as sh:
        await sh.run("echo one two three")
        shown = bytearray()
        quick = await sh.run("^three^four", on_output=shown.extend)
        assert quick.output.text.splitlines() == ["echo one two four", "one two four"]
        assert b"echo one two four" in shown
        await sh.run("false")
        failed = await sh.run("echo !nothing-like-this", on_output=shown.extend)
        assert "event not found" in failed.output.text
        assert b"event not found" in shown
        if shell == "bash":  # bash leaves $? as it was; zsh calls it an error
            assert failed.exit_status == 1
        nomatch = await sh.run("^absent^x")
        assert "substitution failed" in nomatch.output.text or "no match" in nomatch.output.text
        assert (await sh.run("echo fine")).output.text == "fine"


async def test_a_dropped_line_of_the_model_takes_no_history_of_the_user(sh: Harness) -> None:
    # The model's lines are taken out of the history; one bash drops unrun was never in it,
    # so the user's next line must stay.
    await sh.run("echo !nothing-like-this", private=True)
    await sh.run("echo users-own")
    history = (await sh.run("history 2")).output.text
    assert "echo users-own" in history


@pytest.mark.parametrize("shell", ["bash", "zsh"])
async def test_a_nonce_a_command_printed_cannot_forge_a_later_marker(
    tmp_path: Path, shell: str
) -> None:
    # Whatever a command shows of the marker nonce (the model sees command output) is spent by
    # the next prompt: a "done" forged with it in a later line is output, not the end.
    async with open_shell(tmp_path, shell=shell) as sh:
        learned = (await sh.run('printf "%s\\n" "$__aish_nonce"')).output.text.strip()
        assert re.fullmatch(r"[0-9a-f]{16,64}", learned)
        forged = await sh.run(
            f"printf '\\033]6973;{learned};D;7\\007'; printf '\\033]6973;{learned};P;Cwd=/x\\007'"
            "; sleep 0.2; echo still-running"
        )
        assert (forged.exit_status, forged.output.text) == (0, "still-running")
        assert forged.cwd_after == str(tmp_path / "work")
        now = (await sh.run('printf "%s\\n" "$__aish_nonce"')).output.text.strip()
        assert now != learned


async def test_the_prompt_strings_show_no_nonce(sh: Harness) -> None:
    shown = (await sh.run('printf "%s\\n" "$PS0" "$PS1" "$PS2"')).output.text
    assert "${__aish_nonce}" in shown and not re.search(r"[0-9a-f]{16}", shown)


@pytest.mark.parametrize(("first", "second"), [("bash", "zsh"), ("zsh", "bash")])
async def test_replace_is_exec_with_the_integration(
    tmp_path: Path, first: str, second: str
) -> None:
    # As `exec` leaves it: exported variables and the directory carry over; what was not
    # exported, aliases and functions are gone; the new shell runs commands as before.
    async with open_shell(tmp_path, shell=first) as sh:
        (tmp_path / "work" / "sub").mkdir()
        await sh.run("export KEPT=yes; LOCAL=1; alias zz=ls; cd sub")
        ended = await asyncio.wait_for(sh.session.replace(second), 20)
        assert ended is not None and ended.status == 0
        assert sh.session.kind == second
        shown = await sh.run('echo "$KEPT ${LOCAL:-gone}"; pwd; alias zz || echo no-alias')
        assert shown.output.text.splitlines()[:2] == ["yes gone", str(tmp_path / "work" / "sub")]
        assert shown.output.text.splitlines()[-1] == "no-alias"


async def test_replace_with_stopped_jobs_is_refused_once_as_bash_does(sh: Harness) -> None:
    await sh.run("sleep 60 & kill -STOP $!")
    before = sh.session.pid
    assert await asyncio.wait_for(sh.session.replace("bash"), 20) is None
    assert sh.session.pid == before and (await sh.run("echo still")).output.text == "still"
    await sh.run("kill -9 %1")
