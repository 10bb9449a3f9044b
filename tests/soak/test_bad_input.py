"""Bad input: odd bytes from commands and models, broken files, a read-only or full disk.

Each must give a clear message (one line, no traceback) and leave aish answering the next line,
or, for `aish ask` with a fatal config, exit cleanly with status 2.
"""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from ..conftest import ServeFn
from ..e2e.conftest import AishTerminal, spawn_aish
from .soak_plan import Turn, play

ONE_MB = 1024 * 1024
RAW_NUL_CHUNK = 'data: {"choices":[{"index":0,"delta":{"content":"raw\\u0000nul end-raw."}}]}\n\n'


def config_for(url: str) -> str:
    return (
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
        "timeout_s = 5\nmax_retries = 0\n"
    )


def still_answers(aish: AishTerminal, shown_so_far: str = "") -> None:
    """No traceback so far, and the next command still runs."""
    assert "Traceback" not in shown_so_far
    shown = play(aish, Turn("printf 'alive-%s\\n' yes", "command", r"alive-yes"))
    assert "Traceback" not in shown
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=15)


def test_command_output_random_bytes_nul_invalid_utf8_and_a_1mb_line(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    work = aish_home / "work"
    # Seeded, and without ESC: random escape sequences would reprogram pexpect's "terminal".
    noise = bytes(b for b in random.Random(7).randbytes(8192) if b != 0x1B)
    (work / "noise.bin").write_bytes(noise)
    server = serve({"rules": [], "default": {"text": "Seen it all."}})
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    shown = ""
    for line, outcome in (
        ("cat noise.bin; printf '\\nafter-%s\\n' random", r"after-random"),
        ("printf 'a\\0b\\0c\\n'; printf 'after-%s\\n' nul", r"after-nul"),
        (
            "printf '\\xff\\xfe\\xc3\\x28 bad \\xe2\\x82\\n'; printf 'after-%s\\n' utf8",
            r"after-utf8",
        ),
        (f"head -c {ONE_MB} /dev/zero | tr '\\0' a; printf '\\nafter-%s\\n' long", r"after-long"),
    ):
        shown += play(aish, Turn(line, "command", outcome, timeout=120))
    # All of it is context for the next question: it must be sendable, and bounded.
    shown += play(aish, Turn("what did those print?", "user", r"Seen it all\.", timeout=60))
    last = server.requests[-1]["body"]["messages"][-1]["content"]
    assert "after-long" in last and "after-utf8" in last
    assert len(last) < ONE_MB // 4, len(last)  # the 1 MB line was cut down, not sent whole
    assert "\x00" not in last
    still_answers(aish, shown)


def _reply_turn(aish: AishTerminal, tag: str, outcome: str) -> str:
    return play(aish, Turn(f"reply please {tag}", "user", outcome, timeout=60))


def test_model_replies_with_nul_bytes_control_characters_and_a_1mb_line(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "tag-nul$"},
                    "reply": {"text": "nul\u0000in\u0000it, bell\u0007, del\u007f; end-nul."},
                },
                {
                    "when": {"user": "tag-long$"},
                    "reply": {"text": "x" * ONE_MB + "\nend-long.", "chunk_size": 65536},
                },
                {
                    "when": {"user": "tag-raw-nul$"},
                    "reply": {
                        "raw": [
                            RAW_NUL_CHUNK,
                            "data: [DONE]\n\n",
                        ]
                    },
                },
            ],
            "default": {"text": "Fine after all that."},
        }
    )
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    shown = _reply_turn(aish, "tag-nul", r"end-nul\.")
    shown += _reply_turn(aish, "tag-raw-nul", r"end-raw\.")
    shown += _reply_turn(aish, "tag-long", r"end-long\.")
    shown += _reply_turn(aish, "tag-next", r"Fine after all that\.")
    assert "failed:" not in shown
    still_answers(aish, shown)


def test_model_reply_with_invalid_unicode_does_not_poison_the_conversation(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    # What a server that emits invalid UTF-8 through JSON escapes sends (lone surrogates).
    chunk = '{"choices":[{"index":0,"delta":{"content":"bad \\udcff\\ud800 end-bad."}}]}'
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "tag-bad$"},
                    "reply": {"raw": [f"data: {chunk}\n\n", "data: [DONE]\n\n"]},
                },
            ],
            "default": {"text": "Fine after all that."},
        }
    )
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    shown = _reply_turn(aish, "tag-bad", r"end-bad\.")
    shown += _reply_turn(aish, "tag-next", r"Fine after all that\.|failed: [^\r\n]*")
    assert "failed:" not in shown, shown
    still_answers(aish, shown)


GARBAGE = bytes(random.Random(3).randbytes(600)) + b"\n[models\nx = = 1\n\xff\xfe"


def test_a_garbage_config_file_is_one_line_in_the_repl(
    aish_home: Path, terminals: list[AishTerminal]
) -> None:
    config = aish_home / ".config" / "aish" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_bytes(GARBAGE)
    aish = spawn_aish(aish_home)
    terminals.append(aish)
    before = aish.wait_prompt(timeout=30)
    notices = [line for line in before.splitlines() if "config.toml" in line]
    assert len(notices) == 1, before
    still_answers(aish, before)


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_DATA_HOME": str(home / ".data"),
    }


def test_aish_ask_with_a_garbage_config_exits_2_with_one_line(aish_home: Path) -> None:
    config = aish_home / ".config" / "aish" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_bytes(GARBAGE + b'\ndefault_model = "nowhere"\n')
    done = subprocess.run(
        [sys.executable, "-m", "aish", "ask", "hello?"],
        env=_env(aish_home),
        cwd=aish_home / "work",
        capture_output=True,
        text=True,
        errors="replace",
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert 1 <= len(lines) <= 2, lines  # the file's problem, then why it is fatal
    assert all(line.startswith("aish: ") for line in lines), lines


def test_an_unreadable_history_file(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    history = aish_home / ".state" / "aish" / "history"
    history.parent.mkdir(parents=True)
    # chmod 000 does not stop root; a directory where the file should be stops everyone.
    history.mkdir()
    (history / "entry").write_text("x")
    server = serve({"rules": [], "default": {"text": "ok"}})
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    try:
        before = aish.wait_prompt(timeout=30)
    except pexpect.EOF:
        pytest.fail(f"aish did not start with a directory as its history file: {aish.child.before}")
    assert "Traceback" not in before
    shown = play(aish, Turn("printf 'h-%s\\n' one", "command", r"h-one"))
    still_answers(aish, before + shown)


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tiny tmpfs mounted at `where` (root only); skips the test when mounting is refused."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tiny tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _remount_read_only(where: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)


def test_a_read_only_data_dir_from_the_start(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"rules": [], "default": {"text": "ok"}})
    with tmpfs(aish_home / ".data" / "aish", "1m") as data:
        _remount_read_only(data)
        aish = spawn_aish(aish_home, config=config_for(server.url))
        terminals.append(aish)
        index = aish.child.expect([r"\[aish:[^\]]+\] [^\r\n]*?>", pexpect.EOF], timeout=30)
        shown = str(aish.child.before)
        assert "Traceback" not in shown
        assert index == 0, f"aish did not start with a read-only data dir: {shown!r}"
        aish.child.terminate(force=True)


def test_a_data_dir_made_read_only_after_the_store_was_created(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    # (Remounting read-only under a running aish is refused: its store is open for writing.)
    server = serve({"rules": [], "default": {"text": "Still here."}})
    with tmpfs(aish_home / ".data" / "aish", "4m") as data:
        first = spawn_aish(aish_home, config=config_for(server.url))
        terminals.append(first)
        first.wait_prompt()
        play(first, Turn("printf 'ro-%s\\n' first", "command", r"ro-first"))
        first.type_line(":quit")
        first.child.expect(pexpect.EOF, timeout=15)
        _remount_read_only(data)
        aish = spawn_aish(aish_home, config=config_for(server.url))
        terminals.append(aish)
        index = aish.child.expect([r"\[aish:[^\]]+\] [^\r\n]*?>", pexpect.EOF], timeout=30)
        shown = str(aish.child.before)
        assert "Traceback" not in shown
        assert index == 0, f"aish did not start with a read-only data dir: {shown!r}"
        aish._started = True
        shown += play(aish, Turn("printf 'ro-%s\\n' after", "command", r"ro-after"))
        shown += play(aish, Turn("a question now", "user", r"Still here\."))
        shown += play(aish, Turn("printf 'ro-%s\\n' again", "command", r"ro-again"))
        assert "Traceback" not in shown
        unavailable = [line for line in shown.splitlines() if "unavailable" in line]
        assert len(unavailable) <= 1, shown  # said once at most, not at every turn
        still_answers(aish, shown)


def test_a_full_disk_under_the_data_dir(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"rules": [], "default": {"text": "Still here."}})
    with tmpfs(aish_home / ".data" / "aish", "512k") as data:
        aish = spawn_aish(aish_home, config=config_for(server.url))
        terminals.append(aish)
        aish.wait_prompt()
        shown = play(aish, Turn("printf 'full-%s\\n' before", "command", r"full-before"))
        with contextlib.suppress(OSError), (data / "filler").open("wb") as filler:
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
        for n in range(6):  # big outputs: each log write needs pages the disk does not have
            shown += play(
                aish, Turn(f"seq 1 5000; printf 'full-%s\\n' {n}", "command", rf"full-{n}(?!\d)")
            )
        shown += play(aish, Turn("a question now", "user", r"Still here\."))
        unavailable = [line for line in shown.splitlines() if "session log unavailable" in line]
        assert len(unavailable) == 1, shown
        still_answers(aish, shown)
