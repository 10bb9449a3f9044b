"""The soak's script: a fault-injecting model scenario, a config, and a seeded mix of turns.

Every question ends with a tag (`zq-500`, `zq-cut`, …) that picks its scenario rule, so the
faults are spread at random over the run (the plan is drawn from a seeded `random.Random`) yet
each turn knows what it must show. A turn ends when its outcome has been seen and then a fresh
prompt; notices drawn above the prompt between turns (an MCP server going down) only add
prompts, which the next turn skips because it first waits for its own outcome.
"""

from __future__ import annotations

import random
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from ..e2e.conftest import PROMPT, AishTerminal
from ..mcp_servers.support import SCRIPTED

ANSWER = "Soak answer."
NO_TOOLS = "No tools offered."
LOCAL_FAILED = r"aish: local: [^\r\n]+"
# prompt_toolkit turns bracketed paste off when it accepts a line and on when a prompt starts;
# a line redrawn as accepted is not a new prompt, a prompt after `?2004h` is.
ACCEPTED = "\x1b[?2004l"
FRESH_PROMPT = r"\x1b\[\?2004h[^\n]*?" + PROMPT


def _question_rules() -> list[dict[str, Any]]:
    """One rule per question tag. Anchored at the end: the last user text also carries the
    commands run since the previous question, and those must not pick a rule."""
    replies: dict[str, dict[str, Any]] = {
        "ok": {"text": ANSWER},
        "slow": {"text": "Slow answer, streamed in small pieces.", "chunk_size": 3, "delay_ms": 5},
        "think": {"reasoning": "Pondering the soak.", "text": "Reasoned answer."},
        "noise": {
            "text": "Noisy answer.",
            "comments": [": PROCESSING"],
            "crlf": True,
            "usage_null": True,
            "obfuscation": True,
        },
        "nul": {"text": "nul\u0000byte and \u001b[31mescape\u001b[0m answer done."},
        "500": {"status": 500},
        "503": {"status": 503, "body": {"error": {"message": "busy, retry later"}}},
        "502html": {"status": 502, "body": "<html>bad gateway</html>", "content_type": "text/html"},
        "429": {"status": 429, "headers": {"Retry-After": "1"}},
        "err": {"text": "abcdefghijkl", "chunk_size": 3, "error_after": 2},
        "errlegacy": {
            "text": "abcdefghijkl",
            "chunk_size": 3,
            "error_after": 1,
            "error_style": "legacy",
        },
        "erropenrouter": {
            "text": "abcdefghijkl",
            "chunk_size": 3,
            "error_after": 2,
            "error_style": "openrouter",
        },
        "cut": {"text": "abcdefghijkl", "chunk_size": 3, "cut_after": 2},
        "cutjson": {"text": "abcdefghijkl", "chunk_size": 3, "cut_after": 2, "cut_mid_json": True},
        "cut0": {"text": "abcdefghijkl", "cut_after": 0},
        "stall": {"text": "abcdefghijkl", "chunk_size": 3, "stall_after": 1, "stall_s": 4},
        "stallok": {
            "text": "Stalled, then finished.",
            "chunk_size": 4,
            "stall_after": 1,
            "stall_s": 0.4,
        },
        "raw": {"raw": ["data: {nonsense\n\n", "data: [DONE]\n\n"]},
        "rawhtml": {"raw": ["<html>not a stream</html>"], "content_type": "text/html"},
        "rawempty": {"raw": ["data: [DONE]\n\n"]},
        "cmd": {"text": "Try this:\nCMD: printf 'appr-%s\\n' ok\n"},
        "rm": {"text": "Clean up:\nCMD: rm -rf /tmp/zq-absent-dir\n"},
    }
    rules: list[dict[str, Any]] = [
        {"name": f"q-{tag}", "when": {"user": f"zq-{tag}$"}, "reply": reply}
        for tag, reply in replies.items()
    ]
    # MCP: only when tools are offered (the server may be down, or still starting).
    rules += [
        {
            "name": "q-mcp-echo",
            "when": {"user": "zq-mcpecho$", "tools": True},
            "reply": {"tool_calls": [{"name": "x__echo", "arguments": {"text": "mcp-echo-back"}}]},
        },
        {
            "name": "q-mcp-crash",
            "when": {"user": "zq-mcpcrash$", "tools": True},
            "reply": {"tool_calls": [{"name": "x__crash", "arguments": {}}]},
        },
        {"name": "q-mcp-none", "when": {"user": "zq-mcp\\w+$"}, "reply": {"text": NO_TOOLS}},
    ]
    return rules


def _norris_rules() -> list[dict[str, Any]]:
    return [
        # A step's message repeats the goal: the later steps' rules come first.
        {"name": "n-ok-2", "when": {"user": "nstep-done"}, "reply": {"text": "GOAL: complete"}},
        {
            "name": "n-halt-2",
            "when": {"user": "skipped.*zn-absent-dir"},
            "reply": {"text": "GOAL: complete"},
        },
        {
            "name": "n-ok",
            "when": {"user": "Goal: .*zn-ok"},
            "reply": {"text": "First a look.\nCMD: printf 'nstep-%s\\n' done"},
        },
        {
            "name": "n-halt",
            "when": {"user": "Goal: .*zn-halt"},
            "reply": {"text": "CMD: rm -rf /tmp/zn-absent-dir"},
        },
        {"name": "n-fail", "when": {"user": "Goal: .*zn-fail"}, "reply": {"status": 500}},
        {
            "name": "n-cut",
            "when": {"user": "Goal: .*zn-cut"},
            "reply": {"text": "CMD: printf 'x'", "chunk_size": 2, "cut_after": 1},
        },
    ]


def fault_scenario() -> dict[str, Any]:
    return {"rules": _question_rules() + _norris_rules(), "default": {"text": ANSWER}}


def soak_config(url: str, dead_port: int) -> str:
    """`local` answers (and fails) as scripted; `dead` refuses connections; `x` is the scripted
    MCP server whose `crash` tool kills it."""
    return (
        'default_model = "local"\n'
        "[safety]\nllm_second_opinion = false\n"
        "[models.local]\n"
        f'endpoint = "{url}/v1"\nmodel = "testllm"\ntimeout_s = 2\nmax_retries = 0\n'
        "[models.dead]\n"
        f'endpoint = "http://127.0.0.1:{dead_port}/v1"\nmodel = "testllm"\n'
        "max_retries = 0\nconnect_timeout_s = 1\n"
        "[mcp.servers.x]\n"
        f'command = "{sys.executable}"\nargs = ["{SCRIPTED}"]\n'
        'trusted = true\nauto_approve = ["echo"]\ntimeout_s = 5\n'
    )


@dataclass
class Turn:
    """One line typed at the prompt and what must be seen before the next prompt."""

    line: str
    kind: str  # how the session log files it: "command", "user" or "meta"
    outcome: str | None  # a regex shown after the line; None: just the next prompt
    # Questions aish may ask on the way (regex → key to press), each answered once if shown.
    answers: dict[str, str] = field(default_factory=dict)
    timeout: float = 30.0


CONFIRM = r"\[y\]es / \[e\]dit / \[n\]o / \[d\]escribe"
HALT = r"\[s\]kip.*\[a\]bort"

_QUESTION_OUTCOMES: dict[str, str | None] = {
    "ok": re.escape(ANSWER),
    "slow": r"Slow answer, streamed",
    "think": r"Reasoned answer\.",
    "noise": r"Noisy answer\.",
    "nul": r"answer done\.",
    "500": r"HTTP 500",
    "503": r"HTTP 503",
    "502html": r"HTTP 502",
    "429": LOCAL_FAILED,
    "err": r"error in the reply stream",
    "errlegacy": LOCAL_FAILED,
    "erropenrouter": LOCAL_FAILED,
    "cut": r"broke mid-reply",
    "cutjson": r"broke mid-reply",
    "cut0": LOCAL_FAILED,
    "stall": r"idle timeout",
    "stallok": r"Stalled, then finished\.",
    "raw": r"unreadable stream chunk",
    "rawhtml": r"expected an event stream",
    "rawempty": None,
}

_SHELL = (
    "printf 'sh-%s\\n' {n}",
    "seq 1 300 | tail -n 1; printf 'sh-%s\\n' {n}",
    "export SOAK_V={n}; printf 'sh-%s\\n' \"$SOAK_V\"",
    "cd /tmp && cd - > /dev/null; printf 'sh-%s\\n' {n}",
    "printf 'sh-%s\\n' {n}; false",
    "seq 1 2000; printf 'sh-%s\\n' {n}",
    "ls / > /dev/null; printf 'sh-%s\\n' {n}",
)


def _shell(n: int, rng: random.Random) -> list[Turn]:
    if rng.random() < 0.1:
        return [Turn(f"ls /nonexistent-{n}", "command", r"No such file or directory")]
    return [Turn(rng.choice(_SHELL).format(n=n), "command", rf"sh-{n}(?!\d)")]


def _question(tag: str, n: int) -> Turn:
    return Turn(f"soak question {n} zq-{tag}", "user", _QUESTION_OUTCOMES[tag])


def _block(kind: str, n: int, rng: random.Random) -> list[Turn]:
    """The turns of one step of the plan (a model switch is three lines)."""
    if kind == "shell":
        return _shell(n, rng)
    if kind == "ok":
        return [_question(rng.choice(("ok", "ok", "slow", "think", "noise", "nul")), n)]
    if kind == "fault":
        tags = [tag for tag in _QUESTION_OUTCOMES if tag not in ("ok", "slow", "think", "noise")]
        return [_question(rng.choice(tags), n)]
    if kind == "cmd":
        key = rng.choice("yyn")
        outcome = r"appr-ok" if key == "y" else None
        return [Turn(f"soak question {n} zq-cmd", "user", outcome, {CONFIRM: key})]
    if kind == "rm":
        return [Turn(f"soak question {n} zq-rm", "user", None, {CONFIRM: "n"})]
    if kind == "refused":
        return [
            Turn(":model dead", "meta", r"model: dead"),
            Turn(f"soak question {n} zq-refused", "user", r"connection refused"),
            Turn(":model local", "meta", r"model: local"),
        ]
    if kind == "mcpecho":
        return [Turn(f"soak question {n} zq-mcpecho", "user", rf"│ mcp-echo-back|{NO_TOOLS}")]
    if kind == "mcpcrash":
        outcome = rf"the call failed|{NO_TOOLS}|is down"
        return [Turn(f"soak question {n} zq-mcpcrash", "user", outcome, {CONFIRM: "y"})]
    if kind == "mcprestart":
        return [Turn(":mcp restart x", "meta", r"mcp server 'x' \w+", timeout=45)]
    if kind == "meta":
        return [rng.choice([Turn(":mcp", "meta", r"\bx\s+\w+"), Turn(":tokens", "meta", None)])]
    if kind == "norris":
        return [Turn(f":norris soak goal {n} zn-ok", "meta", r"norris done")]
    if kind == "halt":
        key = rng.choice("sa")
        outcome = r"norris done" if key == "s" else r"norris aborted"
        return [Turn(f":norris soak goal {n} zn-halt", "meta", outcome, {HALT: key})]
    if kind == "norrisfail":
        tag = rng.choice(("fail", "cut"))
        return [Turn(f":norris soak goal {n} zn-{tag}", "meta", r"norris \w+")]
    raise ValueError(kind)


WEIGHTS = {
    "shell": 30,
    "ok": 14,
    "fault": 20,
    "cmd": 7,
    "rm": 2,
    "refused": 2,
    "mcpecho": 5,
    "mcpcrash": 3,
    "mcprestart": 3,
    "meta": 3,
    "norris": 5,
    "halt": 3,
    "norrisfail": 2,
}


def plan(turns: int, seed: int) -> list[Turn]:
    """At least `turns` lines: first every kind once (the warm-up), then a seeded random mix."""
    rng = random.Random(seed)
    kinds, weights = list(WEIGHTS), list(WEIGHTS.values())
    out: list[Turn] = []
    for kind in kinds:
        out += _block(kind, len(out), rng)
    while len(out) < turns:
        out += _block(rng.choices(kinds, weights)[0], len(out), rng)
    return out


def warm_up_length() -> int:
    return len(plan(0, 0))


def play(aish: AishTerminal, turn: Turn) -> str:
    """Type the turn's line, answer what it asks, wait for its outcome and the next prompt.
    Returns what was shown; a hang raises pexpect.TIMEOUT."""
    child = aish.child
    aish.type_line(turn.line)
    child.expect_exact(ACCEPTED, timeout=turn.timeout)
    shown = ""
    # Each question is answered once: the confirm prompt may be drawn twice, and a second key
    # would land at the REPL's prompt as a line of its own.
    questions = list(turn.answers)
    while True:
        wanted = [*questions, turn.outcome or FRESH_PROMPT]
        index = child.expect(wanted, timeout=turn.timeout)
        shown += str(child.before) + str(child.after)
        if index == len(questions):
            break
        # A key typed before the question is up is no answer (it stays queued for the next
        # prompt): give it a moment to be listening, as a person would.
        time.sleep(0.2)
        child.send(turn.answers[questions.pop(index)])
    if turn.outcome is not None:
        child.expect(FRESH_PROMPT, timeout=turn.timeout)
        shown += str(child.before)
    return shown
