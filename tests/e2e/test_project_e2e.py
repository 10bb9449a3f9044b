"""Project awareness as a person meets it: an untrusted `.aish.toml` is ignored with a notice,
`:trust` shows what it sets and applies it, `:config` names each value's source, and
`:context` sends a project summary with the next question."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish


def _config(url: str) -> str:
    return f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'


def test_trust_config_and_context(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": "noted"}})
    work = aish_home / "work"
    (work / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    (work / ".gitignore").write_text("secret.log\n")
    (work / "secret.log").write_text("ignored\n")
    (work / ".aish.toml").write_text("[context]\nmax_turns = 7\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@x", "-C", str(work)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "pyproject.toml", ".gitignore"], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)

    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    started = aish.wait_prompt()
    assert "is not trusted: :trust to review it" in started
    assert "context.max_turns = 40  (default)" in aish.run(":config context.max_turns")
    aish.type_line(":trust")
    listing = aish.expect(r"\[y/N\]")
    assert "context.max_turns = 7" in listing
    aish.child.send("y")
    trusted = aish.wait_prompt()
    assert "config reloaded: it applies now" in trusted
    shown = aish.run(":config context.max_turns")
    assert "context.max_turns = 7  (project file" in shown

    aish.run(":context")
    attached = aish.run(":context")  # asked twice: one block goes, the newer
    assert "attached to your next question: root:" in attached and "branch main" in attached
    assert "noted" in aish.run("?what is this project?", timeout=30)
    chats = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    [newest] = [m["content"] for m in chats[-1]["body"]["messages"] if m["role"] == "user"]
    assert newest.count("[end of project]") == 1 and 'name = "demo"' in newest
    assert "secret.log" not in newest  # .gitignore is respected
    assert newest.endswith("what is this project?")
    aish.run("?and now?", timeout=30)  # told once: the next question does not repeat it
    chats = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert "[end of project]" not in chats[-1]["body"]["messages"][-1]["content"]
