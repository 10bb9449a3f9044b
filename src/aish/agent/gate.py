"""THE gate: the only place that decides whether an action the model proposed may run.

Every proposed action — a `CMD:` line in chat, a Norris step, an MCP tool call in chat or Norris
— comes here with the mode it was proposed in, and leaves as an `Authorization`. The verdict is
computed here, never taken from the caller: the bash classifier for a command,
`classify_tool_call` for a tool call (its server, arguments, annotations and the server's
trust), both with the user's rules; if either fails, the action counts as destructive. That
verdict, the second opinion, `auto_approve` and `confirm_cmd` meet in `decide`, which answers
run, ask or halt:

- interactive: every command asks, showing its verdict; with `confirm_cmd = false` only `safe`
  commands run without asking. A tool call asks unless it is auto-approved *and* `safe` (or
  `unknown` and the second opinion said NO) — and a *held* tool call (the tool changed for the
  worse since its server first listed it) always asks, and halts in Norris and headless mode;
- Norris: `safe` runs unattended; `unknown` asks the second opinion — NO runs, anything else
  halts; `destructive` halts;
- headless: only with the caller's explicit `yes_safe`, `safe` runs and `unknown` asks the
  second opinion — NO runs; everything else halts (nothing destructive runs unattended);
- sandboxed (Norris or headless with `Policy.sandboxed`: the command runs in the copy-on-write
  sandbox, so nothing it writes reaches the real tree before the user applies it): `safe` and
  `unknown` commands run without asking, `destructive` ones halt unless
  `sandbox_destructive = "run"`. Only what the sandbox contains is relaxed: tool calls (their
  servers run outside), a command that would show a scrubbed model a secret or send one away,
  and — when the sandbox has the network — any command that can send data off the machine are
  judged as without a sandbox.

The user's permission policy (`safety.allow/ask/deny`, `[[safety.rule]]`; see
`aish.safety.rules.policy`) comes before all of that, for a command and for the commands a tool
call would run: a `deny` rule refuses the action (decision `deny`, outcome `denied`: nobody is
asked and no answer can run it); an `ask` rule makes it ask in chat and halt in Norris and
headless mode, with no sandbox or second opinion answering for the user; `allow` rules are
applied by the classifier (an `unknown` command they cover is `safe`). `[a]lways` at the confirm
prompt adds the prefix it showed (`Verdict.always`) to `Policy.approvals`, this session's allow
rules, under which a command they cover runs without asking in chat too.

The second opinion is only consulted where its answer can change that decision. Asking resolves
through the frontend's `Confirmer` (yes / always / edit / no / describe / cancel); an edit is the
user's own command and runs as edited, and cancelling the edit (`EditCancelled`) is a cancel. A halt
resolves through a `HaltPrompt` (proceed / skip / abort), or not at all when there is none
(headless). Only this module issues `Authorization`s, and every executor must `redeem` one
before running anything — a forged, copied, declined or already used one is refused.

Secrets (§11): a model that saw scrubbed text proposes actions with `AISH_SECRET_<TYPE>_<n>`
placeholders. The action is judged with the values put back, shown and logged with the
placeholders, and run with the values (`Authorization.command_to_run`, `arguments_to_run`). A
placeholder the session never gave out, or a mangled one, halts the action (`placeholders`).

Blast radius (§ undo): for an `unknown` or `destructive` command, the gate predicts what it will
touch in the cwd of the shell that runs it (`aish.run.undo.blast_radius`, read-only, within a
time budget) and puts it on the verdict (`Verdict.touches`) for the confirm or HALT prompt,
with whether `:undo` can take it back. The prediction travels on the `Authorization`
(`radius`): the executor snapshots exactly those targets before running it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import fnmatch
import json
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import InitVar, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from aish.agent import placeholders
from aish.agent.permission_rules import user_rules_of
from aish.agent.session_approvals import vouched
from aish.safety.rules.user import UserRules
from aish.safety.verdict import Verdict, worst

if TYPE_CHECKING:
    from aish.agent.outbound import Outbound
    from aish.agent.second_opinion import Opinion
    from aish.agent.session_approvals import SessionApprovals
    from aish.agent.shell_facts import FactsSource
    from aish.config.schema import AishConfig
    from aish.run.undo import BlastRadius
    from aish.safety.bash.live_shell import ShellFacts
    from aish.safety.rules.policy import Ruling

__all__ = [
    "Action",
    "Answer",
    "Assessment",
    "Authorization",
    "Confirmer",
    "Decision",
    "Describer",
    "EditCancelled",
    "HaltAnswer",
    "HaltPrompt",
    "Judge",
    "Mode",
    "Outcome",
    "Policy",
    "PolicySource",
    "ProposedCommand",
    "ProposedToolCall",
    "Unauthorized",
    "Verdict",
    "assess",
    "authorize",
    "decide",
    "decision_payload",
    "redeem",
    "wants_second_opinion",
]

Mode = Literal["interactive", "norris", "headless"]
# `deny`: the user's permission policy refuses it; nobody is asked, no answer can run it.
Decision = Literal["run", "ask", "halt", "deny"]
# `always`: yes, and allow the offered prefix for the rest of the session (`Verdict.always`);
# `project`: the same, and offer to write that allow rule into the project's file (the user sees
# the rule and says yes again before anything is written; see `SessionApprovals.for_project`).
Answer = Literal["yes", "always", "project", "edit", "no", "describe", "cancel"]
HaltAnswer = Literal["proceed", "skip", "abort"]
# How an authorization came about: `auto` ran without asking, `refused` halted with no one to
# ask (headless); the others are the user's answers.
Outcome = Literal[
    "auto", "yes", "always", "edit", "no", "cancel", "proceed", "skip", "abort", "refused", "denied"
]


@dataclass(frozen=True)
class ProposedCommand:
    """A shell command the model proposed (a `CMD:` line, a Norris step, a task). A
    `background` one (a `CMD&:` line) is judged as the same text, and only an executor that
    starts background jobs runs it (`aish.run.authorized.redeem`)."""

    command: str
    background: bool = False

    @property
    def text(self) -> str:
        return self.command


@dataclass(frozen=True)
class ProposedToolCall:
    """An MCP tool call as the model asked for it, with what the gate needs to judge it: the
    tool's annotations as its server declared them (hints, not facts) and whether the user
    marked that server trusted. The gate computes the verdict; the caller cannot supply one."""

    server: str
    tool: str
    arguments: Mapping[str, Any]
    annotations: Mapping[str, Any] | None = None
    server_trusted: bool = False
    # Why the tool needs the user's word for this call whatever its verdict: it changed for
    # the worse since its server first listed it (`aish.mcp.tool_changes`). "": not held.
    held: str = ""

    @property
    def name(self) -> str:
        return f"{self.server}__{self.tool}"

    @property
    def text(self) -> str:
        arguments = json.dumps(dict(self.arguments), sort_keys=True, ensure_ascii=False)
        return f"{self.name} {arguments}"


Action = ProposedCommand | ProposedToolCall


@dataclass(frozen=True)
class Policy:
    """What the gate weighs besides the action: the mode and the user's settings.

    `auto_approve` maps an MCP server to glob patterns of its tool names (bare `get_time` or
    qualified `time__get_time`). `yes_safe` is headless mode's explicit permission to run
    `safe` actions.
    """

    mode: Mode
    confirm_cmd: bool = True
    auto_approve: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    yes_safe: bool = False
    user_rules: UserRules = field(default_factory=UserRules)
    # What the proposing model is shown is scrubbed of secrets (a cloud preset): a command
    # that prints one could pass it on in a shape the scrubber does not know.
    scrubbed: bool = False
    # The largest snapshot `:undo` keeps of a command's targets; None: no snapshots (undo off).
    undo_max_bytes: int | None = 256 * 1024 * 1024
    # Commands run in the copy-on-write sandbox (Norris and headless only; see the module).
    sandboxed: bool = False
    sandbox_destructive: Literal["halt", "run"] = "halt"
    sandbox_network: bool = False
    # The session's outbound door: its vault holds the secrets the placeholders stand for
    # (read to judge a command as it will run, and to redeem an authorization). One per
    # session (`aish.session.Session` passes its own); a policy made without one has its own.
    outbound: Outbound = field(default_factory=lambda: _new_outbound(), compare=False, repr=False)
    # What the user allowed for this session with `[a]lways` (shared and growing; None: the
    # prompt offers no `[a]lways`).
    approvals: SessionApprovals | None = field(default=None, compare=False)

    @classmethod
    def from_config(
        cls,
        config: AishConfig,
        mode: Mode,
        *,
        yes_safe: bool = False,
        sandboxed: bool = False,
        outbound: Outbound | None = None,
        scrubbed: bool = False,
    ) -> Policy:
        safety = config.safety
        return cls(
            outbound=_new_outbound() if outbound is None else outbound,
            scrubbed=scrubbed,
            sandboxed=sandboxed and mode != "interactive",
            sandbox_destructive=config.norris.sandbox_destructive,
            sandbox_network=config.norris.sandbox_network,
            mode=mode,
            confirm_cmd=safety.confirm_cmd,
            auto_approve={
                name: tuple(server.auto_approve)
                for name, server in config.mcp.servers.items()
                if server.auto_approve
            },
            yes_safe=yes_safe,
            user_rules=user_rules_of(safety),
            undo_max_bytes=config.undo.max_snapshot_bytes if config.undo.enabled else None,
        )

    def auto_approves(self, call: ProposedToolCall) -> bool:
        return any(
            fnmatch.fnmatchcase(call.name, glob) or fnmatch.fnmatchcase(call.tool, glob)
            for glob in self.auto_approve.get(call.server, ())
        )


def _new_outbound() -> Outbound:
    from aish.agent.outbound import Outbound

    return Outbound()


PolicySource = Callable[[Action], Policy]
"""The policy for one action, taken when it is about to be decided: a project's settings
belong to the directory the action runs in, which can change between two actions."""

# Quoted: the second opinion (and the model types it needs) loads with the first judgement.
Judge = Callable[[str, Verdict], Awaitable["Opinion | None"]]
"""The second opinion on an action's text given its verdict (None: not asked)."""

Describer = Callable[[str], Awaitable[str]]


class Confirmer(Protocol):
    """The frontend's part of asking: show the verdict, get the user's answer."""

    async def confirm_command(self, command: str, verdict: Verdict) -> Answer: ...

    async def edit_command(self, command: str) -> str | None:
        """The edited line; None or blank when the edit was abandoned (counts as no). Raises
        `EditCancelled` when the user cancelled instead."""
        ...

    async def show_description(self, command: str, description: str) -> None: ...


class EditCancelled(Exception):
    """Raised by `Confirmer.edit_command` when the user cancels the edit (Ctrl-C): not "no" to
    this action but "cancel" — it and the rest of the reply's proposals are not run."""


class HaltPrompt(Protocol):
    """The frontend's HALT: show the action and why it stopped, get proceed / skip / abort."""

    async def halt_action(self, action: str, verdict: Verdict) -> HaltAnswer: ...


@dataclass(frozen=True)
class Assessment:
    """The gate's conclusion before anyone is asked."""

    verdict: Verdict
    decision: Decision
    opinion: Opinion | None = None
    # What the command will touch (unknown and destructive commands, where the shell's cwd is
    # known), and that cwd.
    radius: BlastRadius | None = None
    cwd: str | None = None
    # The user's permission rule that denied the action or made it ask (None: no rule did).
    ruling: Ruling | None = None


# ---- the decision ----------------------------------------------------------------------------


def decide(
    action: Action, verdict: Verdict, policy: Policy, opinion: Opinion | None = None
) -> Decision:
    """Run, ask or halt, from the final verdict (the opinion already applied to it)."""
    level = verdict.level
    cleared = level == "unknown" and opinion is not None and opinion.cleared
    if isinstance(action, ProposedToolCall) and action.held:
        # A changed tool is a new tool: nothing runs it unasked until the user has said yes.
        return "ask" if policy.mode == "interactive" else "halt"
    if _contained(action, policy):
        # Nothing it writes reaches the real tree before the user reviews the change set.
        if level == "destructive":
            return "run" if policy.sandbox_destructive == "run" else "halt"
        return "run"
    if policy.mode == "headless":
        return "run" if policy.yes_safe and (level == "safe" or cleared) else "halt"
    if policy.mode == "norris":
        return "run" if level == "safe" or cleared else "halt"
    if isinstance(action, ProposedToolCall):
        # auto_approve skips the question, never the safety verdict.
        approved = policy.auto_approves(action) and (level == "safe" or cleared)
        return "run" if approved else "ask"
    return "run" if level == "safe" and not policy.confirm_cmd else "ask"


def wants_second_opinion(action: Action, verdict: Verdict, policy: Policy) -> bool:
    """Whether the second opinion could change the decision (it is slow: ask only then)."""
    if verdict.level != "unknown" or (isinstance(action, ProposedToolCall) and action.held):
        return False
    if _contained(action, policy):
        return False  # it runs in the sandbox whatever the judge says
    if policy.mode == "norris":
        return True
    if policy.mode == "headless":
        return policy.yes_safe
    return (
        policy.mode == "interactive"
        and isinstance(action, ProposedToolCall)
        and policy.auto_approves(action)
    )


async def assess(
    action: Action,
    policy: Policy,
    judge: Judge | None = None,
    facts: FactsSource | None = None,
) -> Assessment:
    """The verdict (classifier, then the second opinion where it matters) and the decision.

    `facts` reads the live state of the shell that will run a command: its names resolve
    through it, and git is judged by the configuration it will read there. Without them (or if
    the shell cannot say) nothing is `safe` where nobody would be asked.
    """
    outbound = policy.outbound
    unsound = []
    if placeholders.MARK in action.text:
        unsound = placeholders.problems(action.text, outbound.vault)
    if unsound:
        return Assessment(Verdict("destructive", tuple(unsound)), "halt")
    shell = None
    if isinstance(action, ProposedCommand) and facts is not None:
        shell = await facts(_command_with_values(action.command, outbound))
    if policy.approvals is not None:
        policy = dataclasses.replace(policy, user_rules=policy.approvals.widen(policy.user_rules))
    verdict = _verdict(action, policy, shell)
    if isinstance(action, ProposedCommand):
        leaving = _secrets_leaving(action.command, outbound)
        if leaving:
            verdict = worst([verdict, Verdict("destructive", leaving)])
    else:
        leaving = ()
    if isinstance(action, ProposedToolCall) and action.held:
        # Said with the verdict, so the confirm or HALT prompt shows why it asks.
        level = "unknown" if verdict.level == "safe" else verdict.level
        verdict = Verdict(level, (*verdict.reasons, action.held))
    disclosed = _discloses(action, policy)
    if disclosed is not None:
        verdict = worst([verdict, Verdict("unknown", (disclosed,))])
    ruling = _ruling(action, policy, shell)
    if ruling is not None:
        # The rule is the first thing the prompt (or the model, for a deny) is told.
        verdict = replace(verdict, reasons=(ruling.why, *verdict.reasons))
        if ruling.decision == "deny":
            return Assessment(verdict, "deny", ruling=ruling)
        # The user asked to be asked: no sandbox and no second opinion answers for them.
        policy = dataclasses.replace(policy, sandboxed=False)
    if policy.sandboxed and not _sandbox_holds(action, policy, bool(disclosed or leaving)):
        policy = dataclasses.replace(policy, sandboxed=False)
    if (
        verdict.level == "safe"
        and isinstance(action, ProposedCommand)
        and shell is None
        and policy.mode != "interactive"
    ):
        verdict = Verdict("unknown", (_NO_FACTS,))
    opinion: Opinion | None = None
    # A judge of destructiveness has nothing to say about a disclosure: only the user does.
    asks = judge is not None and disclosed is None and ruling is None
    if asks and wants_second_opinion(action, verdict, policy):
        assert judge is not None
        opinion = await judge(action.text, verdict)
        if opinion is not None:
            verdict = opinion.applied_to(verdict)
    decision = decide(action, verdict, policy, opinion)
    if ruling is not None:
        decision = "ask" if policy.mode == "interactive" else "halt"
    elif policy.mode == "interactive" and isinstance(action, ProposedCommand):
        decision, verdict = _session_approval(action, verdict, decision, policy, shell)
    cwd = shell.cwd if shell is not None and shell.cwd else None
    radius = None
    refused = decision == "halt" and policy.mode == "headless"  # nobody to show it to
    if isinstance(action, ProposedCommand) and cwd and verdict.level != "safe" and not refused:
        radius = await _predict(action.command, cwd, shell, outbound)
        verdict = replace(verdict, touches=_touches_lines(radius, policy))
    return Assessment(verdict, decision, opinion, radius, cwd, ruling)


def _session_approval(
    action: ProposedCommand,
    verdict: Verdict,
    decision: Decision,
    policy: Policy,
    shell: ShellFacts | None,
) -> tuple[Decision, Verdict]:
    """In chat: run unasked what an allow rule vouches for — an `[a]lways` approval, a rule
    `[p]roject` wrote, the user's own — when it is `safe` with the rules, and otherwise offer
    the prefix an `[a]lways` answer would approve."""
    approvals = policy.approvals
    if approvals is None or decision != "ask":
        return decision, verdict
    command = _command_with_values(action.command, policy.outbound)
    if verdict.level == "safe" and vouched(command, policy.user_rules, shell):
        return "run", verdict
    from aish.safety.classifier import judge_line
    from aish.safety.rules.approval_prefix import approval_prefix

    prefix = approval_prefix(judge_line(command, policy.user_rules, shell))
    return decision, verdict if prefix is None else replace(verdict, always=prefix)


def _ruling(action: Action, policy: Policy, shell: ShellFacts | None) -> Ruling | None:
    """The user's deny or ask rule that covers the command (or a command a tool call would
    run), or may; else None. A deny outranks an ask."""
    if not policy.user_rules.tightening():
        return None
    from aish.safety.rules.policy import Ruling, rule_on

    try:
        if isinstance(action, ProposedCommand):
            commands, facts = [_command_with_values(action.command, policy.outbound)], shell
        else:
            from aish.safety.tool_calls import tool_call_commands

            arguments = _arguments_with_values(action.arguments, policy.outbound)
            commands, facts = tool_call_commands(action.tool, arguments), None
        rulings = [rule_on(command, policy.user_rules, facts) for command in commands]
    except Exception as error:  # fail closed: rules that cannot be checked make it ask
        why = f"your permission rules could not be checked ({type(error).__name__})"
        return Ruling("ask", why, Verdict("unknown", (why,)), why=why)
    found = [r for r in rulings if r.by is not None and r.decision != "allow"]
    return next((r for r in found if r.decision == "deny"), found[0] if found else None)


async def _predict(
    command: str, cwd: str, shell: ShellFacts | None, outbound: Outbound
) -> BlastRadius:
    """What the command will touch, computed off the event loop (it reads the disk)."""
    from aish.run.undo import predict

    # git is asked only where the gate found nothing in its config that would run a program.
    git = shell is not None and shell.git_checked and not shell.git_concerns
    return await asyncio.to_thread(predict, _command_with_values(command, outbound), cwd, git=git)


def _touches_lines(radius: BlastRadius, policy: Policy) -> tuple[str, ...]:
    from aish.run.undo import radius_lines, undo_line

    lines = radius_lines(radius)
    if policy.undo_max_bytes is not None:
        lines.append(undo_line(radius, policy.undo_max_bytes))
    return tuple(lines)


def _contained(action: Action, policy: Policy) -> bool:
    """Whether the sandbox holds this action: a command, run sandboxed, unattended."""
    return policy.sandboxed and policy.mode != "interactive" and isinstance(action, ProposedCommand)


def _sandbox_holds(action: Action, policy: Policy, secret_at_stake: bool) -> bool:
    """Whether what this action could do stays in the sandbox: not a secret shown to a
    scrubbed model or sent away, nor (with the network on) data sent off the machine."""
    if not isinstance(action, ProposedCommand) or secret_at_stake:
        return False
    if not policy.sandbox_network:
        return True
    from aish.safety.egress.checks import egress_destinations

    return not egress_destinations(_command_with_values(action.command, policy.outbound))


# Unattended, `safe` means safe in the shell that runs it: without its state, nothing is.
_NO_FACTS = "the state of the shell that would run it could not be read"


def _discloses(action: Action, policy: Policy) -> str | None:
    """Unattended, with a scrubbed model: why this command would show it a secret."""
    if policy.mode == "interactive" or not policy.scrubbed:
        return None
    if not isinstance(action, ProposedCommand):
        return None
    from aish.safety.secrets.reads import reads_secret

    reason = reads_secret(_command_with_values(action.command, policy.outbound))
    return None if reason is None else f"{reason}; what it prints goes to the model"


def _secrets_leaving(command: str, outbound: Outbound) -> tuple[str, ...]:
    """Where a secret would go if this ran ("sends GITHUB_TOKEN to 10.0.0.5:443"): a
    placeholder the model wrote, or a value the session knows (or that looks like a key)
    written out, in a command that can send data off the machine."""
    from aish.safety.egress.checks import egress_destinations

    if not egress_destinations(_command_with_values(command, outbound)):
        return ()
    # With every secret as its placeholder, the destinations say which ones they carry.
    shown = outbound.vault.scrub(command)
    return tuple(dict.fromkeys(d.summary() for d in egress_destinations(shown) if d.placeholders))


def _verdict(action: Action, policy: Policy, shell: ShellFacts | None = None) -> Verdict:
    # A classifier bug must stop the action, not let it through.
    if isinstance(action, ProposedToolCall):
        from aish.safety.tool_calls import classify_tool_call
        from aish.safety.unseen_chars import hidden_characters_reason

        try:
            verdict = classify_tool_call(
                action.server,
                action.tool,
                _arguments_with_values(action.arguments, policy.outbound),
                action.annotations,
                action.server_trusted,
                policy.user_rules,
            )
        except Exception as error:
            return Verdict("destructive", (f"the tool-call classifier failed: {error!r}",))
        # As for a command line (the classifier's own check): shown is not what is sent.
        hidden = hidden_characters_reason(action.text)
        return verdict if hidden is None else worst([Verdict("destructive", (hidden,)), verdict])
    from aish.safety.classifier import classify  # its tables load on the first proposal

    try:
        return classify(
            _command_with_values(action.command, policy.outbound), policy.user_rules, shell
        )
    except Exception as error:
        return Verdict("destructive", (f"the classifier failed: {error!r}",))


# ---- asking ----------------------------------------------------------------------------------


async def authorize(
    action: Action,
    policy: Policy,
    *,
    confirmer: Confirmer | None = None,
    describe: Describer | None = None,
    judge: Judge | None = None,
    halt: HaltPrompt | None = None,
    facts: FactsSource | None = None,
    log: Callable[[str, Mapping[str, Any]], None] | None = None,
    logged: Mapping[str, Any] | None = None,
) -> Authorization:
    """Decide, ask whoever must be asked, and issue the one `Authorization` an executor takes.

    With no `confirmer` an action that must ask is not run; with no `halt` prompt (or in
    headless mode) a halted action is refused. The decision goes to the session `log` (a
    `decision` turn, with the caller's `logged` fields) — chat, Norris and the diff review
    alike.
    """
    authorization = await _authorize(action, policy, confirmer, describe, judge, halt, facts)
    if log is not None:
        log("decision", {**decision_payload(authorization), **(logged or {})})
    return authorization


async def _authorize(
    action: Action,
    policy: Policy,
    confirmer: Confirmer | None,
    describe: Describer | None,
    judge: Judge | None,
    halt: HaltPrompt | None,
    facts: FactsSource | None,
) -> Authorization:
    assessment = await assess(action, policy, judge, facts)
    if assessment.decision == "deny":
        return _issue(policy.outbound, action, assessment, "denied", run=False)
    if assessment.decision == "run":
        return _issue(policy.outbound, action, assessment, "auto", run=True)
    if assessment.decision == "halt":
        if halt is None or policy.mode == "headless":
            return _issue(policy.outbound, action, assessment, "refused", run=False)
        halted = await halt.halt_action(action.text, assessment.verdict)
        return _issue(policy.outbound, action, assessment, halted, run=halted == "proceed")
    if confirmer is None:
        return _issue(policy.outbound, action, assessment, "refused", run=False)
    while True:
        answer = await confirmer.confirm_command(action.text, assessment.verdict)
        if answer == "describe":
            if describe is not None:
                description = await describe(action.text)
                await confirmer.show_description(action.text, description)
            continue
        if answer == "edit":
            edited = None
            if isinstance(action, ProposedCommand):
                try:
                    edited = await confirmer.edit_command(action.command)
                except EditCancelled:
                    return _issue(policy.outbound, action, assessment, "cancel", run=False)
            if edited is None or not edited.strip():
                return _issue(policy.outbound, action, assessment, "no", run=False)
            # The edited line is the user's own command: it runs as typed, as theirs (and what
            # is snapshotted is what it touches).
            if assessment.cwd is not None and assessment.radius is not None:
                radius = await _predict(edited.strip(), assessment.cwd, None, policy.outbound)
                assessment = replace(assessment, radius=radius)
            return _issue(
                policy.outbound,
                action,
                assessment,
                "edit",
                run=True,
                text=edited.strip(),
                by="user",
            )
        if answer == "project":
            answer = "always"  # for this session at once; the project file only after a yes
            if policy.approvals is not None and assessment.verdict.always:
                policy.approvals.propose_for_project(assessment.verdict.always)
        if answer == "always" and policy.approvals is not None and assessment.verdict.always:
            policy.approvals.add(assessment.verdict.always)  # what the prompt showed, no more
        return _issue(policy.outbound, action, assessment, answer, run=answer in ("yes", "always"))


# ---- authorizations --------------------------------------------------------------------------

_STAMP = object()
# Every authorization issued and not yet redeemed. Identity is what counts: a copy of an
# authorization (`dataclasses.replace`, `copy.copy`, pickling) is not in here.
_ISSUED: weakref.WeakSet[Authorization] = weakref.WeakSet()


class Unauthorized(Exception):
    """An executor was handed something the gate did not authorize (or already spent)."""


@dataclass(frozen=True, eq=False)
class Authorization:
    """The gate's answer about one action; only this module makes them.

    `run` says whether it may run; `command` is what runs (the user's edit when they edited),
    and `source` is `user` for an edit, else `model`. `radius`: what it will touch, for the
    executor's snapshot (None: not predicted — a `safe` command, or no known cwd).
    """

    stamp: InitVar[object]
    action: Action
    verdict: Verdict
    decision: Decision
    outcome: Outcome
    run: bool
    command: str
    source: Literal["model", "user"] = "model"
    radius: BlastRadius | None = None
    # The session's door whose vault redeems the placeholders (the policy's).
    outbound: Outbound | None = field(default=None, repr=False)

    def __post_init__(self, stamp: object) -> None:
        if stamp is not _STAMP:
            raise TypeError("only aish.agent.gate issues authorizations (use gate.authorize)")

    @property
    def command_to_run(self) -> str:
        """`command` with the session's secret placeholders back to their values: what the
        executor runs (and never tells the model or the log)."""
        return _command_with_values(self.command, self._outbound())

    def arguments_to_run(self) -> dict[str, Any]:
        """A tool call's arguments with the secret placeholders back to their values."""
        if not isinstance(self.action, ProposedToolCall):
            raise TypeError("not a tool call")
        return _arguments_with_values(self.action.arguments, self._outbound())

    def _outbound(self) -> Outbound:
        return _new_outbound() if self.outbound is None else self.outbound


def _issue(
    outbound: Outbound,
    action: Action,
    assessment: Assessment,
    outcome: Outcome,
    *,
    run: bool,
    text: str | None = None,
    by: Literal["model", "user"] = "model",
) -> Authorization:
    authorization = Authorization(
        _STAMP,
        action,
        assessment.verdict,
        assessment.decision,
        outcome,
        run,
        action.text if text is None else text,
        by,
        assessment.radius,
        outbound,
    )
    _ISSUED.add(authorization)
    return authorization


def _command_with_values(command: str, outbound: Outbound) -> str:
    """The command as it runs: sound placeholders back to their (quoted) values."""
    if placeholders.MARK not in command:
        return command
    return placeholders.command_with_values(command, outbound.vault)


def _arguments_with_values(arguments: Mapping[str, Any], outbound: Outbound) -> dict[str, Any]:
    """A tool call's arguments with the placeholders in every string back to their values."""

    def values(item: Any) -> Any:
        if isinstance(item, str):
            if placeholders.MARK not in item:
                return item
            return placeholders.text_with_values(item, outbound.vault)
        if isinstance(item, Mapping):
            return {key: values(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [values(inner) for inner in item]
        return item

    return {key: values(item) for key, item in arguments.items()}


def decision_payload(authorization: Authorization) -> dict[str, Any]:
    """The gate's decision as a session-log payload (`decision` turns)."""
    action = authorization.action
    what = "command" if isinstance(action, ProposedCommand) else "tool_call"
    verdict = authorization.verdict
    background = {"background": True} if getattr(action, "background", False) else {}
    return {
        what: action.text,
        **background,
        "level": verdict.level,
        "reasons": list(verdict.reasons),
        "decision": authorization.decision,
        "answer": authorization.outcome,
        "ran": authorization.command if authorization.run else None,
    }


def redeem(authorization: object) -> Authorization:
    """For executors, right before running: the authorization, spent; raises `Unauthorized`
    unless the gate issued exactly this object, allowed it to run, and it has not run yet."""
    if not isinstance(authorization, Authorization) or authorization not in _ISSUED:
        raise Unauthorized(f"not authorized by the gate: {authorization!r}")
    _ISSUED.discard(authorization)  # approvals are never remembered beyond the single action
    if not authorization.run:
        raise Unauthorized(f"the gate did not allow it ({authorization.outcome})")
    return authorization
