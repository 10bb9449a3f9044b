"""The permission policy from the command line: `aish safety check` says the decision and the
rule, `aish safety test` runs every rule's examples, and a failing example is one warning line
naming the rule when the config loads. Real processes, a real config file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

AISH = [sys.executable, "-m", "aish"]

POLICY = """\
[safety]
allow = ["make test"]
ask = ["npm publish"]
deny = ["git push"]

[[safety.rule]]
decision = "deny"
command = ["rm", "shred"]
paths = ["/etc/**"]
reason = "system files"
match = ["sudo rm -f /etc/hosts", "bash -c 'shred /etc/shadow'"]
not_match = ["rm build/x"]
"""

BROKEN = """\
[safety]

[[safety.rule]]
decision = "deny"
command = "git push"
match = ["git push -f"]

[[safety.rule]]
decision = "allow"
command = "frob"
match = ["frob x"]
not_match = ["sudo frob y"]
"""


def _write_config(home: Path, text: str) -> Path:
    path = home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _aish(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AISH, *args], capture_output=True, text=True, timeout=60)


def _records(result: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_check_says_the_decision_and_the_rule_that_made_it(xdg_home: Path) -> None:
    _write_config(xdg_home, POLICY)
    commands = [
        "cd x && sudo git push -f",
        "make test",
        "make test && rm -rf /",
        "npm publish",
        "ls -la",
        "rm -f /etc/passwd",
        "git $sub",
    ]
    records = _records(_aish("safety", "check", *commands))
    assert [(r["command"], r["decision"], r["rule"]) for r in records] == [
        ("cd x && sudo git push -f", "deny", "safety.deny `git push`"),
        ("make test", "allow", "safety.allow `make test`"),
        ("make test && rm -rf /", "ask", "built-in: rm: deletes files"),
        ("npm publish", "ask", "safety.ask `npm publish`"),
        ("ls -la", "allow", "built-in: proven read-only"),
        ("rm -f /etc/passwd", "deny", "safety.rule[0] (deny `rm`, `shred`, paths /etc/**)"),
        ("git $sub", "ask", "safety.deny `git push`"),
    ]


def test_safety_test_passes_when_every_example_holds(xdg_home: Path) -> None:
    _write_config(xdg_home, POLICY)
    result = _aish("safety", "test")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "ok    safety.rule[0] (deny `rm`, `shred`, paths /etc/**): 3 example(s)",
        "1 rule(s) ok, 0 failing",
    ]
    assert result.stderr == ""


def test_safety_test_fails_on_a_broken_example(xdg_home: Path) -> None:
    _write_config(xdg_home, BROKEN)
    result = _aish("safety", "test")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and result.stderr == ""
    assert result.stdout.splitlines() == [
        "ok    safety.rule[0] (deny `git push`): 1 example(s)",
        "FAIL  safety.rule[1] (allow `frob`): 2 example(s)",
        "      safety.rule[1] (allow `frob`): example `sudo frob y` should not match but does",
        "1 rule(s) ok, 1 failing",
    ]


def test_a_failing_example_is_one_config_warning_naming_the_rule(xdg_home: Path) -> None:
    _write_config(xdg_home, BROKEN)
    result = _aish("safety", "check", "frob x")
    # The allow rule whose example fails is not applied: frob stays unknown, and asks.
    (record,) = _records(result)
    assert (record["level"], record["decision"]) == ("unknown", "ask")
    assert result.stderr.splitlines() == [
        "aish: config.toml: safety.rule[1] (allow `frob`): example `sudo frob y` should not "
        "match but does (rule not applied)"
    ]


def test_no_rules_with_examples(xdg_home: Path) -> None:
    _write_config(xdg_home, "[safety]\ndeny = ['git push']\n")
    result = _aish("safety", "test")
    assert (result.returncode, result.stdout.strip()) == (
        0,
        "no [[safety.rule]] has match / not_match examples",
    )
