"""Zero-config: presets built from what answers on this machine and which keys are exported.

Used only when there is no config file and nothing else names a model. Local servers are
probed concurrently on their default ports with a short timeout (a closed port refuses at once,
so the usual cost is a few milliseconds); cloud providers are offered when their usual key
variable is set. httpx is imported inside the probe so that importing the config stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import httpx

LOCAL_HOST = "127.0.0.1"


class LocalServer(NamedTuple):
    """A kind of local model server and the port it listens on by default."""

    name: str
    port: int


class CloudProvider(NamedTuple):
    """A hosted API offered when `variable` holds a key."""

    name: str
    variable: str
    endpoint: str
    model: str
    api: str = "openai"


# Read at call time, so tests (and packagers) can replace them.
LOCAL_SERVERS: tuple[LocalServer, ...] = (
    LocalServer("llama-server", 8080),
    LocalServer("llama-server", 9931),
    LocalServer("ollama", 11434),
    LocalServer("lmstudio", 1234),
    LocalServer("vllm", 8000),
)
CLOUD_PROVIDERS: tuple[CloudProvider, ...] = (
    CloudProvider(
        "openrouter",
        "OPENROUTER_API_KEY",
        "https://openrouter.ai/api/v1",
        "anthropic/claude-sonnet-4.5",
    ),
    CloudProvider("openai", "OPENAI_API_KEY", "https://api.openai.com/v1", "gpt-4.1-mini"),
    CloudProvider(
        "anthropic",
        "ANTHROPIC_API_KEY",
        "https://api.anthropic.com",
        "claude-sonnet-4-5",
        api="anthropic",
    ),
)


def how_to_configure(config_path: Path) -> str:
    """The one line shown when no model is configured or found."""
    keys = ", ".join(provider.variable for provider in CLOUD_PROVIDERS)
    return (
        f"no model configured: run `aish init` to write an example config to {config_path}, "
        f"start a local model server (llama-server, Ollama, LM Studio, vLLM), or set one of {keys}"
    )


class Detected(NamedTuple):
    """What autodetection found: raw preset tables, ready to be a config layer."""

    presets: dict[str, dict[str, Any]]
    default_model: str | None


def detect_presets(
    env: Mapping[str, str],
    *,
    servers: Sequence[LocalServer] | None = None,
    host: str = LOCAL_HOST,
    timeout_s: float = 0.3,
) -> Detected:
    """Local servers first (the default is the first that answered), then cloud keys."""
    local = run_probe(servers, host=host, timeout_s=timeout_s)
    cloud = key_variable_presets(env)
    presets = {**local, **{name: table for name, table in cloud.items() if name not in local}}
    default = next(iter(local), None) or next(iter(cloud), None)
    return Detected(presets, default)


def key_variable_presets(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """A preset for each well-known provider whose key variable is set and not empty."""
    return {
        provider.name: {
            "endpoint": provider.endpoint,
            "model": provider.model,
            "api": provider.api,
            "api_key_env": provider.variable,
        }
        for provider in CLOUD_PROVIDERS
        if env.get(provider.variable, "").strip()
    }


def run_probe(
    servers: Sequence[LocalServer] | None = None,
    *,
    host: str = LOCAL_HOST,
    timeout_s: float = 0.3,
) -> dict[str, dict[str, Any]]:
    """`probe_local_servers` for synchronous callers, even ones inside a running event loop."""
    # asyncio and httpx are imported only when a probe runs: a config file means it never does.
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    probe = probe_local_servers(servers, host=host, timeout_s=timeout_s)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(probe)
    # asyncio.run refuses to nest; a short-lived thread gets a loop of its own.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="aish-probe") as pool:
        return pool.submit(asyncio.run, probe).result()


async def probe_local_servers(
    servers: Sequence[LocalServer] | None = None,
    *,
    host: str = LOCAL_HOST,
    timeout_s: float = 0.3,
) -> dict[str, dict[str, Any]]:
    """Ask each server's `/v1/models` at once; a preset for each that lists a model.

    A second server of the same kind is named after its port (`llama-server-9931`).
    """
    import asyncio

    import httpx

    candidates = list(LOCAL_SERVERS if servers is None else servers)
    if not candidates:
        return {}
    netloc = f"[{host}]" if ":" in host else host
    # trust_env=False: an HTTP proxy from the environment must not intercept loopback probes.
    async with httpx.AsyncClient(timeout=timeout_s, trust_env=False) as client:
        models = await asyncio.gather(
            *(
                _first_model(client, f"http://{netloc}:{server.port}/v1", timeout_s)
                for server in candidates
            )
        )
    presets: dict[str, dict[str, Any]] = {}
    for server, model in zip(candidates, models, strict=True):
        if model is None:
            continue
        name = server.name if server.name not in presets else f"{server.name}-{server.port}"
        presets[name] = {"endpoint": f"http://{netloc}:{server.port}/v1", "model": model}
    return presets


async def _first_model(client: httpx.AsyncClient, base: str, timeout_s: float) -> str | None:
    """The first model id the server lists, or None when it does not answer like one."""
    import asyncio

    import httpx

    try:
        # The client's timeout is per operation; this bounds a server that trickles bytes.
        async with asyncio.timeout(timeout_s * 2):
            response = await client.get(f"{base}/models")
        if response.status_code != 200:
            return None
        listing = response.json()
    except (httpx.HTTPError, TimeoutError, ValueError):
        return None
    entries = listing.get("data") if isinstance(listing, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]:
            return str(entry["id"])
    return None
