"""`:safety check <cmd>`, `:safety rules` and `:safety` through `run_meta`, on a stand-in REPL."""

from __future__ import annotations

from pathlib import Path

from aish.safety.classifier import classify, describe_rules
from aish.safety.rules.user import UserRules
from aish.ui.repl.meta.commands import KnowsSafetyRules, run_meta
from tests.support import FakeRepl


class FakeReplWithRules(FakeRepl):
    def __init__(self, rules: UserRules) -> None:
        super().__init__()
        self.rules = rules

    def safety_rules(self) -> UserRules:
        return self.rules


async def _say(repl: FakeRepl, line: str) -> str:
    await run_meta(repl, line)
    (text,) = repl.said
    return text


async def test_check_prints_level_and_reasons_and_runs_nothing(tmp_path: Path) -> None:
    victim = tmp_path / "keep"
    victim.write_text("x")
    text = await _say(FakeRepl(), f":safety check rm -f {victim}")
    verdict = classify(f"rm -f {victim}")
    assert text.splitlines() == [
        "destructive (nothing was run)",
        *(f"  - {r}" for r in verdict.reasons),
    ]
    assert victim.exists()


async def test_check_a_safe_command() -> None:
    assert await _say(FakeRepl(), ":safety check   ls -la  ") == "safe (nothing was run)"


async def test_check_uses_the_users_rules_when_the_repl_has_them() -> None:
    rules = UserRules(destructive=("frobnicate *",))
    repl = FakeReplWithRules(rules)
    assert isinstance(repl, KnowsSafetyRules) and not isinstance(FakeRepl(), KnowsSafetyRules)
    text = await _say(repl, ":safety check frobnicate --all")
    assert text.startswith("destructive")
    assert "frobnicate *" in text


async def test_reasons_cannot_drive_the_terminal() -> None:
    text = await _say(FakeRepl(), ":safety check rm -f $'\\e[2J' \x1b[31mx")
    assert "\x1b" not in text


async def test_rules_lists_built_in_and_user_rules() -> None:
    rules = UserRules(destructive=("frobnicate *",), allow=("make check",))
    text = await _say(FakeReplWithRules(rules), ":safety rules")
    assert text.splitlines() == describe_rules(rules)
    assert len(text.splitlines()) > len(describe_rules(UserRules())) > 0


async def test_usage_for_anything_else() -> None:
    for line in (":safety", ":safety check", ":safety check   ", ":safety rules x", ":safety x"):
        text = await _say(FakeRepl(), line)
        assert text.startswith("usage: :safety check <command>"), line


async def test_help_lists_safety() -> None:
    assert ":safety check|why|rules" in await _say(FakeRepl(), ":help")
    assert "without running it" in await _say(FakeRepl(), ":help safety")
    assert "did you mean :safety" in await _say(FakeRepl(), ":safty")
