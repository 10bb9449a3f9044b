"""The gate applies the permission policy: a denied command is refused with nobody asked and
no answer able to run it, in chat, Norris and headless mode; a command an ask rule covers asks
(chat) or halts (Norris) even when proven read-only, with no sandbox or second opinion
answering for the user; allow lets an `unknown` command run unattended. The classifier is real;
the frontend and the judge are scripted.
"""

from __future__ import annotations

import shutil

import pytest

from aish.agent import gate
from aish.agent.gate import Policy, ProposedCommand, authorize, redeem
from aish.agent.second_opinion import Opinion
from aish.config.validation import validate_config
from aish.safety.bash.live_shell import ShellFacts
from aish.safety.rules.user import UserRules
from aish.safety.verdict import Verdict
from tests.support import ScriptedFrontend

RULES = UserRules(allow=("make test",), ask=("ls",), deny=("git push",))


async def plain_shell(command: str) -> ShellFacts:
    return ShellFacts(builtins=frozenset(("cd", "echo", "true")), locate=shutil.which)


class Judge:
    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, text: str, verdict: Verdict) -> Opinion | None:
        self.asked.append(text)
        return Opinion("no", "second opinion: no")  # would clear anything it is asked


@pytest.mark.parametrize("mode", ["interactive", "norris", "headless"])
@pytest.mark.parametrize("sandboxed", [False, True])
@pytest.mark.parametrize("command", ["git push", "cd x && sudo git push -f", "bash -c 'git push'"])
async def test_a_denied_command_is_refused_and_nobody_is_asked(
    mode: gate.Mode, sandboxed: bool, command: str
) -> None:
    frontend, judge = ScriptedFrontend(), Judge()  # no answers: nobody may be asked
    policy = Policy(mode, confirm_cmd=False, yes_safe=True, user_rules=RULES, sandboxed=sandboxed)
    granted = await authorize(
        ProposedCommand(command),
        policy,
        confirmer=frontend,
        halt=frontend,
        judge=judge,
        facts=plain_shell,
    )
    assert (granted.decision, granted.outcome, granted.run) == ("deny", "denied", False)
    assert frontend.asked == frontend.halted == judge.asked == []
    assert granted.verdict.reasons[0].startswith("denied by your rule safety.deny `git push`")
    assert gate.decision_payload(granted)["decision"] == "deny"
    with pytest.raises(gate.Unauthorized):
        redeem(granted)


@pytest.mark.parametrize("sandboxed", [False, True])
async def test_an_ask_rule_halts_a_safe_command_in_norris(sandboxed: bool) -> None:
    frontend, judge = ScriptedFrontend("skip"), Judge()
    policy = Policy("norris", user_rules=RULES, sandboxed=sandboxed)
    granted = await authorize(
        ProposedCommand("ls -la"), policy, halt=frontend, judge=judge, facts=plain_shell
    )
    assert granted.verdict.level == "safe" and granted.decision == "halt"
    assert (granted.outcome, granted.run) == ("skip", False)
    assert judge.asked == []  # the user asked to be asked: no judge answers for them
    ((action, shown),) = frontend.halted
    assert action == "ls -la" and "safety.ask `ls`" in shown.reasons[0]


async def test_an_ask_rule_asks_in_chat_even_with_confirm_cmd_off() -> None:
    frontend = ScriptedFrontend("yes")
    policy = Policy("interactive", confirm_cmd=False, user_rules=RULES)
    granted = await authorize(ProposedCommand("ls"), policy, confirmer=frontend, facts=plain_shell)
    assert (granted.decision, granted.outcome, granted.run) == ("ask", "yes", True)
    assert len(frontend.asked) == 1
    # Without the rule the same command runs unasked.
    plain = await authorize(
        ProposedCommand("ls"), Policy("interactive", confirm_cmd=False), facts=plain_shell
    )
    assert (plain.decision, plain.outcome) == ("run", "auto")


async def test_headless_refuses_what_an_ask_rule_covers() -> None:
    policy = Policy("headless", yes_safe=True, user_rules=RULES)
    granted = await authorize(ProposedCommand("ls"), policy, facts=plain_shell)
    assert (granted.decision, granted.outcome, granted.run) == ("halt", "refused", False)


async def test_allow_runs_an_unknown_command_unattended_but_not_a_compound_one() -> None:
    judge = Judge()
    policy = Policy("norris", user_rules=RULES)
    allowed = await gate.assess(ProposedCommand("make test"), policy, judge, facts=plain_shell)
    assert (allowed.verdict.level, allowed.decision) == ("safe", "run") and judge.asked == []
    frontend = ScriptedFrontend("skip")
    chained = await authorize(
        ProposedCommand("make test && rm -rf /"), policy, halt=frontend, facts=plain_shell
    )
    assert (chained.verdict.level, chained.decision) == ("destructive", "halt")


async def test_a_command_that_may_be_denied_halts_in_norris() -> None:
    frontend, judge = ScriptedFrontend("skip"), Judge()
    policy = Policy("norris", user_rules=RULES)
    granted = await authorize(
        ProposedCommand("git $sub"), policy, halt=frontend, judge=judge, facts=plain_shell
    )
    assert granted.decision == "halt" and judge.asked == []
    assert "may run a command your rule safety.deny `git push`" in frontend.halted[0][1].reasons[0]


async def test_a_denied_alias_is_denied_through_the_live_shell() -> None:
    async def aliased(command: str) -> ShellFacts:
        return ShellFacts(aliases={"gp": "git push"}, locate=shutil.which)

    assessment = await gate.assess(
        ProposedCommand("gp origin"), Policy("norris", user_rules=RULES), facts=aliased
    )
    assert assessment.decision == "deny"


def test_policy_from_config_reads_the_permission_rules() -> None:

    config = validate_config(
        {
            "safety": {
                "allow": ["make test"],
                "ask": ["ls"],
                "deny": ["git push"],
                "rule": [{"decision": "deny", "command": ["rm", "shred"], "paths": ["/etc/**"]}],
            }
        }
    )
    rules = Policy.from_config(config, "norris").user_rules
    assert (rules.allow, rules.ask, rules.deny) == (("make test",), ("ls",), ("git push",))
    (rule,) = rules.rules
    assert (rule.decision, rule.commands, rule.paths, rule.name) == (
        "deny",
        ("rm", "shred"),
        ("/etc/**",),
        "safety.rule[0]",
    )


@pytest.mark.parametrize("mode", ["interactive", "norris"])
async def test_a_shell_tool_call_running_a_denied_command_is_refused(mode: gate.Mode) -> None:
    frontend = ScriptedFrontend()
    call = gate.ProposedToolCall("box", "run_shell", {"command": "cd /repo && git push -f"})
    granted = await authorize(
        call, Policy(mode, user_rules=RULES), confirmer=frontend, halt=frontend
    )
    assert (granted.decision, granted.outcome, granted.run) == ("deny", "denied", False)
    assert frontend.asked == frontend.halted == []
    asked = gate.ProposedToolCall("box", "run_shell", {"command": "ls -la"})
    halted = await authorize(
        asked, Policy("norris", user_rules=RULES), halt=ScriptedFrontend("skip")
    )
    assert halted.decision == "halt"
