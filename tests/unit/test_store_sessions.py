"""Sessions and turns in a real SQLite file: logging, naming, resuming, listing, payloads."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.store import (
    SessionInfo,
    SessionSummary,
    Store,
    StoreError,
    TurnRecord,
    default_store_path,
)

# One of each kind the REPL writes.
TURNS: list[tuple[str, dict[str, Any]]] = [
    ("user", {"text": "why did that fail?"}),
    (
        "command",
        {
            "command": "ls /nonexistent",
            "exit_status": 2,
            "cwd_before": "/home/u",
            "cwd_after": "/home/u",
            "duration_s": 0.012,
            "output": "ls: cannot access '/nonexistent': No such file or directory\n",
            "source": "user",
        },
    ),
    ("assistant", {"text": "The path does not exist.\nCMD: ls /", "cut": False, "model": "m"}),
    ("status", {"text": "shell respawned"}),
    ("reset", {}),
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data" / "aish.sqlite3") as opened:
        yield opened


def test_turns_round_trip_in_order(store: Store) -> None:
    session = store.start_session(cwd="/home/u", model="m")
    ids = [store.append_turn(session.id, kind, payload) for kind, payload in TURNS]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    records = store.turns(session.id)
    assert [(r.kind, r.payload) for r in records] == TURNS
    assert [r.id for r in records] == ids
    assert all(isinstance(r, TurnRecord) and r.session_id == session.id for r in records)
    assert all(r.ts >= session.started_at for r in records)
    assert store.turns(session.id + 1000) == []


def test_start_session_returns_what_it_stored(store: Store) -> None:
    session = store.start_session(cwd="/tmp", model="gpt")
    assert isinstance(session, SessionInfo)
    assert (session.name, session.cwd, session.model) == (None, "/tmp", "gpt")
    assert store.get_session(session.id) == session


def test_turns_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "aish.sqlite3"
    with Store.open(path) as first:
        session = first.start_session(name="work", cwd="/w", model="m")
        for kind, payload in TURNS:
            first.append_turn(session.id, kind, payload)
    with Store.open(path) as second:
        assert second.find_session("work") == session
        assert [(r.kind, r.payload) for r in second.turns(session.id)] == TURNS


def test_append_to_unknown_session_is_a_store_error(store: Store) -> None:
    with pytest.raises(StoreError, match="no session 42"):
        store.append_turn(42, "user", {"text": "hi"})
    assert store.turns(42) == []
    with pytest.raises(ValueError):
        store.append_turn(store.start_session().id, "", {})


def test_a_copy_is_a_snapshot_neither_side_sees_the_others_later_turns(store: Store) -> None:
    live = store.start_session(cwd="/w", model="fast")
    store.append_turn(live.id, "user", {"text": "one"})
    store.append_turn(live.id, "assistant", {"text": "1"})
    snap = store.copy_session(live.id, name="snap")
    assert (snap.name, snap.cwd, snap.model) == ("snap", "/w", "fast")
    store.append_turn(live.id, "reset", {})
    store.append_turn(snap.id, "user", {"text": "two"})
    assert [t.kind for t in store.turns(live.id)] == ["user", "assistant", "reset"]
    assert [t.payload.get("text") for t in store.turns(snap.id)] == ["one", "1", "two"]
    found = store.find_session("snap")
    assert found is not None and found.id == snap.id
    with pytest.raises(StoreError):
        store.copy_session(9999)


def test_naming_moves_a_name_to_the_newer_session(store: Store) -> None:
    older = store.start_session()
    newer = store.start_session()
    store.name_session(older.id, "proj")
    assert store.find_session("proj") == SessionInfo(older.id, "proj", older.started_at, "", "")
    store.name_session(newer.id, "proj")
    found = store.find_session("proj")
    assert found is not None and found.id == newer.id
    older_now = store.get_session(older.id)
    assert older_now is not None and older_now.name is None
    # Renaming a session to its own name, or giving it a second name, is fine.
    store.name_session(newer.id, "proj")
    store.name_session(newer.id, "other")
    assert store.find_session("proj") is None
    assert store.find_session("missing") is None


def test_start_session_with_a_taken_name_takes_it(store: Store) -> None:
    first = store.start_session(name="x")
    second = store.start_session(name=" x ")
    assert second.name == "x"
    found = store.find_session("x")
    assert found is not None and found.id == second.id
    first_now = store.get_session(first.id)
    assert first_now is not None and first_now.name is None


def test_naming_errors(store: Store) -> None:
    with pytest.raises(StoreError, match="no session 7"):
        store.name_session(7, "x")
    session = store.start_session()
    with pytest.raises(ValueError):
        store.name_session(session.id, "   ")


def test_last_session_is_the_most_recently_written(store: Store) -> None:
    assert store.last_session() is None
    a = store.start_session()
    b = store.start_session()
    assert store.last_session() is None  # nothing to resume yet
    store.append_turn(b.id, "user", {"text": "b"})
    store.append_turn(a.id, "user", {"text": "a"})
    assert store.last_session() == a
    assert store.last_session(exclude=a.id) == b
    store.append_turn(b.id, "status", {"text": "again"})
    assert store.last_session() == b
    current = store.start_session()  # the REPL's own new session
    store.append_turn(current.id, "user", {"text": "now"})
    assert store.last_session(exclude=current.id) == b


def test_list_sessions(store: Store) -> None:
    a = store.start_session(cwd="/a")
    store.append_turn(a.id, "status", {"text": "started"})
    store.append_turn(a.id, "user", {"text": "first question"})
    store.append_turn(a.id, "user", {"text": "second question"})
    empty = store.start_session()
    named_empty = store.start_session(name="later")
    b = store.start_session()
    store.append_turn(b.id, "command", TURNS[1][1])

    listed = store.list_sessions()
    assert all(isinstance(s, SessionSummary) for s in listed)
    assert [s.info.id for s in listed] == [b.id, named_empty.id, a.id]
    by_id = {s.info.id: s for s in listed}
    assert (by_id[a.id].turns, by_id[a.id].first_text) == (3, "first question")
    assert (by_id[b.id].turns, by_id[b.id].first_text) == (1, "")
    assert (by_id[named_empty.id].turns, by_id[named_empty.id].info.name) == (0, "later")
    assert by_id[a.id].last_at >= by_id[a.id].info.started_at
    assert by_id[a.id].info.cwd == "/a"

    assert [s.info.id for s in store.list_sessions(limit=2)] == [b.id, named_empty.id]
    everything = [s.info.id for s in store.list_sessions(include_empty=True)]
    assert everything == [b.id, named_empty.id, empty.id, a.id]
    assert store.list_sessions(limit=0) == []


def test_payload_text_is_stored_readable(store: Store) -> None:
    session = store.start_session()
    turn = store.append_turn(session.id, "user", {"text": "grüße ✓ 日本"})
    raw = store.db.path
    with sqlite3.connect(raw) as connection:
        (stored,) = connection.execute("SELECT payload FROM turns WHERE id = ?", (turn,)).fetchone()
    assert "grüße ✓ 日本" in stored


def test_payloads_with_lone_surrogates_and_odd_values(store: Store) -> None:
    session = store.start_session()
    undecodable = b"caf\xe9 \xff".decode("utf-8", "surrogateescape")
    store.append_turn(session.id, "command", {"output": undecodable, "k\udcff": 1})
    store.append_turn(session.id, "status", {"raw": b"ok\xff", "path": Path("/x"), "t": (1, 2)})
    first, second = store.turns(session.id)
    assert first.payload == {"output": undecodable, "k\udcff": 1}
    assert second.payload == {"raw": "ok\udcff", "path": "/x", "t": [1, 2]}


# Any code point, with lone surrogates (undecodable bytes under surrogateescape) made common.
characters = st.characters(codec=None, exclude_categories=()) | st.sampled_from(
    ["\udcff", "\ud800", "\x00", "é", "✓"]
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(characters),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(characters), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(payload=st.dictionaries(st.text(characters), json_values))
def test_any_json_payload_round_trips(
    tmp_path_factory: pytest.TempPathFactory, payload: Any
) -> None:
    path = tmp_path_factory.getbasetemp() / "hypothesis.sqlite3"
    with Store.open(path) as store:
        session = store.start_session()
        turn = store.append_turn(session.id, "user", payload)
        assert store.turns(session.id) == [
            TurnRecord(turn, session.id, store.turns(session.id)[0].ts, "user", payload)
        ]


def test_threads_share_one_store(store: Store) -> None:
    session = store.start_session()
    ids: list[int] = []
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for i in range(50):
                ids.append(store.append_turn(session.id, "status", {"n": n, "i": i}))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(set(ids)) == 200
    assert [r.id for r in store.turns(session.id)] == sorted(ids)


def test_closed_store(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.sqlite3")
    session = store.start_session()
    store.close()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.append_turn(session.id, "user", {"text": "late"})


def test_default_path_follows_xdg_data_home(xdg_home: Path) -> None:
    expected = xdg_home / "data" / "aish" / "aish.sqlite3"
    assert default_store_path() == expected
    with Store.open() as store:
        assert store.path == expected
    assert expected.is_file()
