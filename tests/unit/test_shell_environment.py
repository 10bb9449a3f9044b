"""The exported-variables report: the protocol's side (scripted markers, no shell) and parsing
the file the shell writes."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

from aish.shell.environment import DROPPED, parse_environment, prepare_report, report_path
from aish.shell.markers import marker_bytes
from aish.shell.protocol import REPORT_ENV, EnvQuery, Phase, ShellProtocol
from tests.unit.test_shell_protocol import NONCE, PROMPT, Host

REDRAW = b"\r\x1b[K\r"


def m(kind: str, value: str | None = None) -> bytes:
    return marker_bytes(NONCE, kind, value)


def ready_protocol() -> tuple[ShellProtocol, Host]:
    host = Host()
    protocol = ShellProtocol(host)
    protocol.starting(NONCE)
    protocol.feed(m("D", "0") + m("P", "Cwd=/home/u") + PROMPT)
    assert protocol.phase is Phase.READY
    return protocol, host


async def test_the_query_ends_at_its_marker_and_shows_nothing() -> None:
    protocol, host = ready_protocol()
    query = EnvQuery(asyncio.get_running_loop().create_future())
    protocol.ask_environment(query)
    assert bytes(host.typed) == REPORT_ENV and protocol.phase is Phase.QUERY
    protocol.feed(REDRAW + m("E", "0") + REDRAW + PROMPT)
    assert await query.done == 0
    assert protocol.phase is Phase.READY and protocol.query is None and host.bg == b""


async def test_a_failed_write_reports_its_status() -> None:
    protocol, _ = ready_protocol()
    query = EnvQuery(asyncio.get_running_loop().create_future())
    protocol.ask_environment(query)
    protocol.feed(m("E", "1"))
    assert await query.done == 1


async def test_a_forgotten_query_ignores_its_late_answer() -> None:
    protocol, _ = ready_protocol()
    query = EnvQuery(asyncio.get_running_loop().create_future())
    protocol.ask_environment(query)
    protocol.forget_query(query)
    assert protocol.phase is Phase.READY
    protocol.feed(m("E", "0") + m("K", "end") + PROMPT)
    assert not query.done.done() and protocol.phase is Phase.READY


async def test_a_names_marker_does_not_answer_an_environment_query() -> None:
    protocol, _ = ready_protocol()
    query = EnvQuery(asyncio.get_running_loop().create_future())
    protocol.ask_environment(query)
    protocol.feed(m("K", "builtins") + b"cd\r\n" + m("K", "end"))
    assert not query.done.done() and protocol.phase is Phase.QUERY


def test_parse_splits_at_nul_then_at_the_first_equals(tmp_path: Path) -> None:
    data = b"A=1\0MULTI=x\ny=z\r\n\x1b]6973;n;D;0\x07\0EMPTY=\0\0NOEQUALS\0=nameless\0"
    assert parse_environment(data, rcfile_dir=tmp_path) == {
        "A": "1",
        "MULTI": "x\ny=z\r\n\x1b]6973;n;D;0\x07",
        "EMPTY": "",
    }


def test_bytes_that_are_not_utf8_round_trip(tmp_path: Path) -> None:
    env = parse_environment(b"RAW=caf\xe9\xff\0", rcfile_dir=tmp_path)
    assert os.fsencode(env["RAW"]) == b"caf\xe9\xff"


def test_what_describes_the_shell_is_dropped(tmp_path: Path) -> None:
    assert {"PWD", "OLDPWD", "SHLVL", "_", "PS1", "PROMPT_COMMAND", "AISH_NONCE"} <= DROPPED
    names = [*sorted(DROPPED), "__aish_nonce", "__aish_ps1"]
    data = b"".join(f"{name}=v\0".encode() for name in names)
    assert parse_environment(data + b"KEEP=1\0", rcfile_dir=tmp_path) == {"KEEP": "1"}


def test_only_aish_s_own_zdotdir_is_dropped(tmp_path: Path) -> None:
    ours = f"ZDOTDIR={tmp_path}/\0".encode()
    assert parse_environment(ours, rcfile_dir=tmp_path) == {}
    users = b"ZDOTDIR=/home/u/.config/zsh\0"
    assert parse_environment(users, rcfile_dir=tmp_path) == {"ZDOTDIR": "/home/u/.config/zsh"}


def test_the_report_file_is_private_and_fresh(tmp_path: Path) -> None:
    path = report_path(tmp_path, 4242)
    assert path == tmp_path / "aish-env.4242"
    path.write_text("stale")
    path.chmod(0o644)
    prepare_report(path)
    assert path.read_bytes() == b"" and stat.S_IMODE(path.stat().st_mode) == 0o600
