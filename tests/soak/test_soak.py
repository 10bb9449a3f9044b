"""A long session under faults: no crash, no hang, bounded memory, every turn in the log.

The short form (the default, part of `make test`) plays ~80 turns; `AISH_SOAK_TURNS=500`
(`make soak`) plays the long one, where RSS growth after warm-up must stay under 20 MB.
`AISH_SOAK_SEED` replays another mix.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path

import pexpect
import pytest

from aish.store import Store

from ..conftest import ServeFn
from ..e2e.conftest import AishTerminal, spawn_aish
from .soak_plan import fault_scenario, plan, play, soak_config, warm_up_length

TURNS = int(os.environ.get("AISH_SOAK_TURNS", "80"))
SEED = int(os.environ.get("AISH_SOAK_SEED", "11"))
LONG = TURNS >= 500
# The long run's bar; the short one only catches gross leaks (it is mostly warm-up).
RSS_GROWTH_MB = 20 if LONG else 60


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def closed_port() -> int:
    """A port nothing listens on: connections to it are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_soak_under_faults(serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]) -> None:
    server = serve(fault_scenario())
    aish = spawn_aish(aish_home, config=soak_config(server.url, closed_port()))
    terminals.append(aish)
    transcript = aish_home.parent / "transcript.txt"
    aish.child.logfile_read = transcript.open("w", encoding="utf-8", errors="replace")
    aish.wait_prompt()
    turns = plan(TURNS, SEED)
    warm = warm_up_length()
    pid = aish.child.pid
    started = time.monotonic()
    rss_warm = slowest = 0.0
    slowest_line = ""
    for number, turn in enumerate(turns):
        began = time.monotonic()
        try:
            shown = play(aish, turn)
        except pexpect.TIMEOUT:
            pytest.fail(f"turn {number} hung ({turn.line!r}); screen: {aish.child.before!r}")
        except pexpect.EOF:
            pytest.fail(f"aish ended at turn {number} ({turn.line!r}): {aish.child.before!r}")
        assert "Traceback" not in shown, f"turn {number} ({turn.line!r}):\n{shown}"
        assert "failed: " not in shown or "(details in the log)" not in shown, (
            f"turn {number} ({turn.line!r}) failed inside aish:\n{shown}"
        )
        took = time.monotonic() - began
        if took > slowest:
            slowest, slowest_line = took, turn.line
        if number == warm + 10:
            rss_warm = rss_kb(pid) / 1024
    rss_end = rss_kb(pid) / 1024
    elapsed = time.monotonic() - started
    assert aish.child.isalive()
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=15)

    store_path = aish_home / ".data" / "aish" / "aish.sqlite3"
    with Store.open(store_path) as store:
        session = store.last_session()
        assert session is not None
        logged = Counter(
            _logged_line(record.kind, record.payload) for record in store.turns(session.id)
        )
    typed = Counter((turn.kind, turn.line) for turn in turns)
    missing = typed - logged
    assert not missing, f"turns missing from the session log: {list(missing)[:10]}"
    with sqlite3.connect(store_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    kinds = Counter(turn.kind for turn in turns)
    chat = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    sys.stderr.write(
        f"\nsoak: {len(turns)} turns ({dict(kinds)}), {len(chat)} model requests, "
        f"{elapsed:.1f}s, slowest turn {slowest:.1f}s ({slowest_line!r}), "
        f"RSS {rss_warm:.1f} MB after warm-up → {rss_end:.1f} MB "
        f"({rss_end - rss_warm:+.1f} MB)\n"
    )
    assert rss_end - rss_warm < RSS_GROWTH_MB, (rss_warm, rss_end)


def _logged_line(kind: str, payload: dict[str, object]) -> tuple[str, object]:
    """A logged turn as (kind, the line the user typed), comparable with the plan's turns."""
    if kind == "command":
        return kind, payload.get("command")
    if kind == "meta":
        text = str(payload.get("text", ""))
        return kind, text if text.startswith(":") else f":{text}"
    if kind == "user" and "norris_step" not in payload:
        return kind, payload.get("text")
    return kind, None
