"""Norris runs and delegations started from the REPL, each in a shell of the agent's own.

The shell starts in the user's shell's cwd with their exported environment, in the sandbox
`norris.sandbox` chooses (or the last run's, while its change set waits for review); after the
run the sandbox's change set is reviewed here. `:norris <goal>` and a chat reply's
`DELEGATE:` line (after the user's yes) come through this one place.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from aish.ui.repl.shell_output import ignoring, no_echo
from aish.ui.sandbox_review import SandboxReview

if TYPE_CHECKING:
    from aish.agent.norris import NorrisBounds, NorrisResult
    from aish.run.agent_shell import AgentShell
    from aish.run.sandbox import Sandbox
    from aish.run.user_shell import UserShell
    from aish.session import Session
    from aish.session.records import ModelTarget
    from aish.ui.chat_view import ChatView
    from aish.ui.repl.mcp_servers import ReplMcp

__all__ = ["AgentRuns"]


class AgentRuns:
    """The REPL's Norris runs and delegated sub-runs, and the review of their sandbox."""

    def __init__(
        self,
        session: Session,
        view: ChatView,
        user_shell: UserShell,
        mcp: ReplMcp,
        *,
        stdin_fd: int,
        shell_cwd: Callable[[], str],
        log: Callable[[str, Mapping[str, Any]], None],
    ) -> None:
        self.session = session
        self._view = view
        self._user_shell = user_shell
        self._mcp = mcp
        self._stdin_fd = stdin_fd
        self._shell_cwd = shell_cwd
        self._log = log
        # The last sandboxed run's change set, until it is applied or discarded.
        self.review = SandboxReview(view, log, lambda: user_shell.undo)

    async def run_goal(self, goal: str) -> None:
        """Pursue `goal` autonomously in a shell of the agent's own (started in this shell's
        cwd); HALTs ask here; Ctrl-C aborts. The run joins this conversation."""
        self._mcp.at_turn_boundary()
        active = self.session.resolve()
        if isinstance(active, str):
            self._log("status", {"text": active})
            self._view.status(active)
            return
        models = self.session.norris_models(active, self._view.render)

        from aish.agent.shell_facts import ShellFactsSource

        async def run_in(agent: AgentShell, sandbox: Sandbox | None) -> None:
            run = self.session.norris_run(
                goal,
                self._view,
                models,
                agent.run_authorized,
                lambda: agent.cwd,
                mode="norris",
                shell_facts=ShellFactsSource(agent.session.state_report),
                tools=self._mcp.tool_options(),
                sandboxed=sandbox is not None,
                jobs=agent,
            )
            await run.run()

        await self._in_agent_shell(run_in)

    async def delegated(
        self, target: ModelTarget, goal: str, bounds: NorrisBounds, scrubbed: bool
    ) -> NorrisResult:
        """A chat reply's `DELEGATE:` line, after the user's yes: a bounded sub-run in a shell
        of the agent's own, as `:norris` would run it (the same sandbox choice)."""
        from aish.agent.norris import NorrisResult
        from aish.agent.shell_facts import ShellFactsSource

        results: list[NorrisResult] = []

        async def run_in(agent: AgentShell, sandbox: Sandbox | None) -> None:
            run = self.session.delegated_run(
                target,
                goal,
                bounds,
                self._view,
                agent.run_authorized,
                lambda: agent.cwd,
                mode="norris",
                shell_facts=ShellFactsSource(agent.session.state_report),
                tools=self._mcp.tool_options(),
                sandboxed=sandbox is not None,
                output_reaches_scrubbed_model=scrubbed,
            )
            results.append(await run.run())

        if await self._in_agent_shell(run_in) and results:
            return results[0]
        why = "the agent's shell could not start here (:norris review the last run's sandbox)"
        return NorrisResult("failed", why, 0, 0.0, 0, None, self._shell_cwd())

    async def _in_agent_shell(
        self, body: Callable[[AgentShell, Sandbox | None], Awaitable[None]]
    ) -> bool:
        """Start the agent's shell in this shell's cwd (in the sandbox `norris.sandbox` says),
        run `body` in it, close it, then review the sandbox's change set; False when no
        shell could start (a pending sandbox over another project)."""
        from aish.run.agent_shell import AgentShell

        config = self.session.config
        sandboxing, sandbox = await self._norris_sandbox()
        if not sandboxing:
            return False
        with no_echo(self._stdin_fd), ignoring(signal.SIGQUIT, signal.SIGTSTP):
            agent = await AgentShell.start(
                self._shell_cwd(),
                env=await self._users_environment(),
                shell=config.ui.shell,
                max_lines=config.context.output_max_lines,
                max_bytes=config.context.output_max_bytes,
                on_notice=self._view.status,
                sandbox=sandbox,
            )
            agent.undo = self._user_shell.undo  # one :undo history for chat and Norris
            try:
                await body(agent, sandbox)
            finally:
                # Keys typed during the run (not echoed) stay unread: the next prompt's input.
                await agent.close()
        if sandbox is not None:
            await self.review.review()
        return True

    async def _norris_sandbox(self) -> tuple[bool, Sandbox | None]:
        """(whether the run may start, the sandbox it runs in): the pending one of the last
        run when there is one over this project, else a new one as `norris.sandbox` says."""
        from aish.run.sandbox import choose_sandbox
        from aish.run.sandbox.overlay import project_root

        norris = self.session.loaded.config.norris
        cwd = self._shell_cwd()
        pending = self.review.pending
        if pending is not None:
            if project_root(cwd) != pending.tree:
                self._view.status(
                    f"the last run's sandbox over {pending.tree} is not applied yet: "
                    ":norris review it first"
                )
                return False, None
            self._view.status("going on in the last run's sandbox (its changes are not applied)")
            return True, pending
        sandbox, said = await asyncio.to_thread(
            choose_sandbox,
            norris.sandbox,
            cwd,
            network=norris.sandbox_network,
            sockets=norris.sandbox_sockets,
        )
        if said is not None:
            self._view.status(said)
            self._log("status", {"text": said})
        self.review.pending = sandbox
        return True, sandbox

    async def _users_environment(self) -> dict[str, str]:
        """The user's shell's exported variables as they are now (an activated virtualenv, an
        `export` typed a minute ago), for the agent's shell; aish's own when it cannot say."""
        try:
            return await self._user_shell.exported_environment()
        except Exception as error:  # a busy, dead or unanswering shell: say it, go on
            import logging

            logging.getLogger("aish.repl").warning("no environment from the shell: %r", error)
            self._view.status("the agent's shell starts with aish's environment, not your shell's")
            return dict(os.environ)
