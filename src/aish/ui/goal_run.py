"""`aish goal`'s run: the Norris loop with nobody at the terminal.

The same loop as `:norris`, with the gate in headless mode: without `--yes-safe` nothing runs
(the first action halts); with it, `safe` actions run and `unknown` ones the second opinion
clears (a judge that is not the model proposing them; without one they halt); anything else ends
the run `halted` with the action pending. With `--sandbox` the agent shell runs in a
copy-on-write sandbox over the project and the gate is in sandboxed mode (`safe` and `unknown`
commands run there, `destructive` ones halt unless `norris.sandbox_destructive = "run"`); at the
end the change set is printed, and applied only with `--apply` and only when the goal was
completed. Where the kernel has no sandbox the run says so and halts at its first action as
without one. Commands run in an agent shell started in the current
directory, closed whatever happens (a Ctrl-C included: the run reports `aborted`, stops its
command, and the cancellation goes on up). Every turn is logged as a session, so `aish --resume`
continues the conversation; a store that fails is said once and the run goes on without a log.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aish.agent import gate
from aish.agent.context_budget import ContextBudget
from aish.agent.events import Status
from aish.agent.fallback import fallback_target
from aish.agent.norris import NorrisBounds, NorrisResult, NorrisRun, norris_models
from aish.agent.project import DirectoryPolicies
from aish.agent.second_opinion import SecondOpinion
from aish.conversation.context import Conversation
from aish.conversation.system_prompt import render_system_prompt
from aish.conversation.tokens import TokenCounter
from aish.run.undo import UndoRecorder
from aish.session import preset_resolver
from aish.ui.agent_shell import AgentShell
from aish.ui.goal_printer import GoalPrinter
from aish.ui.prompt_facts import prompt_facts
from aish.ui.tool_runner import tool_options

if TYPE_CHECKING:
    from aish.config.project_scope import ConfigScope
    from aish.config.schema import AishConfig
    from aish.llm.types import ModelTarget
    from aish.mcp import McpServers
    from aish.run.sandbox import Sandbox
    from aish.store import Store


@dataclass(frozen=True)
class GoalOptions:
    """What the command line asked for."""

    goal: str
    yes_safe: bool = False
    max_steps: int | None = None  # None: `norris.max_norris_steps`
    # `--model` names the model for this run: it runs the steps, whatever norris.executor says.
    model_given: bool = False
    sandbox: bool = False  # run in the copy-on-write sandbox
    apply: bool = False  # apply its change set when the goal is completed


def _keep_spending(log: _SessionLog, config: AishConfig, printer: GoalPrinter) -> None:
    """The run's calls into the usage ledger, and the session's spending stop."""
    from aish.agent import outbound
    from aish.ui.spending import SessionSpending

    spending = SessionSpending(
        log.store, log.session_id, config.cost, say=lambda text: printer.render(Status(text))
    )
    printer.on_usage = spending.record
    outbound.SESSION.refuse = spending.refuse


def _fallback(
    config: AishConfig, executor: ModelTarget, printer: GoalPrinter
) -> ModelTarget | None:
    """`routing.cloud_fallback`'s preset for the steps; a preset that cannot be used is said."""
    target, problem = fallback_target(
        config, executor, preset_resolver(config, os.environ), enabled=config.routing.cloud_fallback
    )
    if problem is not None:
        printer.render(Status(problem))
    return target


async def run_goal(
    options: GoalOptions,
    config: AishConfig,
    target: ModelTarget,
    printer: GoalPrinter,
    *,
    scope: ConfigScope | None = None,
) -> NorrisResult:
    """Pursue the goal until the run ends; `CancelledError` (Ctrl-C) passes through.

    `scope`: each action is then judged with the config of the directory the run's shell is
    in at that step (a project's rules stay in its project); without it, with `config`'s."""
    log = _SessionLog(printer)
    log.open(cwd=os.getcwd(), model=target.name)
    _keep_spending(log, config, printer)
    targets = preset_resolver(config, os.environ)
    shell: AgentShell | None = None
    servers: McpServers | None = None
    sandbox: Sandbox | None = None
    try:
        if options.sandbox:
            sandbox = _sandbox(config, printer)
        servers = await _mcp_servers(config, printer)
        models = norris_models(
            config,
            target,
            targets,
            printer.render,
            executor_preset=not options.model_given,
        )
        shell = await AgentShell.start(
            os.getcwd(),
            shell=config.ui.shell,
            max_lines=config.context.output_max_lines,
            max_bytes=config.context.output_max_bytes,
            on_notice=lambda text: printer.render(Status(text)),
            sandbox=sandbox,
        )
        agent_shell = shell
        shell.undo = UndoRecorder.from_config(config.undo)
        if shell.undo is not None:
            printer.snapshots = shell.undo.taken  # the same list, filled as the run goes
        run = NorrisRun(
            options.goal,
            Conversation(render_system_prompt(prompt_facts(config))),
            models.executor,
            printer,
            agent_shell.run_authorized,
            lambda: agent_shell.cwd,
            log.append,
            gate.Policy.from_config(
                config, "headless", yes_safe=options.yes_safe, sandboxed=sandbox is not None
            ),
            NorrisBounds.from_config(
                config.norris,
                max_steps=options.max_steps,
                commands_per_step=config.safety.max_commands_per_reply,
            ),
            second_opinion=SecondOpinion.from_config(config, targets),
            planner=models.planner,
            tasks_max=config.norris.tasks_max,
            preplan_system=config.norris.preplan_system,
            fallback=_fallback(config, models.executor, printer),
            budget=ContextBudget.from_config(config, targets, TokenCounter()),
            shell_facts=agent_shell.facts,
            policy_source=None
            if scope is None
            else DirectoryPolicies(
                scope, "headless", lambda: agent_shell.cwd, yes_safe=options.yes_safe
            ),
            **tool_options(servers, config.mcp.max_tool_calls),
        )
        result = await run.run()
        await shell.close()  # nothing more is written in the sandbox
        shell = None
        if sandbox is not None:
            _finish_sandbox(sandbox, options, result, printer, agent_shell.undo)
        return result
    finally:
        if shell is not None:
            await shell.close()
        if sandbox is not None:
            sandbox.discard()
        if servers is not None:
            await servers.close()
        if log.session_id is not None:
            printer.note(f"session #{log.session_id}: `aish --resume` continues it")
        log.close()


def _sandbox(config: AishConfig, printer: GoalPrinter) -> Sandbox | None:
    from aish.run.sandbox import choose_sandbox

    norris = config.norris
    # --sandbox asks for one whatever norris.sandbox says (that is the interactive default).
    sandbox, said = choose_sandbox(
        "overlay", os.getcwd(), network=norris.sandbox_network, sockets=norris.sandbox_sockets
    )
    if said is not None:
        printer.render(Status(said))
    return sandbox


def _finish_sandbox(
    sandbox: Sandbox,
    options: GoalOptions,
    result: NorrisResult,
    printer: GoalPrinter,
    undo: UndoRecorder | None,
) -> None:
    """Show the change set; apply it with --apply when the goal was completed."""
    from aish.run.sandbox import apply_changes

    changes = sandbox.changes()
    if not options.apply:
        printer.sandbox_changes(changes, None, "not applied: run with --apply to apply it")
    elif result.status not in ("done", "tasks_complete"):
        why = f"not applied: the run ended {result.status}, not with the goal completed"
        printer.sandbox_changes(changes, None, why)
    elif not changes:
        printer.sandbox_changes(changes, None, None)
    else:
        printer.sandbox_changes(changes, apply_changes(changes, undo=undo), None)


# Nobody is waiting at a prompt: the run may wait this long for its MCP servers to come up,
# so its first step already has their tools.
_MCP_START_WAIT_S = 30.0


async def _mcp_servers(config: AishConfig, printer: GoalPrinter) -> McpServers | None:
    """The configured MCP servers, started and given time to come up (failures reported)."""
    if not config.mcp.servers and not config.mcp.import_:
        return None
    import asyncio

    from aish.config.paths import state_dir
    from aish.mcp import McpServers

    servers = McpServers.from_config(config.mcp, os.environ, state_dir() / "mcp")
    servers.start()
    waited = 0.0
    while waited < _MCP_START_WAIT_S and any(s.state == "starting" for s in servers.statuses()):
        await asyncio.sleep(0.05)
        waited += 0.05
    for notice in servers.take_notices():
        printer.render(Status(notice))
    for status in servers.statuses():
        if status.state == "starting":
            printer.render(
                Status(f"mcp server '{status.name}' is still starting; going on without it")
            )
    servers.refresh()
    return servers


class _SessionLog:
    """The run's turns in the store, as a session of their own; failures said once."""

    def __init__(self, printer: GoalPrinter) -> None:
        self._printer = printer
        self._store: Store | None = None
        self._session_id: int | None = None

    @property
    def store(self) -> Store | None:
        return self._store

    @property
    def session_id(self) -> int | None:
        """The session the run is logged as; None while there is no log."""
        return self._session_id

    def open(self, *, cwd: str, model: str) -> None:
        from aish.store import Store, StoreError

        try:
            self._store = Store.open()
            self._session_id = self._store.start_session(cwd=cwd, model=model).id
        except StoreError as error:
            self._failed(error)

    def append(self, kind: str, payload: Mapping[str, Any]) -> None:
        from aish.store import StoreError

        if self._store is None or self._session_id is None:
            return
        try:
            self._store.append_turn(self._session_id, kind, payload)
        except StoreError as error:
            self._failed(error)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def _failed(self, error: Exception) -> None:
        self._printer.warn(f"session log unavailable, going on without it: {error}")
        self._session_id = None
        self.close()
