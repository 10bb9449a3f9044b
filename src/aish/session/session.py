"""One aish session: what the REPL, `aish ask` and `aish goal` have in common.

A `Session` is built once from the loaded config and rebuilt from it by `reload()` (`:config
reload`, `:trust`) or when the user's shell enters another project (`follow`). It owns the
conversation, the gate's policies, the second opinion, the outbound door (the vault of secret
placeholders and the spending stop: one per session, handed to everything that calls a model
or redeems a placeholder), the usage ledger, the session log, memory and the model choice. A
frontend (the REPL's view, `aish goal`'s printer, `aish ask`'s printer) is attached to it: the
session speaks through it and records every call's usage it is shown.

The chat turn and the Norris run are assembled here and nowhere else (`chat_turn`,
`norris_run`); the executors that run what the gate authorized are the caller's (its shells
and its tools).

Start-up: this module imports no HTTP client, no line editor, no MCP SDK and no parser; what a
session needs later is imported when it is first needed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from aish.agent.outbound import Outbound
from aish.config.project_scope import ProjectState
from aish.session.log import SessionLog
from aish.session.models import ModelChoice

if TYPE_CHECKING:
    from aish.agent import gate
    from aish.agent.chat import AuthorizedRunner, ChatFrontend, ChatTurn, JobStarter
    from aish.agent.events import Frontend, UsageRecorded
    from aish.agent.fix import FixTurn
    from aish.agent.line_completion import LineCompleter
    from aish.agent.norris import (
        BackgroundJobs,
        CommandRunner,
        Delegator,
        NorrisBounds,
        NorrisFrontend,
        NorrisModels,
        NorrisResult,
        NorrisRun,
        SubRun,
    )
    from aish.agent.second_opinion import SecondOpinion
    from aish.agent.session_approvals import SessionApprovals
    from aish.agent.shell_facts import FactsSource
    from aish.config import ConfigScope, LoadedConfig
    from aish.config.schema import AishConfig
    from aish.conversation.context import Conversation
    from aish.llm.types import ModelTarget
    from aish.session.memory import SessionMemory
    from aish.session.spending import SessionSpending
    from aish.store import SessionInfo, Store

__all__ = ["Session", "SessionFrontend"]


class SessionFrontend(Protocol):
    """What the session needs of a frontend: it is told about every call's usage."""

    on_usage: Callable[[UsageRecorded], None] | None


class Session:
    """The application's state for one session; see the module docstring."""

    def __init__(
        self,
        loaded: LoadedConfig,
        *,
        model: str,
        store: Store | None = None,
        info: SessionInfo | None = None,
        reload: Callable[[str | None], LoadedConfig] | None = None,
        loaded_for: str | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        """`model`: the preset in use. `store` and `info`: the REPL's store and the session
        logged in it (`aish goal` opens its own with `open_log`; `aish ask` keeps none).
        `reload`: loads the config for a directory; with it the gate takes the config of the
        directory each action runs in, and `reload`/`follow` can load it again. `loaded_for`:
        the directory `loaded` was loaded for, when the config follows the user's shell.
        `say`: where its lines go until a frontend is attached (`aish ask` attaches none)."""
        self.loaded = loaded
        self.model = model
        self.outbound = Outbound()
        self._say: Callable[[str], None] = say if say is not None else lambda text: None
        self._render_event: Callable[[Any], None] | None = None
        self._logs_what_it_says = True
        self._frontend: SessionFrontend | None = None
        self._conversation: Conversation | None = None
        # The config of each directory (the project file there, when trusted).
        self.scope: ConfigScope | None = None
        self.project = ProjectState()
        if reload is not None:
            self.scope = _config_scope(reload, store)
            if loaded_for is not None:
                self.project = self.scope.state(loaded_for)
        self.log_book = SessionLog(store, info, say=lambda text: self._say(text))
        self.models = ModelChoice(
            loaded.config, status=self._status, log=self._logged_status, outbound=self.outbound
        )
        self._memory: SessionMemory | None = None
        self.spending: SessionSpending | None = None
        # Made from the config when first needed (`aish ask` needs neither).
        self._policy: gate.Policy | None = None
        # `[a]lways` answers for this session (in memory only); None: no `[a]lways` is offered
        # (`aish ask`, `aish goal`). The REPL sets it.
        self.approvals: SessionApprovals | None = None
        self._second_opinion: SecondOpinion | None = None

    # ---- parts ---------------------------------------------------------------------------------

    @property
    def config(self) -> AishConfig:
        return self.loaded.config

    @property
    def store(self) -> Store | None:
        return self.log_book.store

    @property
    def info(self) -> SessionInfo | None:
        """The session as logged in the store (None: not logged)."""
        return self.log_book.info

    @property
    def conversation(self) -> Conversation:
        """The conversation, made on first use (its system prompt is decided once)."""
        if self._conversation is None:
            from aish.conversation.context import Conversation
            from aish.conversation.system_prompt import render_system_prompt
            from aish.session.prompt_facts import prompt_facts

            self._conversation = Conversation(render_system_prompt(prompt_facts(self.config)))
        return self._conversation

    @conversation.setter
    def conversation(self, conversation: Conversation) -> None:
        self._conversation = conversation

    @property
    def memory(self) -> SessionMemory:
        """Remembered items and the `[background]` block (a session with a store only)."""
        if self._memory is None:
            from aish.session.memory import SessionMemory

            assert self.store is not None, "memory needs the session's store"
            self._memory = SessionMemory(
                self.store,
                self.config,
                status=self._status,
                render=self._render,
                log=self.log,
                outbound=self.outbound,
            )
        return self._memory

    @property
    def policy(self) -> gate.Policy:
        """The gate's policy for the user's chat (the config in use, everywhere)."""
        if self._policy is None:
            from aish.agent import gate

            self._policy = self._approving(
                gate.Policy.from_config(self.config, "interactive", outbound=self.outbound)
            )
        return self._policy

    @property
    def second_opinion(self) -> SecondOpinion:
        """The judge of `unknown` actions; it caches its answers as long as the config lasts."""
        if self._second_opinion is None:
            from aish.agent.second_opinion import SecondOpinion

            self._second_opinion = SecondOpinion.from_config(
                self.config, self.models.resolver(), outbound=self.outbound
            )
        return self._second_opinion

    # ---- the frontend ------------------------------------------------------------------------

    def attach(
        self,
        frontend: SessionFrontend,
        *,
        say: Callable[[str], None],
        render: Callable[[Any], None] | None = None,
        log_what_it_says: bool = True,
    ) -> None:
        """Speak through `frontend` (`say` one line; `render` an agent event) and record the
        usage of every call it is shown in the ledger, stopped at `cost.stop_at_dollars`.
        `log_what_it_says`: the model choice's lines go into the session log too."""
        self._frontend = frontend
        self._say = say
        self._render_event = render
        self._logs_what_it_says = log_what_it_says
        self.new_spending()

    def _status(self, text: str) -> None:
        self._say(text)

    def _render(self, event: Any) -> None:
        if self._render_event is not None:
            self._render_event(event)

    def _logged_status(self, kind: str, payload: Mapping[str, Any]) -> None:
        if self._logs_what_it_says:
            self.log(kind, payload)

    # ---- the session log and the ledger -------------------------------------------------------

    def log(self, kind: str, payload: Mapping[str, Any]) -> None:
        """One turn into the session log (a failure is said once; the session goes on)."""
        self.log_book.append(kind, payload)

    def open_log(self, *, cwd: str, warn: Callable[[str], None]) -> None:
        """A store and a logged session of the session's own (`aish goal`), and the ledger
        over it; a store that fails is said with `warn` and the session goes on without."""
        self.log_book = SessionLog.open(cwd=cwd, model=self.model, say=warn)
        self.new_spending()

    def close_log(self) -> None:
        self.log_book.close()

    def new_spending(self) -> SessionSpending:
        """The ledger of the current session; every call's usage goes there, and the spending
        stop is checked before each call (`Outbound.refuse`). `:cost limit` holds for the
        whole process, whichever session it logs to."""
        from aish.session.spending import SessionSpending

        spending = SessionSpending(
            self.store, self.log_book.session_id, self.config.cost, say=self._status
        )
        if self.spending is not None:
            spending.limit = self.spending.limit
        self.spending = spending
        if self._frontend is not None:
            self._frontend.on_usage = spending.record
        self.outbound.refuse = spending.refuse
        return spending

    def set_cost_limit(self, dollars: float | None) -> None:
        assert self.spending is not None
        self.spending.limit = dollars
        self.log("status", {"text": f"cost limit {dollars}"})

    def use_session(self, info: SessionInfo) -> None:
        """Log to `info` from now on (`:load`), with its ledger."""
        self.log_book.info = info
        self.new_spending()

    # ---- models --------------------------------------------------------------------------------

    def resolve(self, name: str | None = None) -> ModelTarget | str:
        """The target of preset `name` (None: the session's model), or one line saying why
        it cannot be used."""
        return self.models.resolve(self.model if name is None else name)

    def switch_model(self, name: str) -> str | None:
        """Use preset `name` from now on; what is wrong with it, or None."""
        if name not in self.config.models:
            return f"unknown model preset '{name}' (known: {', '.join(self.config.models)})"
        self.model = name
        self.log("status", {"text": f"model switched to {name}"})
        return None

    # ---- the config ----------------------------------------------------------------------------

    def reload(self, cwd: str) -> tuple[LoadedConfig, list[str]] | None:
        """Load the config again for `cwd` (every file read again: a project file just
        trusted or revoked applies now) and rebuild what was made from it: the loaded config
        and what to tell the user about the change; None when it cannot be reloaded here."""
        if self.scope is None:
            return None
        self.scope.forget()
        self.project, loaded = self.scope.at(cwd)
        return loaded, self.use_config(loaded)

    def follow(self, cwd: str) -> tuple[ProjectState, LoadedConfig] | None:
        """When the project file governing `cwd` is another one now (or the same one, trusted
        or edited since): the state before and the config to use there (`use_config`); None
        when nothing changed. A failing load raises, and the config in use stays."""
        if self.scope is None:
            return None
        state, loaded = self.scope.at(cwd)
        if state == self.project:
            return None
        before, self.project = self.project, state
        return before, loaded

    def use_config(self, loaded: LoadedConfig) -> list[str]:
        """Rebuild what was made from the config; what to tell the user about the change.
        What `:route`, `:fallback` and `:cost limit` set this session, and the token counter's
        calibration, stay; what comes from the config follows it."""
        old = self.config
        config = loaded.config
        self.loaded = loaded
        self._policy = None  # made again from the new config
        self._second_opinion = None
        self.models.use_config(config)
        if self._memory is not None:
            self._memory.use_config(config)
        lines: list[str] = []
        if config.mcp != old.mcp:
            lines.append("MCP server changes apply when aish starts again")
        if self.model not in config.models and config.models:
            if old.models:
                lines.append(f"model preset '{self.model}' is gone; :model picks another")
            else:  # there was none to choose (`aish init` just wrote the file): take the default
                from aish.config.targets import preset_name

                self.switch_model(preset_name(config) or "")
                lines.append(f"model: {self.model_line(self.model)}")
        return lines

    def model_line(self, name: str) -> str:
        preset = self.config.models.get(name)
        if preset is None:
            return f"{name}: (unknown)"
        from aish.endpoints import shown_endpoint

        return f"{name}: {preset.model} via {preset.api} at {shown_endpoint(preset.endpoint)}"

    def policies(
        self, mode: gate.Mode, cwd: Callable[[], str], *, yes_safe: bool = False
    ) -> gate.PolicySource | None:
        """The gate's policy per action, from the config of the directory `cwd()` names
        (None without a config scope: the session's policy holds everywhere)."""
        if self.scope is None:
            return None
        from aish.agent.project import DirectoryPolicies

        policies = DirectoryPolicies(
            self.scope, mode, cwd, yes_safe=yes_safe, outbound=self.outbound
        )
        if self.approvals is None:
            return policies
        return lambda action: self._approving(policies(action))

    def _approving(self, policy: gate.Policy) -> gate.Policy:
        """`policy` with this session's `[a]lways` approvals (when it keeps any)."""
        if self.approvals is None:
            return policy
        return dataclasses.replace(policy, approvals=self.approvals)

    # ---- what runs -----------------------------------------------------------------------------

    def chat_turn(
        self,
        target: ModelTarget,
        frontend: ChatFrontend,
        run_authorized: AuthorizedRunner,
        cwd: Callable[[], str],
        *,
        shell_facts: FactsSource | None,
        tools: Mapping[str, Any],
        start_job: JobStarter | None = None,
        delegator: Delegator | None = None,
    ) -> ChatTurn:
        """One chat turn on the session's conversation, its commands run by `run_authorized`
        in the shell whose directory `cwd()` names, its `CMD&:` lines started by `start_job`
        and its `DELEGATE:` lines handed to `delegator` (None: refused). `tools`: the MCP
        tools and their executor (`tool_options`), or none."""
        from aish.agent.chat import ChatTurn

        return ChatTurn(
            self.conversation,
            target,
            frontend,
            run_authorized,
            self.log,
            policy=self.policy,
            policy_source=self.policies("interactive", cwd),
            second_opinion=self.second_opinion,
            fallback=self.models.fallback(target),
            budget=self.models.budget(),
            shell_facts=shell_facts,
            max_commands=self.config.safety.max_commands_per_reply,
            outbound=self.outbound,
            start_job=start_job,
            delegator=delegator,
            **tools,
        )

    def fix_turn(
        self,
        active: ModelTarget,
        frontend: Frontend,
        cwd: Callable[[], str],
        *,
        shell_facts: FactsSource | None,
        tools: Mapping[str, Any],
    ) -> FixTurn:
        """`??`: a fix of the last failed command asked on the session's conversation, of
        the `fix` class's preset (`fast` when there is one); proposed, never run. `tools`: as
        for `chat_turn` — offered (never called) so that the request's prefix is the chat's."""
        from aish.agent.fix import FixTurn
        from aish.agent.toolbox import offered

        target = self.models.fix_target(active)
        return FixTurn(
            self.conversation,
            target,
            frontend,
            self.log,
            self.policy,
            self.outbound,
            tools=offered(target, tools.get("tools")) if tools.get("run_tool") else (),
            policy_source=self.policies("interactive", cwd),
            fallback=self.models.fallback(target),
            budget=self.models.budget(),
            shell_facts=shell_facts,
        )

    def line_completer(self) -> LineCompleter | str:
        """The model ghost text's completer (`ui.suggest = "model"`), or one line saying why
        there is none (a cloud preset not opted in, a missing key)."""
        from aish.agent.line_completion import LineCompleter

        target = self.models.suggest_target(self.model)
        if isinstance(target, str):
            return target
        return LineCompleter(target, self.outbound, on_usage=self._record_usage)

    def _record_usage(self, event: UsageRecorded) -> None:
        """Into the current ledger (`:load` starts another)."""
        if self.spending is not None:
            self.spending.record(event)

    def norris_models(
        self, active: ModelTarget, on_event: Callable[[Any], None], *, executor_preset: bool = True
    ) -> NorrisModels:
        """The run's executor and planner (`norris.executor`, `norris.preplanner`)."""
        from aish.agent.norris import norris_models

        return norris_models(
            self.config, active, self.models.resolver(), on_event, executor_preset=executor_preset
        )

    def norris_run(
        self,
        goal: str,
        frontend: NorrisFrontend,
        models: NorrisModels,
        run_authorized: CommandRunner,
        cwd: Callable[[], str],
        *,
        mode: gate.Mode,
        shell_facts: FactsSource | None,
        tools: Mapping[str, Any],
        sandboxed: bool = False,
        yes_safe: bool = False,
        max_steps: int | None = None,
        jobs: BackgroundJobs | None = None,
    ) -> NorrisRun:
        """A Norris run on the session's conversation, its steps run by `run_authorized` in
        the agent's shell whose directory `cwd()` names, its `CMD&:` steps started as `jobs`
        of it (None: refused). `mode`: `norris` (someone answers its HALTs) or `headless`
        (`aish goal`)."""
        from aish.agent import gate
        from aish.agent.norris import NorrisBounds, NorrisRun

        config = self.config

        async def delegated(
            target: ModelTarget, goal: str, bounds: NorrisBounds, scrubbed: bool
        ) -> NorrisResult:
            # The same executor, gate, frontend and sandbox: only the model and the bounds differ.
            sub = self.delegated_run(
                target,
                goal,
                bounds,
                frontend,
                run_authorized,
                cwd,
                mode=mode,
                shell_facts=shell_facts,
                tools=tools,
                sandboxed=sandboxed,
                yes_safe=yes_safe,
                output_reaches_scrubbed_model=scrubbed,
            )
            return await sub.run()

        return NorrisRun(
            goal,
            self.conversation,
            models.executor,
            frontend,
            run_authorized,
            cwd,
            self.log,
            self._approving(
                gate.Policy.from_config(
                    config, mode, yes_safe=yes_safe, sandboxed=sandboxed, outbound=self.outbound
                )
            ),
            NorrisBounds.from_config(
                config.norris,
                max_steps=max_steps,
                commands_per_step=config.safety.max_commands_per_reply,
            ),
            second_opinion=self.second_opinion,
            planner=models.planner,
            tasks_max=config.norris.tasks_max,
            preplan_system=config.norris.preplan_system,
            fallback=self.models.fallback(models.executor),
            budget=self.models.budget(),
            shell_facts=shell_facts,
            policy_source=self.policies(mode, cwd, yes_safe=yes_safe),
            outbound=self.outbound,
            jobs=jobs,
            delegator=self.delegator(delegated, unattended=config.norris.delegate),
            **tools,
        )

    def delegator(self, run: SubRun, *, unattended: bool = False) -> Delegator:
        """What hands `DELEGATE:` lines to `run` (a sub-run on the same executor), with the
        `[norris] delegate_*` caps; `unattended`: a Norris step's delegation does not ask."""
        from aish.agent.norris import Delegator

        config = self.config
        return Delegator(
            self.resolve,
            lambda: list(self.config.models),
            run,
            Delegator.caps_from(config.norris, config.safety.max_commands_per_reply),
            unattended=unattended,
            outbound=self.outbound,
        )

    def delegated_run(
        self,
        target: ModelTarget,
        goal: str,
        bounds: NorrisBounds,
        frontend: NorrisFrontend,
        run_authorized: CommandRunner,
        cwd: Callable[[], str],
        *,
        mode: gate.Mode,
        shell_facts: FactsSource | None,
        tools: Mapping[str, Any],
        sandboxed: bool = False,
        yes_safe: bool = False,
        output_reaches_scrubbed_model: bool = False,
    ) -> NorrisRun:
        """A delegated sub-run (`DELEGATE:`): a Norris run of depth 1 on `target`, in a fresh
        conversation holding only the sub-goal, within `bounds`, through the same executor and
        gate. It delegates no further and starts no background jobs; its turns go into the
        session log as `delegated` (they are not the conversation's on a resume).
        `output_reaches_scrubbed_model`: its parent's model is shown scrubbed text, so its gate
        keeps secrets from its own model as the parent's would (its words go back there)."""
        from aish.agent import gate
        from aish.agent.norris import NorrisRun
        from aish.conversation.context import Conversation

        def log(kind: str, payload: Mapping[str, Any]) -> None:
            self.log("delegated", {"kind": kind, **payload})

        return NorrisRun(
            goal,
            Conversation(self.conversation.system_prompt),
            target,
            frontend,
            run_authorized,
            cwd,
            log,
            self._approving(
                gate.Policy.from_config(
                    self.config,
                    mode,
                    yes_safe=yes_safe,
                    sandboxed=sandboxed,
                    outbound=self.outbound,
                    scrubbed=output_reaches_scrubbed_model,
                )
            ),
            bounds,
            second_opinion=self.second_opinion,
            fallback=self.models.fallback(target),
            shell_facts=shell_facts,
            policy_source=self.policies(mode, cwd, yes_safe=yes_safe),
            outbound=self.outbound,
            depth=1,
            output_reaches_scrubbed_model=output_reaches_scrubbed_model,
            **tools,
        )

    # ---- `aish ask` -----------------------------------------------------------------------------

    def ask_targets(
        self, question: str, target: ModelTarget, *, route: bool
    ) -> tuple[ModelTarget, ModelTarget | None]:
        """`aish ask`'s model after auto-routing (`routing.auto`, unless `route` is off: the
        user named the model), and its cloud fallback."""
        if route:
            target = self.models.route(question, target)
        return target, self.models.fallback(target)

    def record_usage(self, calls: list[UsageRecorded], say: Callable[[str], None]) -> None:
        """`aish ask`'s calls into the usage ledger (outside any session), once the answer is
        out: the store is not opened before the question is asked."""
        if not calls:
            return
        from aish.session.spending import SessionSpending
        from aish.store import Store, StoreError

        try:
            with Store.open() as store:
                spending = SessionSpending(store, None, self.config.cost, say=say)
                for call in calls:
                    spending.record(call)
        except StoreError as error:
            say(f"usage not recorded: {error}")


def _config_scope(load: Callable[[str | None], LoadedConfig], store: Store | None) -> ConfigScope:
    from aish.config.paths import home_directory
    from aish.config.project_scope import ConfigScope
    from aish.session.trust import trust_lookup, trust_on_demand

    lookup = trust_lookup(store) if store is not None else trust_on_demand
    return ConfigScope(load, lookup, home_directory(os.environ))
