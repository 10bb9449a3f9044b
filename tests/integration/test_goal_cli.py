"""`aish goal` as a script runs it: a real process in a real directory, a real config file, a
real model server (aish-testllm over HTTP), real bash, the real SQLite store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from aish.conversation.context import Conversation
from aish.store import Store

from ..conftest import ServeFn
from ..processes import interruptible_like_at_a_terminal

AISH = [sys.executable, "-m", "aish"]
ANSI_ESCAPE = "\x1b["


def _config(home: Path, url: str, extra: str = "") -> None:
    path = home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'default_model = "local"\n\n{_preset("local", url)}{extra}')


def _preset(name: str, url: str) -> str:
    return (
        f'[models.{name}]\nendpoint = "{url}/v1"\nmodel = "testllm"\ntimeout_s = 5\n'
        "max_retries = 0\n\n"
    )


def _steps(*texts: str) -> dict[str, Any]:
    """A scenario whose nth request gets the nth text (the last one repeats)."""
    return {"rules": [{"when": {}, "replies": [{"text": t} for t in texts]}]}


def _goal(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AISH, "goal", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy(),
    )


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def _chat_requests(server: Any) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["path"].endswith("/chat/completions")]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


# ---- a goal reached --------------------------------------------------------------------------

COUNTING = _steps(
    "First I list them.\nCMD: find . -name '*.py' -type f",
    "Now I count them.\nCMD: find . -name '*.py' -type f | wc -l",
    "GOAL: complete\nThere are 3 Python files.",
)


def _python_files(workdir: Path) -> None:
    (workdir / "src").mkdir()
    for name in ("a.py", "b.py", "src/c.py", "notes.txt"):
        (workdir / name).write_text("x\n")


def test_a_multi_step_goal_completes_with_yes_safe(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    _python_files(workdir)
    server = serve(COUNTING)
    _config(xdg_home, server.url)
    result = _goal("--yes-safe", "count", "the", "python", "files", cwd=workdir)

    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("⚡ Norris: count the python files\n  bounds: 16 steps · ")
    assert "\n[step 1/16]\nFirst I list them.\nCMD: find . -name '*.py' -type f\n" in out
    assert "┌ $ find . -name '*.py' -type f | wc -l [safe]\n│ 3\n└ exit 0 · " in out
    assert "\n[step 3/16]\nGOAL: complete\nThere are 3 Python files.\n" in out
    summary = out.splitlines()[-1]
    assert summary.startswith("norris done: There are 3 Python files. · 3/16 steps · ")
    assert summary.endswith(f" · agent cwd {workdir}")
    assert ANSI_ESCAPE not in out  # not a terminal: no colour
    # The goal reached the model as typed, and each result came back to it.
    requests = _chat_requests(server)
    assert len(requests) == 3
    assert "Goal: count the python files" in requests[0]["body"]["messages"][-1]["content"]
    assert "./src/c.py" in requests[1]["body"]["messages"][-1]["content"]
    assert "HALT" not in result.stderr and "Traceback" not in result.stderr


def test_json_prints_every_event_and_nothing_else(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    _python_files(workdir)
    server = serve(COUNTING)
    _config(xdg_home, server.url)
    result = _goal("--json", "--yes-safe", "count the python files", cwd=workdir)

    assert result.returncode == 0, result.stderr
    events = _events(result.stdout)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "norris_start" and kinds[-1] == "norris_end"
    assert kinds.count("norris_step") == 3 and kinds.count("command_start") == 2
    assert events[0]["goal"] == "count the python files" and "16 steps" in events[0]["bounds"]
    ends = [e for e in events if e["type"] == "command_end"]
    assert sorted(ends[0]["output"].split()) == ["./a.py", "./b.py", "./src/c.py"]
    assert ends[1]["output"].strip() == "3" and ends[1]["exit_status"] == 0
    assert ends[1]["cwd"] == str(workdir)
    text = "".join(e["text"] for e in events if e["type"] == "text")
    assert "CMD: find . -name '*.py' -type f | wc -l" in text
    end = events[-1]
    assert (end["status"], end["steps"], end["pending_action"]) == ("done", 3, None)
    assert end["tokens"] > 0
    assert result.stderr == ""


def test_the_run_is_logged_as_a_session_to_resume(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    _python_files(workdir)
    server = serve(COUNTING)
    _config(xdg_home, server.url)
    result = _goal("--yes-safe", "count the python files", cwd=workdir)
    assert result.returncode == 0, result.stderr

    with Store.open() as store:
        session = store.last_session()
        assert session is not None
        assert (session.cwd, session.model) == (str(workdir), "local")
        turns = [(t.kind, t.payload) for t in store.turns(session.id)]
    assert f"[aish] session #{session.id}: `aish --resume` continues it" in result.stderr
    kinds = [kind for kind, _ in turns]
    assert kinds[0] == "norris_start" and kinds[-1] == "norris_end"
    assert kinds.count("user") == 3 and kinds.count("command") == 2
    assert turns[-1][1]["status"] == "done"
    # What `aish --resume` rebuilds: the three steps and their replies.
    conversation = Conversation.replay("system", turns)
    assert len(conversation.history) == 6
    assert conversation.history[-1].content == "GOAL: complete\nThere are 3 Python files."


def test_a_preplanned_run_ends_when_every_task_had_its_step(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    _python_files(workdir)
    planner = serve(_steps("1. TASK: list the Python files\n2. TASK: count them"))
    executor = serve(
        _steps("CMD: find . -name '*.py' -type f", "CMD: find . -name '*.py' -type f | wc -l")
    )
    _config(
        xdg_home,
        executor.url,
        _preset("planner", planner.url) + '[norris]\npreplanner = "planner"\n',
    )
    result = _goal("--yes-safe", "count the python files", cwd=workdir)

    assert result.returncode == 0, result.stderr
    assert "[aish] preplanned 2 tasks via planner\n" in result.stderr
    assert "  plan (via planner):\n    1. list the Python files\n    2. count them\n" in (
        result.stdout
    )
    assert "\n[step 2/16: count them (task 2/2)]\n" in result.stdout
    assert "norris tasks_complete: all 2 planned tasks done · 2/16 steps" in result.stdout
    assert len(_chat_requests(planner)) == 1 and len(_chat_requests(executor)) == 2


def test_model_flag_runs_the_steps_instead_of_the_executor_preset(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    configured = serve(_steps("GOAL: complete on the configured executor"))
    chosen = serve(_steps("GOAL: complete on the chosen model"))
    _config(
        xdg_home,
        configured.url,
        _preset("chosen", chosen.url) + '[norris]\nexecutor = "local"\n',
    )
    result = _goal("--model", "chosen", "say where you run", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert "norris done: on the chosen model" in result.stdout
    assert (len(_chat_requests(chosen)), len(_chat_requests(configured))) == (1, 0)


def test_without_a_store_the_run_goes_on_and_says_so_once(
    serve: ServeFn, xdg_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve(COUNTING)
    _config(xdg_home, server.url)
    blocked = xdg_home / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocked))
    result = _goal("--yes-safe", "count the python files", cwd=workdir)

    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("aish: session log unavailable, going on without it: ")
    assert "norris done: " in result.stdout


# ---- HALT ------------------------------------------------------------------------------------


def test_without_yes_safe_the_first_action_halts_and_nothing_runs(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    server = serve(_steps("CMD: touch made.txt", "GOAL: complete"))
    _config(xdg_home, server.url)
    result = _goal("make a file", cwd=workdir)

    assert result.returncode == 3, result.stderr
    assert not (workdir / "made.txt").exists()
    assert len(_chat_requests(server)) == 1
    assert result.stderr.splitlines()[:3] == [
        "aish: HALT at step 1/16: touch made.txt",
        "  reason: [unknown] touch is not known to be read-only",
        "  not run: without --yes-safe nothing runs unattended",
    ]
    assert "─── NORRIS HALT ─── step 1/16 " in result.stdout
    assert "norris halted: " in result.stdout
    assert "  pending action: touch made.txt\n" in result.stdout


def test_yes_safe_never_runs_a_destructive_action(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    (workdir / "x").mkdir()
    (workdir / "x" / "keep").write_text("data")
    server = serve(_steps("CMD: ls", "CMD: rm -rf x", "GOAL: complete"))
    _config(xdg_home, server.url)
    result = _goal("--json", "--yes-safe", "tidy up", cwd=workdir)

    assert result.returncode == 3, result.stderr
    assert (workdir / "x" / "keep").read_text() == "data"
    events = _events(result.stdout)
    assert [e["command"] for e in events if e["type"] == "command_start"] == ["ls"]
    halt = next(e for e in events if e["type"] == "halt")
    assert (halt["action"], halt["level"], halt["step"]) == ("rm -rf x", "destructive", 2)
    end = events[-1]
    assert end["type"] == "norris_end"
    assert (end["status"], end["pending_action"]) == ("halted", "rm -rf x")
    assert "aish: HALT at step 2/16: rm -rf x\n" in result.stderr
    assert "  reason: [destructive] rm: deletes files\n" in result.stderr


# The executor clears anything it is asked about: asking it would be self-approval.
SELF_APPROVAL = [
    {"name": "self-approval", "when": {"user": "aish safety check"}, "reply": {"text": "NO"}},
    {"name": "self-approval", "when": {"system": "^Detect destructive"}, "reply": {"text": "NO"}},
]


def test_the_second_opinion_clears_or_halts_unknown_actions(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    steps = _steps("CMD: ./tool.sh", "CMD: frobnicate --all", "GOAL: complete")["rules"]
    server = serve({"rules": [*SELF_APPROVAL, *steps]})
    judge = serve(
        {
            "rules": [
                {"when": {"user": "^frobnicate"}, "reply": {"text": "YES"}},
                {"when": {}, "reply": {"text": "NO"}},
            ]
        }
    )
    _config(xdg_home, server.url, _preset("judge", judge.url) + '[safety]\nllm_model = "judge"\n')
    script = workdir / "tool.sh"
    script.write_text("#!/bin/sh\ntouch tool-ran\necho tool ran\n")
    script.chmod(0o755)
    result = _goal("--yes-safe", "use the tool", cwd=workdir)

    assert result.returncode == 3, result.stderr
    assert "\n  second opinion: judge (testllm)\n" in result.stdout
    assert (workdir / "tool-ran").exists()  # cleared by a NO: it ran
    assert "┌ $ ./tool.sh [unknown]\n│ tool ran\n" in result.stdout
    assert "aish: HALT at step 2/16: frobnicate --all\n" in result.stderr
    assert "second opinion: YES" in result.stderr
    assert len(_chat_requests(judge)) == 2
    assert "self-approval" not in {r["rule"] for r in _chat_requests(server)}


@pytest.mark.parametrize("judge", ["none", "the executor under another name"])
def test_without_an_independent_judge_an_unknown_step_halts_with_exit_3(
    serve: ServeFn, xdg_home: Path, workdir: Path, judge: str
) -> None:
    # A model that wants a file gone, with a command the rules cannot call safe, and that
    # would answer NO to any safety question.
    steps = _steps("CMD: python3 -c 'import os; os.remove(\"precious\")'", "GOAL: complete")
    server = serve({"rules": [*SELF_APPROVAL, *steps["rules"]]})
    extra = ""
    if judge != "none":  # `judge` is the executor's server and model, spelled differently
        localhost = server.url.replace("127.0.0.1", "localhost")
        extra = _preset("judge", f"{localhost}/") + '[safety]\nllm_model = "judge"\n'
    _config(xdg_home, server.url, extra)
    (workdir / "precious").write_text("keep me\n")
    result = _goal("--yes-safe", "tidy up", cwd=workdir)

    assert result.returncode == 3, result.stderr
    assert (workdir / "precious").read_text() == "keep me\n"
    assert "\n  no independent second opinion: unknown steps halt — " in result.stdout
    assert "aish: HALT at step 1/16: python3 -c" in result.stderr
    assert "no independent judge configured: " in result.stderr
    assert "self-approval" not in {r["rule"] for r in _chat_requests(server)}
    assert len(_chat_requests(server)) == 1


# ---- other ends ------------------------------------------------------------------------------


def test_a_model_that_never_finishes_exhausts_max_steps(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    server = serve(_steps("CMD: echo one", "CMD: echo two", "CMD: echo three"))
    _config(xdg_home, server.url)
    result = _goal("--yes-safe", "--max-steps", "2", "go on forever", cwd=workdir)

    assert result.returncode == 1, result.stderr
    assert "\n[step 2/2]\n" in result.stdout and "[step 3/" not in result.stdout
    assert "norris budget_exhausted: step limit reached (2 steps) · 2/2 steps" in result.stdout
    assert len(_chat_requests(server)) == 2


def test_an_unreachable_model_fails_with_one_line(xdg_home: Path, workdir: Path) -> None:
    _config(xdg_home, "http://127.0.0.1:9")
    result = _goal("--json", "--yes-safe", "anything", cwd=workdir)
    assert result.returncode == 1
    assert _events(result.stdout)[-1]["status"] == "failed"
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("aish: ")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ((), 'aish: no goal: aish goal "<goal>"'),
        (("  ",), 'aish: no goal: aish goal "<goal>"'),
        (("--max-steps", "0", "x"), "--max-steps: must be at least 1: 0"),
        (("--max-steps", "two", "x"), "--max-steps: not a whole number: 'two'"),
        (("--model", "nope", "x"), "unknown model preset 'nope'"),
    ],
)
def test_usage_and_config_mistakes_exit_2(
    serve: ServeFn, xdg_home: Path, workdir: Path, args: tuple[str, ...], needle: str
) -> None:
    server = serve(_steps("GOAL: complete"))
    _config(xdg_home, server.url)
    result = _goal(*args, cwd=workdir)
    assert result.returncode == 2
    assert needle in result.stderr
    assert result.stdout == "" and server.requests == []


# ---- Ctrl-C ----------------------------------------------------------------------------------


def _children(pid: int) -> dict[int, list[str]]:
    """Every descendant process of `pid` → its command line."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: dict[int, list[str]] = {}
    wanted = {pid}
    while True:
        more = {p for p, parent in parents.items() if parent in wanted and p not in found}
        if not more:
            return found
        for child in more:
            try:
                raw = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            found[child] = raw.decode(errors="replace").split("\0")[:-1]
        wanted |= more


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def test_ctrl_c_stops_the_command_and_exits_130(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    server = serve(_steps("CMD: sleep 60", "GOAL: complete"))
    _config(xdg_home, server.url)
    proc = subprocess.Popen(
        [*AISH, "goal", "--json", "--yes-safe", "wait a minute"],
        preexec_fn=interruptible_like_at_a_terminal,
        cwd=workdir,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if json.loads(line)["type"] == "command_start":
                break
        sleeps: list[int] = []
        for _ in range(100):  # the shell reports the start before the child is exec'd
            sleeps = [p for p, argv in _children(proc.pid).items() if argv == ["sleep", "60"]]
            if sleeps:
                break
            time.sleep(0.05)
        assert sleeps, "the command never started"
        interrupted = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rest, stderr = proc.communicate(timeout=20)  # far below the sleep's 60 s
        took_s = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    assert proc.returncode == 130, stderr
    # Ctrl-C stopped the command instead of waiting for it: it exits within about 0.1 s of the
    # signal; 5 s is generous on a busy machine and far below the sleep's 60 s.
    assert took_s < 5, f"exited {took_s:.1f}s after SIGINT"
    events = _events("".join(lines) + rest)
    assert events[-1]["type"] == "norris_end"
    assert (events[-1]["status"], events[-1]["reason"]) == ("aborted", "interrupted (Ctrl-C)")
    assert "Traceback" not in stderr
    for _ in range(100):
        if all(_gone(pid) for pid in sleeps):
            break
        time.sleep(0.05)
    assert all(_gone(pid) for pid in sleeps), "sleep 60 was left running"


def _time_server(extra: str = "") -> str:
    return (
        "[mcp.servers.time]\n"
        f"command = {json.dumps(sys.executable)}\n"
        'args = ["-m", "mcp_server_time", "--local-timezone=UTC"]\n' + extra
    )


def test_mcp_tools_are_offered_and_gated_headless(
    serve: ServeFn, xdg_home: Path, workdir: Path
) -> None:
    call = {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}}
    server = serve(
        {
            "rules": [
                {
                    "when": {},
                    "replies": [
                        {"text": "Checking.", "tool_calls": [call]},
                        {"text": "GOAL: complete it is late"},
                        {"text": "Checking.", "tool_calls": [call]},
                    ],
                }
            ]
        }
    )
    # A trusted server's read-only tool is `safe`: --yes-safe runs it unattended.
    _config(xdg_home, server.url, _time_server("trusted = true\n"))
    result = _goal("--yes-safe", "--json", "what time is it", cwd=workdir)
    assert result.returncode == 0, result.stdout[-1500:]
    events = _events(result.stdout)
    kinds = [e["type"] for e in events]
    assert "tool_start" in kinds and "tool_end" in kinds
    assert events[-1]["status"] == "done"
    requests = _chat_requests(server)
    offered = [t["function"]["name"] for t in requests[0]["body"]["tools"]]
    assert offered == ["time__convert_time", "time__get_current_time"]
    answers = [m for m in requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert "day_of_week" in answers[0]["content"]  # the real server's answer reached the model

    # Untrusted, its hints count for nothing: the call halts, nothing is called.
    _config(xdg_home, server.url, _time_server())
    result = _goal("--yes-safe", "--json", "what time is it", cwd=workdir)
    assert result.returncode == 3, result.stderr
    end = _events(result.stdout)[-1]
    assert end["status"] == "halted"
    assert end["pending_action"] == 'time__get_current_time {"timezone": "UTC"}'
