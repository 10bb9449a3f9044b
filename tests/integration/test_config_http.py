"""Autodetection and `doctor`'s endpoint check against a real HTTP server on 127.0.0.1.

The server is a plain `http.server` thread started on port 0, so nothing depends on what
happens to be running on this machine.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from aish.config import autodetect, load_config
from aish.config.autodetect import LocalServer, probe_local_servers, run_probe
from aish.llm.probe import check_endpoint
from aish.llm.types import ModelTarget


@dataclass
class ModelsServer:
    """Answers GET /v1/models with `listing` (or `status`); records request headers."""

    port: int = 0
    status: int = 200
    listing: Any = field(default_factory=lambda: {"object": "list", "data": [{"id": "qwen"}]})
    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
def models_server() -> Iterator[ModelsServer]:
    state = ModelsServer()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            found = self.path == "/v1/models"
            body = json.dumps(state.listing).encode() if found else b"not here"
            self.send_response(state.status if found else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def target(endpoint: str, **fields: Any) -> ModelTarget:
    return ModelTarget(name="t", endpoint=endpoint, model=fields.pop("model", "qwen"), **fields)


# ---- autodetection --------------------------------------------------------------------------


async def test_probe_finds_the_server_and_its_first_model(
    models_server: ModelsServer, closed_port: int
) -> None:
    models_server.listing = {"data": [{"id": "llama-3b"}, {"id": "other"}]}
    found = await probe_local_servers(
        [LocalServer("ollama", closed_port), LocalServer("llama-server", models_server.port)]
    )
    assert found == {
        "llama-server": {"endpoint": f"{models_server.base}/v1", "model": "llama-3b"},
    }


def test_two_servers_of_one_kind_get_distinct_names(models_server: ModelsServer) -> None:
    port = models_server.port
    found = run_probe([LocalServer("vllm", port), LocalServer("vllm", port)])
    assert list(found) == ["vllm", f"vllm-{port}"]


async def test_probe_ignores_servers_that_list_no_model(models_server: ModelsServer) -> None:
    listings: list[Any] = [{"data": []}, {"models": ["x"]}, ["x"], "garbage"]
    for listing in listings:
        models_server.listing = listing
        assert await probe_local_servers([LocalServer("lmstudio", models_server.port)]) == {}
    models_server.status = 503
    models_server.listing = {"data": [{"id": "x"}]}
    assert run_probe([LocalServer("lmstudio", models_server.port)]) == {}


def test_zero_config_uses_the_local_server_first(
    models_server: ModelsServer,
    closed_port: int,
    xdg_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        autodetect,
        "LOCAL_SERVERS",
        (LocalServer("llama-server", closed_port), LocalServer("ollama", models_server.port)),
    )
    loaded = load_config(env={"OPENAI_API_KEY": "sk"}, probe_timeout_s=2)
    assert loaded.warnings == [] and loaded.autodetected
    assert list(loaded.config.models) == ["ollama", "openai"]
    assert loaded.config.default_model == "ollama"
    ollama = loaded.config.models["ollama"]
    assert (ollama.endpoint, ollama.model) == (f"{models_server.base}/v1", "qwen")
    assert ollama.effective_secrets() == "off"
    assert loaded.sources["models.ollama.endpoint"] == "autodetect"
    assert loaded.sources["default_model"] == "autodetect"
    # An explicit choice in the environment still wins over the detected default.
    loaded = load_config(env={"OPENAI_API_KEY": "sk", "AISH_DEFAULT_MODEL": "openai"})
    assert loaded.config.default_model == "openai"


def test_zero_config_with_nothing_running(
    closed_port: int, xdg_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(autodetect, "LOCAL_SERVERS", (LocalServer("vllm", closed_port),))
    loaded = load_config(env={})
    assert not loaded.autodetected and loaded.config.models == {}
    assert len(loaded.warnings) == 1 and "aish init" in loaded.warnings[0]


async def test_probe_works_from_inside_a_running_event_loop(models_server: ModelsServer) -> None:
    # load_config is synchronous; an async caller must not trip over asyncio.run.
    assert list(run_probe([LocalServer("vllm", models_server.port)])) == ["vllm"]


# ---- doctor ---------------------------------------------------------------------------------


async def test_check_endpoint_counts_models(models_server: ModelsServer) -> None:
    models_server.listing = {"data": [{"id": "qwen"}, {"id": "b"}, {"id": "c"}]}
    ok, detail = await check_endpoint(target(f"{models_server.base}/v1/", api_key="sk-1"), 2)
    assert (ok, detail) == (True, "answers, 3 models")
    path, headers = models_server.seen[-1]
    assert path == "/v1/models" and headers["authorization"] == "Bearer sk-1"


async def test_check_endpoint_notices_an_unlisted_model(models_server: ModelsServer) -> None:
    ok, detail = await check_endpoint(target(f"{models_server.base}/v1", model="gone"), 2)
    assert (ok, detail) == (True, "answers, 1 model; gone is not among them")


async def test_check_endpoint_speaks_anthropic(models_server: ModelsServer) -> None:
    for endpoint in (models_server.base, f"{models_server.base}/v1"):
        ok, _ = await check_endpoint(target(endpoint, api="anthropic", api_key="sk-ant"), 2)
        assert ok
        path, headers = models_server.seen[-1]
        assert path == "/v1/models"
        assert headers["x-api-key"] == "sk-ant" and headers["anthropic-version"]
        assert "authorization" not in headers


async def test_check_endpoint_reports_status_and_odd_answers(models_server: ModelsServer) -> None:
    models_server.status = 401
    assert await check_endpoint(target(f"{models_server.base}/v1"), 2) == (False, "HTTP 401")
    assert await check_endpoint(target(models_server.base), 2) == (False, "HTTP 404")
    models_server.status = 200
    models_server.listing = ["not", "a", "listing"]
    assert await check_endpoint(target(f"{models_server.base}/v1"), 2) == (
        False,
        "answers, but not with a model list",
    )


async def test_check_endpoint_on_a_closed_port(closed_port: int) -> None:
    result = await check_endpoint(target(f"http://127.0.0.1:{closed_port}/v1"), 2)
    assert result == (False, "connection refused")


async def test_check_endpoint_times_out() -> None:
    with socket.socket() as silent:  # accepts connections (backlog) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        port = silent.getsockname()[1]
        ok, detail = await check_endpoint(target(f"http://127.0.0.1:{port}/v1"), 0.2)
    assert not ok and detail == "no answer within 0.2s"
