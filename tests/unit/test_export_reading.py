"""The session log read into an export document, its secrets scrubbed, and where it is written."""

from __future__ import annotations

import dataclasses
import os
import typing
from pathlib import Path
from typing import Any

import pytest

from aish.agent.outbound import Outbound
from aish.config.validation import validate_config
from aish.store import Store, UsageRow
from aish.store.sessions import TurnRecord
from aish.ui.export import document as doc
from aish.ui.export.exporter import export_session, preset_scrubs, session_document
from aish.ui.export.files import ExportError, default_name, write_new
from aish.ui.export.reading import HEAD_LINES, TAIL_LINES, bounded, read_document
from aish.ui.export.scrubbing import scrub_document, session_scrubbed

SECRET = "Xk29fLq8ZpW3vR7tQ"  # shaped like nothing: only known from the environment
TOKEN = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA"  # found by its shape
HEADING = doc.Heading("#1", 1_800_000_000.0, "/work", "cloud")


def _turns(*turns: tuple[str, dict[str, Any]]) -> list[TurnRecord]:
    return [TurnRecord(n, 1, 1000.0 + n, kind, payload) for n, (kind, payload) in enumerate(turns)]


def _entries(*turns: tuple[str, dict[str, Any]]) -> tuple[doc.Entry, ...]:
    return read_document(HEADING, _turns(*turns), [], None).entries


def _run(command: str, output: str, **more: Any) -> dict[str, Any]:
    return {"command": command, "exit_status": 0, "cwd_before": "/w", "output": output, **more}


def test_a_chat_turn_reads_as_question_reply_decision_and_command() -> None:
    entries = _entries(
        ("user", {"text": "what is here?", "message": "[aish context]…", "cwd": "/w"}),
        ("assistant_delta", {"text": "Let me "}),
        ("assistant", {"text": "Let me look.\nCMD: ls", "cut": False, "model": "cloud"}),
        ("decision", {"command": "ls", "level": "safe", "decision": "run", "answer": "auto"}),
        ("command", _run("ls", "a\nb", source="model", asked=False)),
        ("decision", {"command": "rm a", "level": "destructive", "reasons": ["rm: deletes"],
                      "decision": "ask", "answer": "no"}),
    )  # fmt: skip
    question, reply, command, decision = entries
    assert question == doc.Question("what is here?", 1000.0)
    assert reply == doc.Reply("Let me look.\nCMD: ls", "cloud")  # the deltas were its start
    assert isinstance(command, doc.Command) and command.by == "model" and not command.asked
    assert command.output == doc.Bounded("a\nb")
    assert decision == doc.Decision("rm a", "destructive", ("rm: deletes",), False, "no")


def test_a_norris_run_reads_as_steps_halts_and_its_end() -> None:
    entries = _entries(
        ("norris_start", {"goal": "tidy", "model": "cloud", "tasks": ["look"], "judge": "…"}),
        ("user", {"text": "[aish norris mode] You are now working…", "norris_step": 1}),
        ("command", _run("ls", "", norris_step=1, shell="agent", asked=False)),
        ("decision", {"command": "rm -rf b", "level": "destructive", "reasons": ["rm"],
                      "decision": "halt", "answer": "skip", "norris_step": 2}),
        ("norris_end", {"status": "halted", "reason": "[destructive] rm", "steps": 2,
                        "elapsed_s": 1.5, "tokens": 900, "cost_usd": None,
                        "pending_action": "rm -rf b"}),
    )  # fmt: skip
    started, step, command, halt, ended = entries
    assert started == doc.NorrisStarted("tidy", "cloud", ("look",), 1000.0)
    assert step == doc.NorrisStep(1)  # the prompt aish wrote is not the user's question
    assert isinstance(command, doc.Command) and command.by == "norris"
    assert isinstance(halt, doc.Decision) and halt.halted and halt.norris_step == 2
    assert ended == doc.NorrisEnded(
        "halted", "[destructive] rm", 2, 1.5, 900, "unknown", "rm -rf b"
    )


def test_a_reply_aish_died_in_keeps_what_was_shown() -> None:
    entries = _entries(
        ("user", {"text": "q"}),
        ("assistant_delta", {"text": "half a rep"}),
        ("user", {"text": "again"}),
    )
    assert entries[1] == doc.Reply("half a rep", "", cut=True)


def test_long_outputs_keep_their_head_and_tail_and_damaged_payloads_read_empty() -> None:
    output = "\n".join(f"line {n}" for n in range(500))
    (command, note, unknown) = _entries(
        ("command", _run("seq", output, exit_status="not a number", duration_s=None)),
        ("note", {"text": ["not", "text"]}),
        ("job_done", {"text": "a kind from a newer aish"}),
    )
    assert isinstance(command, doc.Command) and command.exit_status == 0
    lines = command.output.text.split("\n")
    assert lines[0] == "line 0" and lines[-1] == "line 499"
    assert len(lines) == HEAD_LINES + TAIL_LINES and command.output.omitted_lines == 440
    assert isinstance(note, doc.Notice) and isinstance(unknown, doc.Notice)


def test_long_lines_are_cut_between_words_only() -> None:
    assert bounded("a" * 5000).text == "… (a line of 5,000 characters without a break)"
    cut = bounded("word " * 1000).text
    assert cut.endswith("word … (3,000 characters more)") and len(cut) < 2100


# ---- scrubbing ---------------------------------------------------------------------------------


def _every_entry_with(text: str) -> doc.SessionDocument:
    """One of each entry type with `text` in every string field: a field added later is
    covered here without anyone remembering to add it."""
    entries = []
    for kind in typing.get_args(doc.Entry):
        hints = typing.get_type_hints(kind)
        values = {f.name: _value(hints[f.name], text) for f in dataclasses.fields(kind)}
        entries.append(kind(**values))
    row = doc.CostRow(text, text, 1, 1, 1, text)
    heading = doc.Heading(text, 0.0, text, text)
    return doc.SessionDocument(heading, tuple(entries), (row,), row)


def _value(hint: Any, text: str) -> Any:
    if hint is str:
        return f"before {text} after"
    if hint is doc.Bounded:
        return doc.Bounded(f"x {text} y")
    if typing.get_origin(hint) is tuple:
        (item,) = [a for a in typing.get_args(hint) if a is not Ellipsis]
        return (_value(item, text),)
    if dataclasses.is_dataclass(hint):
        return hint(**{f.name: _value(typing.get_type_hints(hint)[f.name], text)
                       for f in dataclasses.fields(hint)})  # fmt: skip
    if typing.get_origin(hint) is typing.Literal:
        return typing.get_args(hint)[0]
    return {int: 1, float: 1.0, bool: True}.get(hint)


def test_every_text_of_every_entry_is_scrubbed() -> None:
    document = _every_entry_with(SECRET)
    assert repr(document).count(SECRET) > 20
    outbound = Outbound(environment={"DEPLOY_PASSWORD": SECRET})
    scrubbed = scrub_document(document, outbound.scrub)
    assert SECRET not in repr(scrubbed) and scrubbed.scrubbed
    assert "AISH_SECRET_ENV_DEPLOY_PASSWORD_1" in repr(scrubbed)


def test_which_sessions_count_as_scrubbing() -> None:
    def scrubs(name: str) -> bool:
        return name != "local"

    assert not session_scrubbed(["local"], ["plain reply"], scrubs)
    assert session_scrubbed(["local", "cloud"], [], scrubs)
    assert session_scrubbed(["local"], ["use AISH_SECRET_TOKEN_1"], scrubs)
    assert session_scrubbed([""], [], scrubs)  # no preset known: nothing says it may be shown


# ---- from the store, and to a file -------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> typing.Iterator[Store]:
    with Store.open(tmp_path / "aish.sqlite3") as opened:
        yield opened


def _config(secrets: str) -> Any:

    return validate_config(
        {"models": {"m": {"endpoint": "http://127.0.0.1:9/v1", "model": "x", "secrets": secrets}}}
    )


def _session_with_secrets(store: Store) -> Any:
    info = store.start_session(name="deploy", cwd="/w", model="m")
    store.append_turn(info.id, "command", _run(f"echo {SECRET}", SECRET))
    store.append_turn(info.id, "command", _run("cat .env", f"API_TOKEN={TOKEN}"))
    # A line cut inside the password must not leave its start behind.
    long_line = '{"a": "' + "x" * 1974 + '", "p": "' + SECRET + '"}'
    store.append_turn(info.id, "command", _run("cat big", long_line))
    store.append_turn(info.id, "user", {"text": f"is {TOKEN} still good?"})
    store.append_turn(info.id, "assistant", {"text": "Yes.", "model": "m"})
    store.record_usage(info.id, UsageRow(category="chat", model="x", preset="m",
                                         prompt_tokens=10, completion_tokens=2,
                                         cost_usd=0.5, cost_source="config"))  # fmt: skip
    return info


def test_a_scrubbing_session_is_exported_with_placeholders_only(store: Store) -> None:
    info = _session_with_secrets(store)
    outbound = Outbound(environment={"DEPLOY_PASSWORD": SECRET})
    document = session_document(
        store, info, scrubs=preset_scrubs(_config("scrub")), scrub=outbound.scrub
    )
    text = repr(document)
    assert document.scrubbed and SECRET not in text and TOKEN not in text
    assert SECRET[:8] not in text  # nor the start of the one the long line was cut in
    assert "AISH_SECRET_" in text
    assert document.total is not None and document.total.dollars == "$0.5000"


def test_a_session_of_presets_that_do_not_scrub_is_exported_as_logged(store: Store) -> None:
    info = _session_with_secrets(store)
    document = session_document(
        store, info, scrubs=preset_scrubs(_config("off")), scrub=Outbound(environment={}).scrub
    )
    assert not document.scrubbed and SECRET in repr(document)


def test_the_default_file_name_and_no_file_is_replaced(store: Store, tmp_path: Path) -> None:
    info = _session_with_secrets(store)
    scrubs, scrub = preset_scrubs(_config("scrub")), Outbound(environment={}).scrub
    first = export_session(
        store, info, "md", scrubs=scrubs, scrub=scrub, file=None, folder=tmp_path
    )
    again = export_session(
        store, info, "md", scrubs=scrubs, scrub=scrub, file=None, folder=tmp_path
    )
    assert first.path.name.startswith("aish-deploy-") and first.path.suffix == ".md"
    assert again.path.name == first.path.stem + "-2.md"
    assert os.stat(first.path).st_mode & 0o077 == 0
    (tmp_path / "mine.html").write_text("keep")
    with pytest.raises(ExportError, match="exists"):
        export_session(store, info, "html", scrubs=scrubs, scrub=scrub, file="mine.html",
                       folder=tmp_path)  # fmt: skip
    assert (tmp_path / "mine.html").read_text() == "keep"


def test_file_names_hold_no_path_or_odd_characters(tmp_path: Path) -> None:
    assert default_name("../../etc/pass wd", 0.0, "md") == "aish-etc-pass-wd-undated.md"
    assert default_name("///", 0.0, "html") == "aish-session-undated.html"
    with pytest.raises(ExportError, match="cannot write"):
        write_new("x", path=Path("no/such/dir/f.md"), folder=tmp_path, default="d.md")
