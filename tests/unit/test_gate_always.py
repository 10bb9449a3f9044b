"""`[a]lways` at the confirm prompt: the gate offers a prefix of the parsed command (never for
a wrapper, an interpreter, a compound line or a destructive command), stores exactly what was
offered when the user takes it, and from then on commands it covers run without asking in
chat and unattended in Norris — for this session's approvals object only, and never over a
built-in destructive verdict, an ask rule or a deny rule."""

from __future__ import annotations

import shutil

import pytest

from aish.agent import gate
from aish.agent.gate import Policy, ProposedCommand, authorize
from aish.agent.session_approvals import SessionApprovals
from aish.safety.bash.live_shell import ShellFacts
from aish.safety.classifier import judge_line
from aish.safety.rules.approval_prefix import approval_prefix
from aish.safety.rules.user import UserRules
from tests.support import ScriptedFrontend


async def plain_shell(command: str) -> ShellFacts:
    return ShellFacts(builtins=frozenset(("cd", "echo")), locate=shutil.which)


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("npm test -- --watch", "npm test"),
        ("npm run test:unit", "npm run test:unit"),
        ("make build -j4", "make build"),
        ("pytest -q tests", "pytest"),
        ("cargo test", "cargo test"),
        ("git commit -m wip", "git commit"),
        ("./scripts/check.sh all", "./scripts/check.sh all"),
        # never: wrappers, interpreters, shells, compound lines, computed words, destructive
        ("sudo make install", None),
        ("env A=1 make", None),
        ("python -c 'print(1)'", None),
        ("bash build.sh", None),
        ("xargs make", None),
        ("make test && make deploy", None),
        ("make $target", None),
        ("rm -rf build", None),
        ("docker exec web sh", None),
        ("uv run pytest", None),
        ("npm run", None),
        ("npx cowsay hi", None),
    ],
)
def test_the_offered_prefix(command: str, prefix: str | None) -> None:
    assert approval_prefix(judge_line(command)) == prefix


async def test_always_stores_the_offered_prefix_and_later_commands_run_unasked() -> None:
    approvals = SessionApprovals()
    policy = Policy("interactive", approvals=approvals)
    frontend = ScriptedFrontend("always")
    first = await authorize(
        ProposedCommand("make build -j4"), policy, confirmer=frontend, facts=plain_shell
    )
    assert (first.outcome, first.run) == ("always", True)
    ((_, shown),) = frontend.asked
    assert shown.always == "make build"
    assert approvals.patterns == ["make build"]
    # The same prefix with other words: runs without a question, in chat and in Norris.
    again = await authorize(ProposedCommand("make build V=1"), policy, confirmer=ScriptedFrontend())
    assert (again.decision, again.outcome) == ("run", "auto")
    norris = await gate.assess(
        ProposedCommand("make build"), Policy("norris", approvals=approvals), facts=plain_shell
    )
    assert (norris.verdict.level, norris.decision) == ("safe", "run")
    # Anything else still asks, and a compound line is judged whole.
    other = ScriptedFrontend("no", "no")
    await authorize(ProposedCommand("make install"), policy, confirmer=other)
    await authorize(ProposedCommand("make build && make install"), policy, confirmer=other)
    assert len(other.asked) == 2


async def test_approvals_never_lower_destructive_ask_or_deny() -> None:
    approvals = SessionApprovals(["rm", "git push", "make"])
    rules = UserRules(ask=("make deploy",), deny=("git push",))
    policy = Policy("interactive", approvals=approvals, user_rules=rules)
    frontend = ScriptedFrontend("no", "no")
    destructive = await authorize(ProposedCommand("rm -rf build"), policy, confirmer=frontend)
    asked = await authorize(ProposedCommand("make deploy"), policy, confirmer=frontend)
    denied = await authorize(ProposedCommand("git push"), policy, confirmer=frontend)
    assert destructive.verdict.level == "destructive" and destructive.decision == "ask"
    assert asked.decision == "ask" and asked.verdict.always == ""
    assert denied.decision == "deny"
    assert len(frontend.asked) == 2


async def test_no_approvals_object_no_offer_and_yes_stores_nothing() -> None:
    frontend = ScriptedFrontend("yes")
    await authorize(ProposedCommand("make build"), Policy("interactive"), confirmer=frontend)
    assert frontend.asked[0][1].always == ""
    approvals = SessionApprovals()
    await authorize(
        ProposedCommand("make build"),
        Policy("interactive", approvals=approvals),
        confirmer=ScriptedFrontend("yes"),
    )
    assert approvals.patterns == []  # only [a]lways stores, and only for this session


async def test_a_destructive_command_is_never_offered_always() -> None:
    frontend = ScriptedFrontend("no")
    await authorize(
        ProposedCommand("rm -rf build"),
        Policy("interactive", approvals=SessionApprovals()),
        confirmer=frontend,
    )
    assert frontend.asked[0][1].always == ""
