"""aish side by side with the tools people already use: `sgpt` (shell-gpt) and `llm`.

Installs each peer into its own virtualenv under bench/.peers/<name>/ (pinned versions, reused
when already there), starts one `aish_testllm` server (zero model delay) and points every tool at
it through its own config file in a throw-away HOME. Then, in one run, interleaved:

* one-shot question, process start to exit, and the peak RSS of that process tree (`os.wait4`);
* start-up alone (`--version`);
* a scripted 10-turn conversation (aish: its REPL in a PTY with `?question` lines; llm: `llm`
  then `llm -c`; sgpt: `sgpt --chat`): total prompt characters sent (the server's serialised
  prompt), the system prompt size and the mean `prefix_reuse` of turns 2-10 from the server's log;
* for aish only: time to first prompt, per-command overhead against bash and classifier speed,
  through the functions of bench/first_prompt.py, bench/shell_overhead.py and bench/classify.py
  (render speed: bench/render.py when it is there).

Results go into bench/RESULTS.md between the `peers` markers, the chart into bench/peers.png
(drawn by bench/peers_chart.py with matplotlib from the bench virtualenv, never the project's).

    .venv/bin/python bench/peers.py [--quick] [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pexpect

from aish_testllm.prefix import serialise_prompt
from aish_testllm.server import TestLLMServer
from results import write_section  # bench/ is the script directory, so this resolves

HERE = Path(__file__).resolve().parent
PEERS_DIR = HERE / ".peers"
CHART = HERE / "peers.png"
AISH_BIN = Path(sys.executable).parent

# Pinned: what `pip install shell-gpt llm` gave on 2026-11-25. typer 0.29 no longer pulls in
# click, which sgpt imports directly, so click is pinned beside it.
VENVS: dict[str, list[str]] = {
    "shell-gpt": ["shell-gpt==1.5.1", "typer==0.29.2", "click==8.5.1"],
    "llm": ["llm==0.36"],
    "_bench": ["matplotlib==3.11.2"],  # the chart only
}

REPLY = (
    "Sort everything below here by size and keep the ten largest:\n\n"
    "    du -ah . | sort -rh | head -n 10\n\n"
    "`du -a` lists files as well as directories, `sort -rh` orders human-readable sizes "
    "largest first."
)
ONE_SHOT = "how do I list the 10 biggest files here?"
TURNS = [
    "how do I list the 10 biggest files here?",
    "and only files, not directories?",
    "how do I exclude the .git directory?",
    "what does -h do in sort?",
    "can I do the same with find?",
    "how do I show sizes in megabytes?",
    "how do I delete files older than 30 days?",
    "how would I preview that before deleting?",
    "what about hidden files?",
    "summarise the safest command from above",
]

NOT_COMPARED = (
    "Not compared: **aichat** (a Rust binary: neither on PyPI nor on npm, and its release "
    "downloads are out of reach from this machine); **butterfish** (Go: neither on PyPI nor on "
    "npm, no Go toolchain here, and it wraps an interactive shell rather than answering one "
    "question); **Open Interpreter** (`open-interpreter` 0.4.3 on PyPI, last released 2024-10: "
    "`pip install --dry-run` resolves it to 151 packages, among them litellm, tiktoken, "
    "tokenizers, huggingface_hub, selenium, ipykernel, google-generativeai and nltk; far heavier "
    "than a shell helper, and a code-running agent rather than a question-and-answer tool)."
)

# Seen in tests/e2e/conftest.py: prompt_toolkit redraws in place; a new prompt follows a newline.
PROMPT = r"\[aish:[^\]]+\] [^\r\n]*?>"
NEW_PROMPT = r"\n[^\n]*?" + PROMPT


# ---------------------------------------------------------------------------------------------
# virtualenvs


def ensure_venv(name: str, requirements: list[str]) -> Path:
    """bench/.peers/<name>/ with exactly `requirements` installed; reused when the stamp matches."""
    venv = PEERS_DIR / name
    stamp = venv / ".bench-installed"
    wanted = "\n".join(requirements) + "\n"
    if stamp.exists() and stamp.read_text() == wanted:
        return venv
    print(f"installing {' '.join(requirements)} into {venv}", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *requirements],
        check=True,
    )
    stamp.write_text(wanted)
    return venv


# ---------------------------------------------------------------------------------------------
# the tools


@dataclass
class Tool:
    name: str
    version_cmd: list[str]
    one_shot: list[str]
    version: str = ""
    samples: dict[str, list[float]] = field(default_factory=dict)
    conversation: dict[str, Any] = field(default_factory=dict)
    one_shot_request: dict[str, Any] = field(default_factory=dict)


def make_home(home: Path, url: str) -> dict[str, str]:
    """Config files for every tool in `home`; the environment that selects them."""
    sgpt_dir = home / ".config" / "shell_gpt"
    sgpt_dir.mkdir(parents=True)
    (sgpt_dir / ".sgptrc").write_text(
        f"API_BASE_URL={url}/v1\nOPENAI_API_KEY=sk-bench\nDEFAULT_MODEL=testllm\n"
        f"USE_LITELLM=false\nCHAT_CACHE_PATH={home / 'sgpt-chat'}\n"
        f"CACHE_PATH={home / 'sgpt-cache'}\nROLE_STORAGE_PATH={sgpt_dir / 'roles'}\n"
        f"OPENAI_FUNCTIONS_PATH={sgpt_dir / 'functions'}\n"
    )
    llm_dir = home / "llm"
    llm_dir.mkdir()
    (llm_dir / "extra-openai-models.yaml").write_text(
        f"- model_id: testllm\n  model_name: testllm\n  api_base: {url}/v1\n"
    )
    (llm_dir / "default_model.txt").write_text("testllm")
    aish_dir = home / ".config" / "aish"
    aish_dir.mkdir(parents=True)
    (aish_dir / "config.toml").write_text(
        f'default_model = "local"\n[models.local]\nendpoint = "{url}/v1"\nmodel = "testllm"\n'
    )
    (home / "work").mkdir()
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", os.defpath),
        "SHELL": "/bin/bash",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "OPENAI_API_KEY": "sk-bench",
        "LLM_USER_PATH": str(llm_dir),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_DATA_HOME": str(home / ".data"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }


def tools() -> list[Tool]:
    sgpt = str(PEERS_DIR / "shell-gpt" / "bin" / "sgpt")
    llm = str(PEERS_DIR / "llm" / "bin" / "llm")
    aish = str(AISH_BIN / "aish")
    return [
        Tool("aish", [aish, "--version"], [aish, "ask", ONE_SHOT]),
        # --no-cache: sgpt otherwise answers a repeated question from its own cache.
        Tool("sgpt", [sgpt, "--version"], [sgpt, "--no-cache", ONE_SHOT]),
        Tool("llm", [llm, "--version"], [llm, "-m", "testllm", ONE_SHOT]),
    ]


def run_once(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall time (ms) and peak RSS (MiB, largest process of the tree) of one run to exit."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    errors = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = (time.perf_counter() - started) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} exited {proc.returncode}: {errors.decode()[-500:]}")
    return elapsed, usage.ru_maxrss / 1024


def version_of(tool: Tool, env: dict[str, str]) -> str:
    out = subprocess.run(tool.version_cmd, env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


# ---------------------------------------------------------------------------------------------
# conversations


def converse_aish(env: dict[str, str], home: Path, server: TestLLMServer) -> float:
    started = time.perf_counter()
    child = pexpect.spawn(
        str(AISH_BIN / "aish"),
        [],
        cwd=str(home / "work"),
        env=env,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(40, 120),
        timeout=60,
    )
    try:
        child.expect(PROMPT)
        for question in TURNS:
            before = len(server.requests)
            child.send(f"?{question}\r")
            child.expect(NEW_PROMPT)
            if len(server.requests) != before + 1:
                raise RuntimeError(f"aish sent {len(server.requests) - before} requests")
        return (time.perf_counter() - started) * 1000
    finally:
        child.terminate(force=True)


def converse_cli(first: list[str], rest: list[str], env: dict[str, str], cwd: Path) -> float:
    """One process per turn: `first + [q1]`, then `rest + [q]` for every later question."""
    started = time.perf_counter()
    for i, question in enumerate(TURNS):
        cmd = (first if i == 0 else rest) + [question]
        subprocess.run(
            cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, check=True
        )
    return (time.perf_counter() - started) * 1000


def system_chars(messages: list[dict[str, Any]]) -> int:
    return sum(
        len(str(m.get("content") or "")) for m in messages if m["role"] in {"system", "developer"}
    )


def prompt_figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Prompt sizes and prefix reuse of one tool's conversation requests (server log records)."""
    chat = [r for r in records if r.get("n") is not None]
    sizes = [
        len(serialise_prompt(r["body"].get("tools"), None, r["body"]["messages"])) for r in chat
    ]
    later = chat[1:]
    return {
        "requests": len(chat),
        "prompt_chars": sum(sizes),
        "last_prompt_chars": sizes[-1] if sizes else 0,
        "system_chars": system_chars(chat[0]["body"]["messages"]),
        "tools_offered": bool(chat[0]["body"].get("tools")),
        "reuse_fraction": statistics.mean(r["prefix_reuse"]["fraction"] for r in later),
        "reuse_chars": statistics.mean(r["prefix_reuse"]["chars"] for r in later),
        # 1.0 when every request only appends to the one before: the whole cached prefix is used.
        "kept_fraction": statistics.mean(
            r["prefix_reuse"]["chars"] / size for r, size in zip(later, sizes, strict=False)
        ),
        "messages_last": len(chat[-1]["body"]["messages"]),
    }


# ---------------------------------------------------------------------------------------------
# aish-only figures from the earlier benches


def aish_only(env: dict[str, str], quick: bool) -> list[tuple[str, str]]:
    import classify
    import first_prompt
    import shell_overhead
    from aish.safety import classifier

    rows: list[tuple[str, str]] = []
    runs = 5 if quick else 15
    aish = str(AISH_BIN / "aish")
    first_prompt._until(aish, [], r"\[aish:local\]", env)  # warm
    fp = [first_prompt._until(aish, [], r"\[aish:local\]", env) for _ in range(runs)]
    bash = [
        first_prompt._until(
            "bash", ["--norc", "-i"], r"BASHPROMPT\$ ", {**env, "PS1": "BASHPROMPT$ "}
        )
        for _ in range(runs)
    ]
    rows.append(
        (
            "time to first prompt (PTY, bench/first_prompt.py `_until`)",
            f"{statistics.median(fp):.0f} ms (bash -i: {statistics.median(bash):.0f} ms; "
            f"{runs} runs; budget {first_prompt.BUDGET_MS:.0f} ms)",
        )
    )
    cmd_runs = 50 if quick else 200
    with tempfile.TemporaryDirectory() as tmp:
        plain = asyncio.run(shell_overhead._plain(cmd_runs, Path(tmp)))
        ran, _starts = asyncio.run(shell_overhead._aish(cmd_runs, Path(tmp)))
    added = statistics.median(ran) - statistics.median(plain)
    rows.append(
        (
            "per-command overhead vs bash (bench/shell_overhead.py)",
            f"{added:.2f} ms added (`true`: {statistics.median(ran):.2f} ms vs "
            f"{statistics.median(plain):.2f} ms; {cmd_runs} runs; "
            f"budget {shell_overhead.BUDGET_MS:.0f} ms)",
        )
    )
    corpus = classify._corpus()
    classifier.classify("ls")
    per: list[float] = []
    for _ in range(1 if quick else 3):
        for _label, command in corpus:
            classifier._classify_cached.cache_clear()
            began = time.perf_counter()
            classifier.classify(command)
            per.append((time.perf_counter() - began) * 1e6)
    rows.append(
        (
            "classifier, cold, per command (bench/classify.py corpus)",
            f"median {statistics.median(per):.0f} µs over {len(corpus)} commands "
            f"(budget {classify.BUDGET_US:.0f} µs)",
        )
    )
    rows.append(render_row(quick))
    return rows


def render_row(quick: bool) -> tuple[str, str]:
    """Markdown rendered while it streams, through bench/render.py's own functions, if there."""
    label = "render speed (bench/render.py `_streamed`)"
    if not (HERE / "render.py").exists():
        return label, "not measured here: see bench/render.py"
    try:
        import render

        tokens = render.SIZES[0]
        scenario = {"default": {"text": render.reply_of(tokens)}}
        os.environ["COLUMNS"], os.environ["LINES"] = "120", "40"
        raw: list[float] = []
        shown: list[float] = []
        with TestLLMServer(scenario) as server:
            asyncio.run(render._streamed(server.url, "render", True))  # warm
            for _ in range(3 if quick else 7):
                raw.append(asyncio.run(render._streamed(server.url, "render", False))[0])
                shown.append(asyncio.run(render._streamed(server.url, "render", True))[0])
    except Exception as exc:  # someone else's bench, maybe mid-change: report, don't die
        return label, f"not measured: bench/render.py failed ({type(exc).__name__}: {exc})"
    r, s = statistics.median(raw), statistics.median(shown)
    return (
        label,
        f"{tokens // 1000}k-token markdown reply streamed from aish_testllm: {s:.0f} ms rendered "
        f"vs {r:.0f} ms raw ({s / r:.2f}×, {s / tokens * 1000:.1f} ms per 1k tokens; "
        f"{len(raw)} runs; bench/render.py has the full table)",
    )


# ---------------------------------------------------------------------------------------------


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.machine()}, {os.cpu_count()} cores ({model or 'unknown CPU'})"


def ms(value: float) -> str:
    return f"{value:.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--runs", type=int, default=None, help="repetitions per measure")
    args = parser.parse_args()
    runs = args.runs or (5 if args.quick else 20)

    for name, requirements in VENVS.items():
        ensure_venv(name, requirements)
    load_before = os.getloadavg()
    started = time.perf_counter()
    all_tools = tools()
    scenario = {"default": {"text": REPLY}}

    with tempfile.TemporaryDirectory() as tmp, TestLLMServer(scenario) as server:
        home = Path(tmp)
        env = make_home(home, server.url)
        cwd = home / "work"
        for tool in all_tools:
            tool.version = version_of(tool, env)
            before = len(server.requests)
            run_once(tool.one_shot, env, cwd)  # warm the page cache; check it reaches the server
            sent = server.requests[before:]
            if len(sent) != 1:
                raise RuntimeError(f"{tool.name} one-shot sent {len(sent)} requests, not 1")
            tool.one_shot_request = sent[0]
            run_once(tool.version_cmd, env, cwd)
        for _ in range(runs):  # interleaved, so that drift in the machine's load hits all alike
            for tool in all_tools:
                before = len(server.requests)
                wall, rss = run_once(tool.one_shot, env, cwd)
                if len(server.requests) != before + 1:
                    raise RuntimeError(f"{tool.name}: the one-shot did not reach the server")
                tool.samples.setdefault("one_shot", []).append(wall)
                tool.samples.setdefault("rss", []).append(rss)
                wall, rss = run_once(tool.version_cmd, env, cwd)
                tool.samples.setdefault("startup", []).append(wall)
                tool.samples.setdefault("startup_rss", []).append(rss)

        conversations = {
            "aish": lambda: converse_aish(env, home, server),
            "sgpt": lambda: converse_cli(
                [all_tools[1].one_shot[0], "--no-cache", "--chat", "bench"],
                [all_tools[1].one_shot[0], "--no-cache", "--chat", "bench"],
                env,
                cwd,
            ),
            "llm": lambda: converse_cli(
                [all_tools[2].one_shot[0], "-m", "testllm"],
                [all_tools[2].one_shot[0], "-c"],
                env,
                cwd,
            ),
        }
        for tool in all_tools:
            before = len(server.requests)
            wall = conversations[tool.name]()
            tool.conversation = prompt_figures(server.requests[before:])
            tool.conversation["wall_ms"] = wall
            if tool.conversation["requests"] != len(TURNS):
                raise RuntimeError(f"{tool.name}: {tool.conversation['requests']} requests")

        extra = aish_only(env, args.quick)
    load_after = os.getloadavg()
    elapsed = time.perf_counter() - started

    med = {t.name: {k: statistics.median(v) for k, v in t.samples.items()} for t in all_tools}
    base = med["aish"]

    def cell(name: str, key: str, unit: str = "ms") -> str:
        value, ratio = med[name][key], med[name][key] / base[key]
        shown = f"{value:.0f} ms" if unit == "ms" else f"{value:.0f} MiB"
        return shown if name == "aish" else f"{shown} ({ratio:.1f}×)"

    def conv(name: str, key: str, fmt: str) -> str:
        value = next(t for t in all_tools if t.name == name).conversation[key]
        return fmt.format(value)

    names = [t.name for t in all_tools]
    header = "| measure | " + " | ".join(f"{t.name} {t.version.split()[-1]}" for t in all_tools)
    sep = "|---" * (len(all_tools) + 1) + "|"
    rows = [
        f"Run {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} on {machine()}, "
        f"Python {platform.python_version()}, {runs} interleaved runs per measure "
        f"(medians; ratio to aish in brackets), {elapsed:.0f} s in all. Load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after: other work shared this "
        "machine, so these are one run's medians, good for ratios more than absolutes.",
        "",
        "Versions: " + "; ".join(f"{t.name}: `{t.version}`" for t in all_tools) + ". Peers are "
        "installed by this script into bench/.peers/<name>/ ("
        + "; ".join(f"{n}: {' '.join(r)}" for n, r in VENVS.items() if n != "_bench")
        + "). Every tool talks to the same `aish_testllm` server (zero model delay, the same "
        f"{len(REPLY)}-character streamed reply), stdin and stdout not terminals.",
        "",
        header + " |",
        sep,
        "| one-shot question, start to exit | "
        + " | ".join(cell(n, "one_shot") for n in names)
        + " |",
        "| start-up alone (`--version`) | " + " | ".join(cell(n, "startup") for n in names) + " |",
        "| peak RSS, one-shot | " + " | ".join(cell(n, "rss", "MiB") for n in names) + " |",
        "| peak RSS, `--version` | "
        + " | ".join(cell(n, "startup_rss", "MiB") for n in names)
        + " |",
        "| one-shot request: system prompt | "
        + " | ".join(
            f"{system_chars(t.one_shot_request['body']['messages'])} chars" for t in all_tools
        )
        + " |",
        f"| **10-turn conversation** ({len(TURNS)} questions) | | | |",
        "| how | aish REPL, `?question` in a PTY | `sgpt --chat bench` per turn | "
        "`llm`, then `llm -c` per turn |",
        "| total prompt characters sent (serialised as the server counts them) | "
        + " | ".join(conv(n, "prompt_chars", "{:,}") for n in names)
        + " |",
        "| prompt characters, 10th request | "
        + " | ".join(conv(n, "last_prompt_chars", "{:,}") for n in names)
        + " |",
        "| system prompt | "
        + " | ".join(conv(n, "system_chars", "{} chars") for n in names)
        + " |",
        "| mean `prefix_reuse` fraction, turns 2-10 | "
        + " | ".join(conv(n, "reuse_fraction", "{:.3f}") for n in names)
        + " |",
        "| mean `prefix_reuse` chars, turns 2-10 | "
        + " | ".join(conv(n, "reuse_chars", "{:,.0f}") for n in names)
        + " |",
        "| mean share of the previous request's prompt reused, turns 2-10 | "
        + " | ".join(conv(n, "kept_fraction", "{:.3f}") for n in names)
        + " |",
        "| wall time for the 10 turns | "
        + " | ".join(conv(n, "wall_ms", "{:,.0f} ms") for n in names)
        + " |",
        "",
        "aish only (the earlier benches' functions, fewer runs than those benches; their own "
        "sections below have the full figures):",
        "",
        "| measure | aish |",
        "|---|---|",
        *(f"| {label} | {value} |" for label, value in extra),
        "",
        NOT_COMPARED,
        "",
        "![one-shot and start-up medians](peers.png)",
    ]
    write_section("peers", "## aish beside sgpt and llm (bench/peers.py)", rows)
    print("\n".join(rows))

    chart = {
        "tools": names,
        "versions": [t.version for t in all_tools],
        "one_shot": [med[n]["one_shot"] for n in names],
        "startup": [med[n]["startup"] for n in names],
        "runs": runs,
        "date": dt.date.today().isoformat(),
        "out": str(CHART),
    }
    subprocess.run(
        [str(PEERS_DIR / "_bench" / "bin" / "python"), str(HERE / "peers_chart.py")],
        input=json.dumps(chart),
        text=True,
        check=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
