"""The marker protocol driven by scripted byte streams (no shell), and the launch helpers."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from aish.shell.capture import OutputCapture
from aish.shell.launch import choose_shell, shell_environment, shell_kind, write_rc_files
from aish.shell.markers import marker_bytes
from aish.shell.protocol import (
    END_OF_INPUT,
    KILL_LINE,
    MARK_INJECTED,
    QUOTE_NEXT,
    REINSTALL_HOOKS,
    REPORT_NAMES,
    NameQuery,
    PendingCommand,
    Phase,
    ShellProtocol,
    encode_command,
    strip_echo,
)
from aish.shell.results import KnownNames, ShellExit, death_notice

NONCE = "0123456789abcdef"


def m(kind: str, value: str | None = None) -> bytes:
    return marker_bytes(NONCE, kind, value)


PROMPT = m("A", "0") + m("B")


class Host:
    """Records the effects the protocol asks for."""

    def __init__(self) -> None:
        self.typed = bytearray()
        self.bg = bytearray()
        self.ended = 0
        self.handed_back = b""
        self.cancels = 0

    def write(self, data: bytes) -> None:
        self.typed += data

    def end_input(self) -> None:
        self.ended += 1

    def take_typeahead(self) -> bytes:
        return self.handed_back

    def background(self, data: bytes) -> None:
        self.bg += data

    def phase_changed(self) -> None:
        pass

    def cancel_continuation(self) -> None:
        self.cancels += 1


def ready_protocol() -> tuple[ShellProtocol, Host]:
    host = Host()
    protocol = ShellProtocol(host)
    protocol.starting(NONCE)
    protocol.feed(b"rc says hi\r\n" + m("D", "0") + m("P", "Cwd=/home/u") + PROMPT)
    assert protocol.phase is Phase.READY and protocol.cwd == "/home/u"
    assert bytes(host.bg) == b"rc says hi\r\n"
    host.bg.clear()
    return protocol, host


def command(text: str, sink: bytearray | None = None) -> PendingCommand:
    return PendingCommand(
        text=text,
        capture=OutputCapture(),
        sinks=(sink.extend,) if sink is not None else (),
        cwd_before="/home/u",
        done=asyncio.get_running_loop().create_future(),
    )


def test_encode_command_quotes_control_bytes_and_marks_the_line() -> None:
    encoded = encode_command("printf 'a\tb'\necho é\n\n")
    assert encoded.startswith(KILL_LINE) and encoded.endswith(MARK_INJECTED + b"\r")
    body = encoded[len(KILL_LINE) : -len(MARK_INJECTED) - 1]
    assert body == (b"printf 'a" + QUOTE_NEXT + b"\tb'" + QUOTE_NEXT + b"\necho \xc3\xa9")


def test_strip_echo_skips_one_line_per_command_line() -> None:
    echo = b"echo a\r\n\recho )\r\nbash: syntax error\r\n"
    assert strip_echo(echo, "echo a\necho )") == b"bash: syntax error\r\n"
    assert strip_echo(b"partial", "x") == b""


async def test_a_command_from_echo_to_prompt() -> None:
    protocol, host = ready_protocol()
    shown = bytearray()
    cmd = command("ls", shown)
    protocol.inject(cmd)
    assert bytes(host.typed) == encode_command("ls")
    # The redraw and echo before C are dropped; output is split across feeds anywhere.
    stream = (
        b"ls\r\x1b[K\r" + PROMPT + b"ls\r\n" + m("C", "1") + b"a.txt\r\nb.txt\r\n"
        + m("D", "0") + m("P", "Cwd=/tmp") + PROMPT
    )  # fmt: skip
    for i in range(0, len(stream), 7):
        protocol.feed(stream[i : i + 7])
    result = await cmd.done
    assert (result.exit_status, result.cwd_before, result.cwd_after) == (0, "/home/u", "/tmp")
    assert result.output.text == "a.txt\nb.txt"
    assert bytes(shown) == b"a.txt\r\nb.txt\r\n"
    assert host.ended == 1 and protocol.phase is Phase.READY and host.bg == b""
    assert bytes(host.typed) == encode_command("ls") + END_OF_INPUT  # after D: input ends
    assert result.typeahead == b""


async def test_keys_typed_ahead_follow_the_line_and_what_is_unread_comes_back() -> None:
    protocol, host = ready_protocol()
    cmd = command("echo E1")
    cmd.typeahead = b"echo E2\recho E3\r"
    protocol.inject(cmd)
    # Typed after the line, as bash would find them waiting when the line is accepted.
    assert bytes(host.typed) == encode_command("echo E1") + b"echo E2\recho E3\r"
    protocol.feed(b"echo E1\r\n" + m("C", "1") + b"E1\r\n" + m("D", "0"))
    # On D the relay stops, then the key that ends the user's input: nothing can follow it.
    assert host.ended == 1 and bytes(host.typed).endswith(END_OF_INPUT)
    host.handed_back = b"echo E2\recho E3\r"
    # The terminal may echo the key before the shell turns echo off: that is nobody's output.
    protocol.feed(b"^[[5009~" + m("P", "Cwd=/home/u") + PROMPT)
    assert (await cmd.done).typeahead == b"echo E2\recho E3\r"
    assert host.bg == b""


async def test_a_line_that_runs_nothing_ends_the_input_too() -> None:
    protocol, host = ready_protocol()
    cmd = command("echo )")
    protocol.inject(cmd)
    host.handed_back = b"ls\r"
    protocol.feed(b"echo )\r\nbash: syntax error\r\n" + m("D", "2") + PROMPT)
    result = await cmd.done
    assert (result.exit_status, result.typeahead, host.ended) == (2, b"ls\r", 1)


async def test_a_typed_ahead_line_runs_first_and_is_background() -> None:
    protocol, host = ready_protocol()
    cmd = command("echo mine")
    protocol.inject(cmd)
    protocol.feed(
        b"echo theirs\r\n" + m("C", "0") + b"theirs\r\n" + m("D", "0") + PROMPT
        + b"echo mine\r\n" + m("C", "1") + b"mine\r\n" + m("D", "0") + PROMPT
    )  # fmt: skip
    assert (await cmd.done).output.text == "mine"
    assert b"theirs\r\n" in host.bg


async def test_a_line_that_runs_nothing_keeps_the_error() -> None:
    protocol, _host = ready_protocol()
    cmd = command("echo )")
    protocol.inject(cmd)
    protocol.feed(b"echo )\r\nbash: syntax error near `)'\r\n" + m("D", "2") + PROMPT)
    result = await cmd.done
    assert (result.exit_status, result.output.text) == (2, "bash: syntax error near `)'")


async def test_a_line_the_shell_drops_unrun_ends_at_the_next_prompt() -> None:
    # A failed history expansion: no C, no D; bash's next prompt says the line was dropped
    # (`1`) and counts the prompt. A key binding's redraw repeats the prompt it redraws, flag
    # and count alike, and is no such end.
    protocol, host = ready_protocol()
    shown = bytearray()
    cmd = command("echo !nope", shown)
    protocol.inject(cmd)
    dropped_before = m("A", "0;1;7") + m("B")
    protocol.feed(b"echo !nope\r\x1b[K\r" + m("A", "0;0;8") + m("B"))
    assert protocol.phase is Phase.INJECTED
    protocol.feed(b"echo !nope\r\n" + b"bash: !nope: event not found\r\n" + dropped_before)
    assert protocol.phase is Phase.READY
    result = await cmd.done
    assert (result.exit_status, result.output.text) == (0, "bash: !nope: event not found")
    assert bytes(shown) == b"bash: !nope: event not found\r\n"
    # The relay of keys stopped, but no END_OF_INPUT: no hook is there to read it.
    assert host.ended == 1 and not bytes(host.typed).endswith(END_OF_INPUT)

    again = command("ls")
    protocol.inject(again)
    # The redraw after aish's key reprints the last prompt, `1` included: not an end.
    protocol.feed(b"ls\r\x1b[K\r" + dropped_before + b"ls\r\n" + m("C", "1") + b"a\r\n")
    assert protocol.phase is Phase.RUNNING
    protocol.feed(m("D", "0") + m("A", "0;0;8") + m("B"))
    assert (await again.done).output.text == "a"


async def test_the_line_a_history_expansion_made_is_shown_before_its_output() -> None:
    protocol, _host = ready_protocol()
    shown = bytearray()
    cmd = command("!!", shown)
    protocol.inject(cmd)
    protocol.feed(b"!!\r\n" + b"echo three\r\n" + m("C", "1") + b"three\r\n" + m("D", "0") + PROMPT)
    result = await cmd.done
    assert result.output.text == "echo three\nthree"
    assert bytes(shown) == b"echo three\r\nthree\r\n"


async def test_a_continuation_prompt_is_cancelled() -> None:
    protocol, host = ready_protocol()
    cmd = command("echo 'open")
    protocol.inject(cmd)
    protocol.feed(b"echo 'open\r\n" + m("F"))
    assert host.cancels == 1 and protocol.awaiting_continuation
    protocol.feed(m("F") + b"^C\r\n" + m("D", "130") + PROMPT)
    result = await cmd.done
    assert host.cancels == 1
    assert result.exit_status == 130 and result.notice is not None
    assert not protocol.awaiting_continuation


async def test_a_prompt_without_done_finishes_and_restores_the_hooks() -> None:
    protocol, host = ready_protocol()
    cmd = command("PROMPT_COMMAND=; false")
    protocol.inject(cmd)
    host.typed.clear()
    protocol.feed(m("C", "1") + m("A", "1") + m("B"))
    result = await cmd.done
    assert result.exit_status == 1 and result.notice is not None
    assert bytes(host.typed) == REINSTALL_HOOKS


async def test_detached_command_output_becomes_background() -> None:
    protocol, host = ready_protocol()
    shown = bytearray()
    cmd = command("sleep 1; echo late", shown)
    protocol.inject(cmd)
    protocol.feed(m("C", "1") + b"early\r\n")
    cmd.detached = True
    protocol.feed(b"late\r\n" + m("D", "0") + PROMPT)
    assert bytes(shown) == b"early\r\n" and bytes(host.bg) == b"late\r\n"
    assert protocol.phase is Phase.READY


async def test_display_noise_between_commands_is_dropped() -> None:
    protocol, host = ready_protocol()
    protocol.feed(b"\x1b[K\x1b[?1h\x1b=\x1b[?2004h\x1b[K")
    protocol.feed(b"\r\x1b[K\r")
    assert host.bg == b""
    protocol.feed(b"\x1b[32mjob done\x1b[0m\r\n")
    assert bytes(host.bg) == b"\x1b[32mjob done\x1b[0m\r\n"


async def test_names_report() -> None:
    protocol, host = ready_protocol()
    query = NameQuery(asyncio.get_running_loop().create_future())
    protocol.ask_names(query)
    assert bytes(host.typed) == REPORT_NAMES
    protocol.feed(
        b"\r\x1b[K\r" + m("K", "builtins") + b"cd\r\necho\r\n" + m("K", "keywords") + b"if\r\n"
        + m("K", "aliases") + m("K", "functions") + b"f\r\n__aish_precmd\r\n" + m("K", "end")
        + PROMPT
    )  # fmt: skip
    names = await query.done
    assert names == KnownNames(
        builtins=frozenset({"cd", "echo"}),
        keywords=frozenset({"if"}),
        aliases=frozenset(),
        functions=frozenset({"f"}),
    )
    assert names.all() == {"cd", "echo", "if", "f"}
    assert protocol.phase is Phase.READY and host.bg == b""


def test_shell_kind_and_choice(tmp_path: Path) -> None:
    assert [shell_kind(p) for p in ("/bin/bash", "zsh", "/opt/bash-5.2", "/usr/bin/fish")] == [
        "bash",
        "zsh",
        "bash",
        None,
    ]
    env = {"PATH": os.environ["PATH"], "SHELL": "/usr/bin/fish"}
    path, kind = choose_shell(None, env)
    assert kind == "bash" and os.path.isabs(path)
    with pytest.raises(ValueError, match="bash and zsh"):
        choose_shell("fish", env)


def test_shell_environment_hides_size_and_carries_the_nonce() -> None:
    env = shell_environment(
        {"COLUMNS": "80", "LINES": "24", "ZDOTDIR": "/z", "HOME": "/h"},
        "zsh",
        nonce="n",
        cwd="/w",
        extra={"ZDOTDIR": "/aish"},
    )
    assert "COLUMNS" not in env and "LINES" not in env
    assert env["AISH_USER_ZDOTDIR"] == "/z" and env["ZDOTDIR"] == "/aish"
    assert (env["AISH_NONCE"], env["AISH_CWD"], env["AISH"]) == ("n", "/w", "1")


def test_rc_files(tmp_path: Path) -> None:
    args, extra = write_rc_files("bash", tmp_path)
    assert args[:2] == ["--noprofile", "--rcfile"] and args[-1] == "-i" and extra == {}
    assert "__aish_precmd" in Path(args[2]).read_text()
    args, extra = write_rc_files("zsh", tmp_path / "z")
    assert args == ["-i"] and extra == {"ZDOTDIR": str(tmp_path / "z")}
    assert (tmp_path / "z" / ".zshrc").read_text().count("source") == 2


def test_death_notice_text() -> None:
    exited = ShellExit.from_wait_status(3 << 8)
    assert exited.status == 3
    assert death_notice(exited, "/w") == (
        "the shell exited (status 3); started a new one in /w — "
        "its variables, aliases and functions are gone"
    )
    killed = ShellExit(None, signal.SIGKILL)
    assert killed.status == 137 and killed.describe() == "the shell was killed by SIGKILL"


def test_importing_the_session_stays_light() -> None:
    code = (
        "import sys, aish.shell.session, aish.shell.terminal\n"
        "heavy = {'httpx', 'pydantic', 'prompt_toolkit', 'rich', 'pyte'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
