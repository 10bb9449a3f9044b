"""`:safety why <cmd>`: what the gate would do with the command in Norris, and which rule or
built-in reason decided, on a stand-in REPL with the user's rules; nothing runs."""

from __future__ import annotations

from aish.safety.rules.user import UserRules
from tests.support import FakeRepl

from .test_safety_meta import FakeReplWithRules, _say

RULES = UserRules(allow=("make test",), ask=("npm publish",), deny=("git push",))


async def test_why_names_the_rule_that_decided() -> None:
    text = await _say(FakeReplWithRules(RULES), ":safety why cd x && sudo git push -f")
    lines = text.splitlines()
    assert lines[0] == "deny in Norris, decided by safety.deny `git push` (nothing was run)"
    assert lines[1] == "  verdict: destructive"
    assert "denied by your rule safety.deny `git push`: git push -f" in text
    allowed = await _say(FakeReplWithRules(RULES), ":safety why make test")
    assert allowed.startswith("allow in Norris, decided by safety.allow `make test`")
    asked = await _say(FakeReplWithRules(RULES), ":safety why npm publish --access public")
    assert asked.startswith("ask in Norris, decided by safety.ask `npm publish`")


async def test_why_without_rules_says_the_built_in_reason() -> None:
    text = await _say(FakeRepl(), ":safety why rm -rf build")
    assert text.startswith("ask in Norris, decided by built-in: rm: deletes files")
    assert (await _say(FakeRepl(), ":safety why ls")).startswith(
        "allow in Norris, decided by built-in: proven read-only"
    )
    assert (await _say(FakeRepl(), ":safety why")).startswith("usage: :safety check")
