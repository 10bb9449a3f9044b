"""`CMD&:` in the real REPL: after the yes the prompt comes back while the job runs, `:jobs`
shows it, its end is said above the prompt, and its result reaches the next request."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

JOB = "until [ -e go ]; do sleep 0.1; done; echo job-finished-marker; exit 3"


def config_for(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def _chat_bodies(server: object) -> list[str]:
    return [
        json.dumps(r["body"])
        for r in server.requests  # type: ignore[attr-defined]
        if r["path"].endswith("/chat/completions")
    ]


def test_a_background_job_returns_the_prompt_and_its_result_reaches_the_next_request(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    work = aish_home / "work"
    server = serve(
        {
            "rules": [
                {"when": {"user": "build it"}, "reply": {"text": f"Starting it.\nCMD&: {JOB}"}},
                {"when": {"user": "how did it go"}, "reply": {"text": "It failed with 3."}},
                {"when": {"user": "heredoc"}, "reply": {"text": "CMD&: cat <<EOF > notes"}},
            ]
        }
    )
    aish = spawn_aish(aish_home, config=config_for(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    aish.type_line("build it")
    aish.expect("CMD&: runs in the background")
    aish.expect(r"\[d\]escribe")
    aish.child.send("y")
    aish.expect(r"\[1\] started in the background")
    aish.wait_prompt()  # the job waits for `go`: the prompt came back while it runs
    listed = aish.run(":jobs")
    assert "[1] running" in listed and "until [ -e go ]" in listed
    # The user's shell is free: a command of the user's runs meanwhile.
    assert "free-shell" in aish.run("echo free-shell")

    (work / "go").touch()
    aish.expect(r"\[1\] done \(exit 3", timeout=20)
    aish.wait_prompt()  # drawn again below the notice
    assert "[1] done (3)" in aish.run(":jobs")
    assert "job-finished-marker" in aish.run(":jobs 1")

    aish.run("how did it go")
    asked = _chat_bodies(server)[-1]
    assert "job-finished-marker" in asked
    assert "exit status 3" in asked
    assert "background job 1 (CMD&:) ran" in asked

    # What cannot be wrapped is refused with the reason, nobody asked, the model told.
    shown = aish.run("heredoc")
    assert "cannot run in the background: a here-document" in shown
    assert "[d]escribe" not in shown
    aish.run("how did it go")
    assert "cannot run in the background: a here-document" in _chat_bodies(server)[-1]
    assert not (work / "notes").exists()
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)
