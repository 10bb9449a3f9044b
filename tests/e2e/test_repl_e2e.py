"""The REPL end to end: a real aish in a real PTY, a real bash, a real model server."""

from __future__ import annotations

from pathlib import Path

import pexpect

from aish_testllm.prefix import serialise_prompt

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

EXPLANATION = (
    "The directory /nonexistent does not exist, so ls reported an error and exited with "
    "status 2. " * 40
)


def _config(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def test_ask_about_a_failed_command_then_approve_and_refuse(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    marker = tmp_path / "refused-marker"
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "why did that fail"},
                    "reply": {"text": EXPLANATION + "\nList the root instead:\nCMD: ls /\n"},
                },
                {
                    "when": {"user": "anything else"},
                    "reply": {"text": f"You could create a marker.\nCMD: touch {marker}\n"},
                },
            ],
            "default": {"text": "ok"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    shown = aish.run("ls /nonexistent")
    assert "No such file or directory" in shown

    aish.type_line("why did that fail?")
    aish.expect(r"CMD: ls /")
    aish.expect(r"\[y\]es / \[e\]dit / \[n\]o / \[d\]escribe")
    aish.child.send("y")
    shown = aish.wait_prompt()
    assert "usr" in shown and "etc" in shown  # `ls /` ran in the user's shell

    first = server.requests[0]["body"]["messages"][-1]["content"]
    assert "$ ls /nonexistent" in first and "exit status 2" in first
    assert "No such file or directory" in first and first.rstrip().endswith("why did that fail?")

    aish.type_line("anything else?")
    aish.expect(r"\[y\]es / \[e\]dit / \[n\]o / \[d\]escribe")
    aish.child.send("n")
    aish.wait_prompt()
    assert not marker.exists()

    second = server.requests[1]
    assert "$ ls /" in second["body"]["messages"][-1]["content"]  # the approved run is context

    aish.run("thanks")
    # Every request starts with the whole previous one: nothing already sent is re-rendered.
    for before, after in zip(server.requests, server.requests[1:], strict=False):
        sent = serialise_prompt([], None, before["body"]["messages"])
        assert after["prefix_reuse"]["chars"] >= len(sent) - 2  # all but the closing `]}`
    # After the long first exchange, a short turn re-uses almost everything.
    assert server.requests[2]["prefix_reuse"]["fraction"] >= 0.95

    history = aish.run(":history")
    for needle in (
        "ls /nonexistent",
        "why did that fail?",
        "CMD: ls /",
        "anything else?",
        "thanks",
    ):
        assert needle in history
    aish.type_line("exit")
    aish.child.expect_exact(["\n", ""], timeout=10)
    aish.child.wait()


def test_shell_state_persists_and_meta_commands(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"rules": [], "default": {"text": "ok"}})
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()
    aish.run("cd /tmp && export AISH_E2E=kept")
    assert "kept /tmp" in aish.run('echo "$AISH_E2E $(pwd)"')
    assert "ll" in aish.run("alias ll")  # the user's .bashrc was sourced
    assert "did you mean :help" in aish.run(":hlep")
    assert ":route on|off|classes|check <text>" in aish.run(":help")
    assert "shell" in aish.run(":route check ls -la")
    assert "model" in aish.run(":route check why is the sky blue?")
    assert server.requests == []  # nothing above went to the model
    aish.type_line(":quit")
    aish.child.expect(r"$|\n", timeout=10)


def test_typeahead_is_no_answer_and_ctrl_c_cancels(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    marker = tmp_path / "typed-ahead"
    slow = {"chunk_size": 4, "delay_ms": 150}
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "propose"},
                    "reply": {
                        "text": f"Here it comes, slowly.\nCMD: touch {marker}\nCMD: true\n",
                        **slow,
                    },
                },
                {"when": {"user": "ramble"}, "reply": {"text": "word " * 200, **slow}},
            ]
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line("propose something")
    aish.expect("Here")
    aish.child.send("y")  # pressed while the reply streams: must not answer the question
    aish.expect(r"\[d\]escribe")
    aish.child.sendcontrol("c")  # declines this command and the rest
    shown = aish.wait_prompt()
    assert "cancelled: 2 proposed command(s) not run" in shown
    assert not marker.exists()
    aish.expect(r"^[^\r\n]*y")  # the early key is type-ahead, never thrown away: the prompt has it
    aish.child.sendcontrol("u")

    aish.type_line("ramble on")
    aish.expect("word word")
    aish.child.sendcontrol("c")
    shown = aish.wait_prompt()
    assert "reply cut short" in shown
    assert shown.count("[aish]") == 1  # one status line per Ctrl-C
    history = aish.run(":history")
    assert "word word" in history and "[reply cut short]" in history
    aish.type_line("exit 3")
    aish.child.expect(pexpect.EOF, timeout=10)
    aish.child.close()
    assert aish.child.exitstatus == 3


def test_confirm_prompt_shows_the_verdict_and_an_edit_runs_as_the_users(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    victim, proposed, edited = tmp_path / "victim", tmp_path / "proposed", tmp_path / "edited"
    victim.mkdir()
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "clean up"},
                    "reply": {
                        "text": f"Let me look first.\nCMD: ls /\nCMD: rm -rf {victim}\n"
                        f"CMD: touch {proposed}\n"
                    },
                }
            ],
            "default": {"text": "ok"},
        }
    )
    config = _config(server.url) + "[safety]\nconfirm_cmd = false\n"
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line("clean up please")
    # `ls /` is provably read-only: with confirm_cmd = false it runs without a question.
    shown = aish.expect(r"\[destructive\] rm: [^\r\n]*")
    assert "[safe] runs without asking" in shown and "usr" in shown and "etc" in shown
    aish.expect(r"\[d\]escribe")
    aish.child.send("n")
    aish.expect(r"\[unknown\] touch [^\r\n]*")
    aish.expect(r"\[d\]escribe")
    aish.child.send("e")
    aish.expect("edit> ")
    aish.child.sendcontrol("u")  # clear the proposed command, type the user's own
    aish.type_line(f"touch {edited}")
    aish.wait_prompt()
    assert victim.is_dir() and edited.exists() and not proposed.exists()

    aish.run("thanks")
    told = server.requests[-1]["body"]["messages"][-1]["content"]
    assert f"$ touch {edited}\n" in told  # the user's own command, not "proposed by you"
    assert "$ ls / (proposed by you, run by aish's safety gate without asking)" in told
    assert len(server.requests) == 2  # interactive CMD: lines cost no second-opinion call
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=10)


def test_ctrl_c_at_edit_cancels_and_ctrl_c_on_an_unasked_command_stops_the_rest(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    go = tmp_path / "go.txt"
    go.write_text("42_go\n")
    server = serve(
        {
            "rules": [
                {
                    "when": {"user": "create files"},
                    "reply": {"text": f"CMD: touch {first}\nCMD: touch {second}\n"},
                },
                {
                    "when": {"user": "count slowly"},
                    # Both safe: with confirm_cmd = false they would run without a question.
                    # One process prints and then waits, so Ctrl-C right after the print
                    # reaches it: `sh -c 'echo …; sleep 30'` left a gap between the echo and
                    # the fork of sleep, where dash caught the SIGINT and then waited for
                    # sleep all the same (a flake under load).
                    "reply": {"text": f"CMD: tail -n +1 -f {go}\nCMD: echo $((6*7+1))_ran\n"},
                },
            ],
            "default": {"text": "ok"},
        }
    )
    aish = spawn_aish(aish_home, config=_config(server.url) + "[safety]\nconfirm_cmd = false\n")
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line("please create files")
    aish.expect(r"\[d\]escribe")
    aish.child.send("e")
    aish.expect("edit> ")
    aish.child.sendcontrol("c")  # cancel, not "no": the second touch is not even asked about
    shown = aish.wait_prompt()
    assert "cancelled: 2 proposed command(s) not run" in shown
    assert not first.exists() and not second.exists()

    aish.type_line("please count slowly")
    aish.expect("42_go")  # the first command runs, unasked, in the user's shell
    aish.child.sendcontrol("c")
    shown = aish.wait_prompt()
    assert "interrupted: 1 proposed command(s) not run" in shown
    assert "43_ran" not in shown
    aish.run("thanks")
    told = server.requests[-1]["body"]["messages"][-1]["content"]
    assert "go.txt (proposed by you, run by aish's safety gate without asking)" in told
    assert "[exit status 130" in told and "_ran" not in told
    aish.type_line("exit")
    aish.child.expect(pexpect.EOF, timeout=10)


# Written into a directory on PYTHONPATH: at exit, the module names the process had loaded.
_RECORD_MODULES = """\
import atexit, os, sys


def _record():
    with open(os.environ["AISH_TEST_MODULES_OUT"], "w") as out:
        out.write("\\n".join(sorted(sys.modules)))


atexit.register(_record)
"""


def test_questions_in_the_repl_import_no_httpx_when_no_proxy_applies(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    """Questions to a local model go through aish's own HTTP client on one kept connection:
    httpx, httpcore, anyio and h11 are never loaded, even with a proxy variable set."""
    server = serve({"rules": [], "default": {"text": "answered"}})
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_RECORD_MODULES)
    modules = tmp_path / "modules.txt"
    aish = spawn_aish(
        aish_home,
        config=_config(server.url),
        extra_env={
            "PYTHONPATH": str(site),
            "AISH_TEST_MODULES_OUT": str(modules),
            "HTTP_PROXY": "http://127.0.0.1:9",  # a loopback endpoint never takes a proxy
        },
    )
    terminals.append(aish)
    aish.wait_prompt()
    for question in ("?first question", "?second question"):
        aish.type_line(question)
        aish.expect("answered")
        aish.wait_prompt()
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)

    loaded = set(modules.read_text().split())
    assert "aish.llm.http1.client" in loaded  # the record is real: the question path is in it
    heavy = {"httpx", "httpcore", "anyio", "h11", "httpx_sse", "certifi"}
    # (`httpx._main` may be there: aish.llm's stand-in for httpx's command line, no httpx.)
    assert loaded & heavy == set()
    assert len(server.requests) == 2
    assert len({request["connection"] for request in server.requests}) == 1
