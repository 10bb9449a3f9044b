"""Routing, fallback and the context budget as a person meets them in the REPL: `:route`,
`:fallback`, `:tokens`, a routed question, a failed model retried on the fallback, and a long
conversation whose early part is summarised."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

TRACEBACK = "Traceback (most recent call last):\\n  File app.py, line 3"


def _config(url: str, extra: str = "") -> str:
    presets = "".join(
        f'[models.{name}]\nendpoint = "{url}/v1"\nmodel = "{name}"\nmax_retries = 0\n'
        for name in ("small", "deep", "cloud", "summ")
    )
    return f'default_model = "small"\n{presets}{extra}'


def _models(server: Any) -> list[str]:
    return [r["body"]["model"] for r in server.requests if r["path"].endswith("/chat/completions")]


def test_route_and_fallback_commands_and_what_they_do(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        {
            "models": ["small", "deep", "cloud", "summ"],
            "rules": [
                {"when": {"model": "^small$", "user": "fail"}, "reply": {"status": 503}},
                {"when": {"model": "^deep$"}, "reply": {"text": "deep answer"}},
                {"when": {"model": "^cloud$"}, "reply": {"text": "cloud answer"}},
            ],
            "default": {"text": "small answer"},
        }
    )
    extra = (
        '[routing]\nauto = true\ncloud_fallback = true\nfallback_model = "cloud"\n'
        '[routing.classes]\ncode = "deep"\n'
    )
    aish = spawn_aish(aish_home, config=_config(server.url, extra))
    terminals.append(aish)
    aish.wait_prompt()

    shown = aish.run(":route classes")
    assert "auto-routing on: code → deep, reasoning → your model, default → your model" in shown
    shown = aish.run("?Traceback (most recent call last): boom", timeout=30)
    assert "[aish] routed to deep (code: traceback)" in shown and "deep answer" in shown
    # The prompt keeps the user's model.
    assert aish.child.after is not None and "[aish:small]" in str(aish.child.after)
    assert "small answer" in aish.run("?list the files", timeout=30)
    assert _models(server)[-2:] == ["deep", "small"]

    shown = aish.run(":route check explain this Traceback please")
    assert "class code (traceback): deep" in shown
    assert "auto-routing off" in aish.run(":route off")
    assert "small answer" in aish.run("?Traceback again", timeout=30)
    assert _models(server)[-1] == "small"
    assert "if auto-routing were on" in aish.run(":route check stack trace here")

    shown = aish.run("?please fail now", timeout=30)
    assert "[aish] local small failed (HTTP 503); retrying via cloud" in shown
    assert "cloud answer" in shown
    assert _models(server)[-2:] == ["small", "cloud"]
    assert "cloud fallback off" in aish.run(":fallback off")
    shown = aish.run("?fail once more", timeout=30)
    assert "retrying via" not in shown and "503" in shown
    assert _models(server)[-1] == "small"
    assert "retried via cloud" in aish.run(":fallback on")

    shown = aish.run(":tokens")
    assert "next request to small:" in shown and "of 8,192" in shown


def test_a_long_conversation_is_summarised_and_the_summary_reaches_the_model(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve(
        {
            "models": ["small", "deep", "cloud", "summ"],
            "rules": [
                {"when": {"model": "^summ$"}, "reply": {"text": "EARLIER: the user asked q0"}}
            ],
            "default": {"text": "noted"},
        }
    )
    extra = '[context]\nmax_turns = 2\nsummarize_on_evict = true\nsummarizer_model = "summ"\n'
    aish = spawn_aish(aish_home, config=_config(server.url, extra))
    terminals.append(aish)
    aish.wait_prompt()
    for n in range(3):
        shown = aish.run(f"?q{n}", timeout=30)
        assert "noted" in shown
    assert "[aish] context: 2 oldest exchange(s) summarised (max_turns 2)" in shown
    chats = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    [last] = [m["content"] for m in chats[-1]["body"]["messages"] if m["role"] == "user"]
    # The summary leads the newest message; the cwd is told again (its message was evicted).
    assert last.startswith(
        "[earlier conversation, summarised]\nEARLIER: the user asked q0\n[end of summary]\n\n"
    )
    assert "cwd: " in last and last.endswith("\n\nq2")
    history = aish.run(":history")
    assert "EARLIER: the user asked q0" in history
    shown = aish.run(":tokens")
    assert "1 of 2 turns" in shown


def _chats(server: Any) -> list[str]:
    """The last user message of every chat request the model server received."""
    texts = []
    for request in server.requests:
        if request["path"].endswith("/chat/completions"):
            users = [m["content"] for m in request["body"]["messages"] if m["role"] == "user"]
            texts.append(users[-1])
    return texts


def test_everyday_lines_route_by_the_shells_cwd_and_replies_reach_the_model(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"models": ["small"], "default": {"text": "model says hi"}})
    sub = aish_home / "work" / "proj" / "sub"
    sub.mkdir(parents=True)
    (sub / "a").write_text("from a\n")
    (sub / "b").write_text("from b\n")
    aish = spawn_aish(aish_home, config=_config(server.url))
    terminals.append(aish)
    aish.wait_prompt()

    # In the start directory there is no `a`: the word reads as an article.
    assert "model: " in aish.run(":route check mv a b")
    aish.run("cd proj/sub")  # the files are looked for in the shell's cwd, not aish's
    shown = aish.run(":route check mv a b")
    assert "shell: `mv` is a known command, and `a`, `b` name files here" in shown
    aish.run("mv a b")
    assert not (sub / "a").exists() and (sub / "b").read_text() == "from a\n"
    assert "from a" in aish.run("cat b")
    aish.run("exec 3<>b")  # valid bash that tree-sitter misreads: the shell runs it
    assert "from a" in aish.run("cat <&3")
    assert _chats(server) == []

    assert "model says hi" in aish.run("yes please", timeout=30)
    assert "model says hi" in aish.run("install numpy", timeout=30)
    assert [text.rsplit("\n\n", 1)[-1] for text in _chats(server)] == [
        "yes please",
        "install numpy",
    ]
