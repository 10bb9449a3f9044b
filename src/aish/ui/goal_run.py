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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aish.agent.events import Status
from aish.agent.norris import NorrisResult
from aish.agent.shell_facts import ShellFactsSource
from aish.run.agent_shell import AgentShell
from aish.run.tool_calls import tool_options
from aish.run.undo import UndoRecorder
from aish.ui.goal_printer import GoalPrinter

if TYPE_CHECKING:
    from aish.config.schema import AishConfig
    from aish.mcp import McpServers
    from aish.run.sandbox import Sandbox
    from aish.session import Session
    from aish.session.records import ModelTarget


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


async def run_goal(
    options: GoalOptions, session: Session, target: ModelTarget, printer: GoalPrinter
) -> NorrisResult:
    """Pursue the goal until the run ends; `CancelledError` (Ctrl-C) passes through.

    With a config scope in the session (`reload`), each action is judged with the config of
    the directory the run's shell is in at that step (a project's rules stay in its project);
    without it, with the session's config."""
    config = session.config
    session.attach(printer, say=lambda text: printer.render(Status(text)), log_what_it_says=False)
    session.open_log(cwd=os.getcwd(), warn=printer.warn)
    shell: AgentShell | None = None
    servers: McpServers | None = None
    sandbox: Sandbox | None = None
    try:
        if options.sandbox:
            sandbox = _sandbox(config, printer)
        servers = await _mcp_servers(config, printer)
        models = session.norris_models(
            target, printer.render, executor_preset=not options.model_given
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
        run = session.norris_run(
            options.goal,
            printer,
            models,
            agent_shell.run_authorized,
            lambda: agent_shell.cwd,
            mode="headless",
            shell_facts=ShellFactsSource(agent_shell.session.state_report),
            tools=tool_options(servers, config.mcp.max_tool_calls),
            sandboxed=sandbox is not None,
            yes_safe=options.yes_safe,
            max_steps=options.max_steps,
            jobs=agent_shell,
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
        if session.log_book.session_id is not None:
            printer.note(f"session #{session.log_book.session_id}: `aish --resume` continues it")
        session.close_log()


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
