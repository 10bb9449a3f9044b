"""`aish ask` as a user runs it: a real process, a real config file, a real model server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ServeFn
from ..processes import interruptible_like_at_a_terminal

AISH = [sys.executable, "-m", "aish"]


def _write_config(home: Path, text: str) -> Path:
    path = home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _preset(url: str, name: str = "local", extra: str = "", retries: int = 0) -> str:
    return (
        f'default_model = "{name}"\n\n[models.{name}]\nendpoint = "{url}/v1"\n'
        f'model = "testllm"\ntimeout_s = 5\nmax_retries = {retries}\n{extra}'
    )


def _ask(
    *args: str, stdin: str | bytes | None = None, timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [*AISH, "ask", *args],
        input=data if data is not None else b"",
        capture_output=True,
        timeout=timeout,
        env=os.environ.copy(),
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    )


def _assert_one_clean_line(stderr: str) -> None:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr


def test_streams_answer_and_lists_commands_without_running_them(
    serve: ServeFn, xdg_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "must-not-exist"
    server = serve(
        {
            "rules": [],
            "default": {
                "text": f"Run these:\nCMD: touch {marker}\nCMD: ls -la\nDone.",
                "chunk_size": 5,
            },
        }
    )
    _write_config(xdg_home, _preset(server.url))
    result = _ask("what", "should", "I", "do?")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Run these:\nCMD: touch")
    assert result.stdout.rstrip().endswith(f"CMD: touch {marker}\nCMD: ls -la")
    assert "Proposed commands (not run)" in result.stdout
    assert not marker.exists()
    body = server.requests[0]["body"]
    assert body["messages"][-1]["content"] == "what should I do?"
    assert "CMD:" in body["messages"][0]["content"]


def test_piped_stdin_is_context_and_invalid_utf8_survives(serve: ServeFn, xdg_home: Path) -> None:
    server = serve({"rules": [], "default": {"text": "It fails because of X."}})
    _write_config(xdg_home, _preset(server.url))
    log = b"".join(b"line %d ok\n" % i for i in range(500)) + b"FATAL: disk \xff full\n"
    result = _ask("why does it fail?", stdin=log)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It fails because of X.\n"
    sent = server.requests[0]["body"]["messages"][-1]["content"]
    assert "[piped input]" in sent and "FATAL: disk \ufffd full" in sent
    assert "lines omitted" in sent and sent.endswith("why does it fail?")


def test_json_mode_prints_events(serve: ServeFn, xdg_home: Path) -> None:
    server = serve(
        {
            "rules": [],
            "default": {"text": "Use CMD: below\nCMD: df -h", "reasoning": "disk question"},
        }
    )
    _write_config(xdg_home, _preset(server.url))
    result = _ask("--json", "disk?")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "reasoning" and "text" in kinds
    assert kinds[-3:] == ["usage", "finish", "command"]
    assert events[-1] == {"type": "command", "command": "df -h"}
    assert "".join(e["text"] for e in events if e["type"] == "text") == "Use CMD: below\nCMD: df -h"


def test_model_flag_selects_a_preset(serve: ServeFn, xdg_home: Path) -> None:
    a = serve({"rules": [], "default": {"text": "from a"}})
    b = serve({"rules": [], "default": {"text": "from b"}})
    _write_config(xdg_home, _preset(a.url, "a") + "\n" + _preset(b.url, "b").split("\n", 2)[2])
    assert _ask("--model", "b", "hi").stdout == "from b\n"
    assert _ask("hi").stdout == "from a\n"


@pytest.mark.parametrize(
    ("reply", "needle"),
    [
        ({"status": 401, "body": {"error": {"message": "Invalid API Key"}}}, "Invalid API Key"),
        (
            {
                "status": 502,
                "body": "<html><title>Bad Gateway</title></html>",
                "content_type": "text/html",
            },
            "Bad Gateway",
        ),
        ({"raw": ["{not json"], "content_type": "application/json"}, "not JSON"),
        (
            {"text": "abc", "error_after": 1, "error_style": "openai", "error_message": "kaboom"},
            "kaboom",
        ),
    ],
)
def test_server_failures_are_one_line_and_non_zero(
    serve: ServeFn, xdg_home: Path, reply: dict[str, Any], needle: str
) -> None:
    server = serve({"rules": [], "default": reply})
    _write_config(xdg_home, _preset(server.url))
    result = _ask("hi")
    assert result.returncode == 1
    _assert_one_clean_line(result.stderr.replace("[aish] reply cut short\n", ""))
    assert needle in result.stderr and result.stderr.startswith(("aish: ", "[aish]"))


def test_unreachable_endpoint(xdg_home: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # With the default retries: the short backoffs stay quiet, the failure is one line.
    _write_config(xdg_home, _preset(f"http://127.0.0.1:{port}", retries=2))
    result = _ask("hi")
    assert result.returncode == 1
    _assert_one_clean_line(result.stderr)
    assert "cannot connect" in result.stderr and str(port) in result.stderr
    # The details the terminal was spared are in the log under the XDG state dir.
    log = (xdg_home / "state" / "aish" / "aish.log").read_text()
    assert "Traceback" in log and "ConnectError" in log and str(port) in log


def test_unknown_preset_name(serve: ServeFn, xdg_home: Path) -> None:
    server = serve({"rules": []})
    _write_config(xdg_home, _preset(server.url))
    result = _ask("--model", "nope", "hi")
    assert result.returncode == 2
    _assert_one_clean_line(result.stderr)
    assert "nope" in result.stderr and "local" in result.stderr


def test_missing_api_key_variable(serve: ServeFn, xdg_home: Path) -> None:
    server = serve({"rules": []})
    _write_config(xdg_home, _preset(server.url, extra='api_key_env = "AISH_TEST_NO_SUCH_KEY"\n'))
    result = _ask("hi")
    assert result.returncode == 2
    _assert_one_clean_line(result.stderr)
    assert "AISH_TEST_NO_SUCH_KEY" in result.stderr
    assert server.requests == []


def test_api_key_is_sent_from_the_named_variable(
    serve: ServeFn, xdg_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve({"rules": [], "default": {"text": "ok"}})
    _write_config(xdg_home, _preset(server.url, extra='api_key_env = "AISH_TEST_KEY"\n'))
    monkeypatch.setenv("AISH_TEST_KEY", "sk-live-123")
    assert _ask("hi").returncode == 0
    assert server.requests[0]["body"]["model"] == "testllm"


def test_malformed_config_warns_with_line_and_still_runs(serve: ServeFn, xdg_home: Path) -> None:
    server = serve({"rules": [], "default": {"text": "still here"}})
    _write_config(xdg_home, _preset(server.url) + 'temperature = "hot"\n')
    result = _ask("hi")
    assert result.returncode == 0
    assert result.stdout == "still here\n"
    assert "config.toml:8: key models.local.temperature" in result.stderr
    assert "Traceback" not in result.stderr


def test_toml_syntax_error_is_one_line(xdg_home: Path) -> None:
    _write_config(xdg_home, "[models.x\nendpoint = 1\n")
    result = _ask("hi")
    assert result.returncode != 0
    assert "config.toml:1:" in result.stderr
    assert "Traceback" not in result.stderr


def test_nothing_to_ask_is_a_usage_error(xdg_home: Path) -> None:
    result = _ask()
    assert result.returncode == 2 and "nothing to ask" in result.stderr


def test_version_does_not_import_httpx_or_mcp() -> None:
    code = (
        "import sys\nfrom aish.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('httpx', 'mcp', 'pydantic', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["aish 0.1.0", "[]"]


def test_ask_against_a_local_server_imports_no_httpx_and_no_ca_bundle(
    serve: ServeFn, xdg_home: Path
) -> None:
    """A request with no proxy goes through aish's own HTTP client: httpx, httpcore, anyio and
    h11 cost about a third of a one-shot, and plain http needs no certificates."""
    server = serve({"rules": [], "default": {"text": "fine"}})
    _write_config(xdg_home, _preset(server.url))
    heavy = ("httpx", "httpcore", "anyio", "h11", "httpx_sse", "certifi")
    code = (
        "import sys\nfrom aish.cli import main\n"
        "try:\n    main(['ask', 'hi'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.splitlines() == ["fine", "[]"], out.stderr
    assert len(server.requests) == 1


def test_ctrl_c_stops_the_stream_and_keeps_the_partial_answer(
    serve: ServeFn, xdg_home: Path
) -> None:
    import signal
    import time

    # A reply that takes minutes to stream: the Ctrl-C surely lands in the middle of it, however
    # long a busy machine keeps this test from sending it.
    reply = "first part, " + "then more " * 2000
    server = serve({"rules": [], "default": {"text": reply, "chunk_size": 11, "delay_ms": 300}})
    _write_config(xdg_home, _preset(server.url))
    proc = subprocess.Popen(
        [*AISH, "ask", "hi"],
        preexec_fn=interruptible_like_at_a_terminal,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    first = os.read(proc.stdout.fileno(), 64)  # blocks until the answer starts streaming
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    took_s = time.monotonic() - started
    assert proc.returncode == 130
    # Ctrl-C stopped the stream instead of letting it run on: it exits within a tenth of a second of
    # the signal; 5 s is generous on a busy machine and far below the minutes the reply takes.
    assert took_s < 5, f"exited {took_s:.1f}s after SIGINT"
    text = (first + out).decode()
    assert text.startswith("first part,") and len(text) < len(reply) // 2
    assert "cut short" in err.decode() and b"Traceback" not in err


def test_doctor_shows_sources_and_which_presets_answer(
    serve: ServeFn, xdg_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve({"rules": [], "models": ["testllm"]})
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    path = _write_config(
        xdg_home,
        _preset(server.url, "good")
        + f'\n[models.dead]\nendpoint = "http://127.0.0.1:{dead}/v1"\nmodel = "m"\n'
        + '\n[models.keyless]\nendpoint = "https://example.invalid/v1"\nmodel = "m"\n'
        + 'api_key_env = "AISH_TEST_ABSENT"\n',
    )
    monkeypatch.setenv("AISH_DEFAULT_MODEL", "dead")
    out = subprocess.run([*AISH, "doctor"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    lines = out.stdout.splitlines()
    assert f"config file: {path}" in lines
    assert "  env AISH_DEFAULT_MODEL: default_model" in lines
    assert any(line.startswith(f"  {path}: ") for line in lines)
    assert "presets (default: dead):" in lines
    assert any(line.startswith("  [ok ] good: testllm") and "answers" in line for line in lines)
    assert any(line.startswith("  [bad] dead:") and "connection refused" in line for line in lines)
    assert any(line.startswith("  [bad] ") and "AISH_TEST_ABSENT" in line for line in lines)


def test_init_writes_a_config_that_loads_cleanly_and_never_overwrites(xdg_home: Path) -> None:
    first = subprocess.run([*AISH, "init"], capture_output=True, text=True, timeout=30)
    path = xdg_home / "config" / "aish" / "config.toml"
    assert first.returncode == 0 and path.exists() and str(path) in first.stdout
    path.write_text(path.read_text() + "\n# mine\n")
    again = subprocess.run([*AISH, "init"], capture_output=True, text=True, timeout=30)
    assert again.returncode == 2 and "--force" in again.stderr
    assert path.read_text().endswith("# mine\n")
    doctor = subprocess.run([*AISH, "doctor"], capture_output=True, text=True, timeout=30)
    assert doctor.stderr == ""  # the example has no mistakes to warn about


def test_a_command_cut_off_mid_line_is_not_proposed(serve: ServeFn, xdg_home: Path) -> None:
    text = "Clean the cache:\nCMD: ls /tmp\nCMD: rm -rf /tmp/build/cache\n"
    server = serve({"rules": [], "default": {"text": text, "chunk_size": 13, "cut_after": 4}})
    _write_config(xdg_home, _preset(server.url))
    result = _ask("clean")
    assert result.returncode == 1
    assert result.stdout.startswith("Clean the cache:\nCMD: ls /tmp\nCMD: rm -rf /tmp/build")
    assert result.stdout.rstrip().endswith("Proposed commands (not run):\nCMD: ls /tmp")
    assert "cut short" in result.stderr


def test_reader_going_away_is_quiet(serve: ServeFn, xdg_home: Path) -> None:
    server = serve({"rules": [], "default": {"text": "x" * 200_000, "chunk_size": 4096}})
    _write_config(xdg_home, _preset(server.url))
    proc = subprocess.Popen(
        [*AISH, "ask", "hi"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()  # like `| head -c 10`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=20) == 141
    assert err == ""


def test_deeply_nested_config_and_odd_log_level_are_one_line(
    xdg_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_config(xdg_home, "x = " + "[" * 3000 + "]" * 3000 + "\n")
    monkeypatch.setenv("AISH_LOG", "basic_format")
    result = _ask("hi")
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "config.toml: syntax: values nested too deeply" in result.stderr


def _two_presets(local: str, cloud: str, extra: str) -> str:
    cloud_table = f'[models.cloud]\nendpoint = "{cloud}/v1"\nmodel = "testllm"\nmax_retries = 0\n'
    return _preset(local, "local") + cloud_table + extra


def test_a_dead_local_model_falls_back_once_to_the_cloud_preset(
    serve: ServeFn, xdg_home: Path
) -> None:
    cloud = serve({"rules": [], "default": {"text": "from the cloud"}})
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    routing = '[routing]\ncloud_fallback = true\nfallback_model = "cloud"\n'
    _write_config(xdg_home, _two_presets(dead, cloud.url, routing))
    result = _ask("hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "from the cloud\n"
    assert "[aish] local local failed (connection refused); retrying via cloud" in result.stderr
    # Without the switch the failure is the answer.
    _write_config(xdg_home, _two_presets(dead, cloud.url, ""))
    result = _ask("hi")
    assert result.returncode == 1 and "retrying via" not in result.stderr
    assert len(cloud.requests) == 1


def test_auto_routing_picks_the_preset_of_the_questions_class(
    serve: ServeFn, xdg_home: Path
) -> None:
    local = serve({"rules": [], "default": {"text": "from local"}})
    cloud = serve({"rules": [], "default": {"text": "from the code model"}})
    routing = '[routing]\nauto = true\nclasses = { code = "cloud" }\n'
    _write_config(xdg_home, _two_presets(local.url, cloud.url, routing))
    result = _ask("Traceback (most recent call last): what now")
    assert result.stdout == "from the code model\n"
    assert "[aish] routed to cloud (code: traceback)" in result.stderr
    assert _ask("list the files").stdout == "from local\n"
    # --model is the user's choice: no routing.
    assert _ask("--model", "local", "Traceback again").stdout == "from local\n"


def test_a_projects_file_applies_to_aish_ask_only_once_trusted(
    serve: ServeFn, xdg_home: Path, tmp_path: Path
) -> None:
    from aish.config.project import digest_of
    from aish.store import Store

    a = serve({"rules": [], "default": {"text": "from a"}})
    b = serve({"rules": [], "default": {"text": "from b"}})
    _write_config(xdg_home, _preset(a.url, "a") + "\n" + _preset(b.url, "b").split("\n", 2)[2])
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    (project / ".aish.toml").write_text('default_model = "b"\n')

    def ask() -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [*AISH, "ask", "hi"], cwd=project, capture_output=True, text=True, timeout=30
        )
        return proc

    untrusted = ask()
    assert untrusted.stdout == "from a\n"
    assert "is not trusted: :trust to review it" in untrusted.stderr
    with Store.open() as store:
        store.trust_project(
            project / ".aish.toml", digest_of((project / ".aish.toml").read_bytes())
        )
    trusted = ask()
    assert trusted.stdout == "from b\n" and "not trusted" not in trusted.stderr
