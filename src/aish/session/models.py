"""Which model answers, and how much of the conversation it gets (§3, §8): the session's
model choice (the REPL's switches, `aish goal`'s fallback and budget).

The one place a preset name becomes a target for the session (`resolve`): a preset that cannot
be used is one line to show, not an exception every caller catches.

Per request: auto-routing by task type (`routing.auto`, `:route on|off`) may pick another
preset for one question — the prompt keeps the user's model — and the cloud fallback
(`routing.cloud_fallback`, `:fallback on|off`) names the preset asked once more when the chosen
one fails before showing anything. For the session: one token counter, calibrated by every
reply whose server reported usage, and the context budget that evicts with it. `:tokens` says
what the next request would cost against that budget.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from aish.conversation.context import Conversation

if TYPE_CHECKING:
    from aish.agent.context_budget import ContextBudget
    from aish.agent.outbound import Outbound
    from aish.agent.toolbox import ToolBox
    from aish.config.schema import AishConfig, RouteClass
    from aish.conversation.tokens import TokenCounter
    from aish.llm.types import ModelTarget, PresetResolver

__all__ = ["ModelChoice"]

_CLASSES: tuple[RouteClass, ...] = ("code", "reasoning", "default")


class ModelChoice:
    """Routing, fallback and the context budget of one session."""

    def __init__(
        self,
        config: AishConfig,
        *,
        status: Callable[[str], None],
        log: Callable[[str, Mapping[str, Any]], None],
        outbound: Outbound | None = None,
    ) -> None:
        self._config = config
        self._outbound = outbound  # the session's door, for the summariser's questions
        self._status = status
        self._log = log
        self.auto = config.routing.auto
        self.fallback_on = config.routing.cloud_fallback
        self._counter: TokenCounter | None = None
        self._problems_said: set[str] = set()

    @property
    def counter(self) -> TokenCounter:
        """The session's token counter, made with the first request (not before the prompt)."""
        if self._counter is None:
            from aish.conversation.tokens import TokenCounter

            self._counter = TokenCounter()
        return self._counter

    def use_config(self, config: AishConfig) -> None:
        """A reloaded config: presets and classes from it; the session's switches stay."""
        self._config = config

    def resolve(self, name: str) -> ModelTarget | str:
        """The target of preset `name`, or one line saying why it cannot be used."""
        from aish.errors import ConfigError
        from aish.session.model_targets import resolve_target

        try:
            return resolve_target(self._config, name, os.environ)
        except ConfigError as error:
            return str(error)

    # ---- per request -------------------------------------------------------------------------

    def route(self, question: str, active: ModelTarget) -> ModelTarget:
        """The target for `question`: another preset when auto-routing picks one."""
        if not self.auto:
            return active
        from aish.agent.model_class import routed_target

        target, said = routed_target(self._config, question, active, self.resolver())
        if said is not None:
            self._say(said)
        return target

    def fix_target(self, active: ModelTarget) -> ModelTarget:
        """The target of `??`: the preset `routing.classes.fix` names, else `fast` when
        there is one, else `active` (whatever `:route` says: a fix is aish's own request). A
        preset that cannot be used leaves it on `active`, and says why."""
        name = self._config.routing.classes.get("fix")
        if name is None and "fast" in self._config.models:
            name = "fast"
        if name is None or name == active.name:
            return active
        target = self.resolve(name)
        if isinstance(target, str):
            self._say(f"fix not asked of {name} ({target}); asking {active.name}")
            return active
        return target

    def suggest_target(self, active: str) -> ModelTarget | str:
        """The preset of the model ghost text (`ui.suggest_model`, else `fast` when there is
        one, else `active`), or why there is none: it must be local unless the user opted in
        (`ui.suggest_cloud`) — every pause in typing would be a request."""
        from aish.endpoints import is_loopback_endpoint

        ui = self._config.ui
        name = ui.suggest_model or ("fast" if "fast" in self._config.models else active)
        target = self.resolve(name)
        if isinstance(target, str):
            return f"no model suggestions: {target}"
        if not ui.suggest_cloud and not is_loopback_endpoint(target.endpoint):
            return (
                f"no model suggestions: {name} is not on this machine "
                "(ui.suggest_cloud = true lets a cloud preset suggest); history only"
            )
        return target

    def fallback(self, active: ModelTarget) -> ModelTarget | None:
        """The preset asked once more when `active` fails before showing anything."""
        from aish.agent.fallback import fallback_target

        target, problem = fallback_target(
            self._config, active, self.resolver(), enabled=self.fallback_on
        )
        if problem is not None and problem not in self._problems_said:
            self._problems_said.add(problem)  # said once per session, not every turn
            self._say(problem)
        return target

    def budget(self) -> ContextBudget:
        from aish.agent.context_budget import ContextBudget

        return ContextBudget.from_config(
            self._config, self.resolver(), self.counter, self._outbound
        )

    def resolver(self) -> PresetResolver:
        """Preset names → targets, from this config and the environment as it is then."""
        from aish.session.model_targets import preset_resolver

        return preset_resolver(self._config, os.environ)

    # ---- meta commands -----------------------------------------------------------------------

    def route_command(self, verb: str) -> str:
        """`:route on|off|classes` (and `:route` alone: the state)."""
        if verb in ("on", "off"):
            self.auto = verb == "on"
            self._log("status", {"text": f"auto-routing {verb}"})
        elif verb not in ("", "classes"):
            return "usage: :route on|off|classes|check <text>"
        state = "on" if self.auto else "off"
        return f"auto-routing {state}: " + self._mapping()

    def class_line(self, text: str) -> str:
        """What auto-routing would do with `text` (`:route check`)."""
        from aish.agent.model_class import classify_model

        choice = classify_model(text, self._config.routing)
        preset = choice.preset or "your model"
        off = "" if self.auto else " if auto-routing were on"
        return f"class {choice.model_class} ({choice.reason}): {preset}{off}"

    def fallback_command(self, verb: str) -> str:
        """`:fallback on|off` (and `:fallback` alone: the state)."""
        if verb in ("on", "off"):
            self.fallback_on = verb == "on"
            self._log("status", {"text": f"cloud fallback {verb}"})
        elif verb:
            return "usage: :fallback on|off"
        name = self._config.routing.fallback_model
        if not self.fallback_on:
            return "cloud fallback off"
        if name is None:
            return "cloud fallback on, but routing.fallback_model is not set: nothing to retry on"
        if name not in self._config.models:
            return f"cloud fallback on, but routing.fallback_model '{name}' is not a preset"
        return f"cloud fallback on: a request that fails before any output is retried via {name}"

    async def tokens_line(
        self, conversation: Conversation, model: str, cwd: str, tools: ToolBox[Any] | None
    ) -> str:
        """`:tokens`: the next request's size (the question not yet typed) against the budget,
        with the tools the request would offer."""
        from aish.agent.toolbox import offered
        from aish.conversation.tokens import TokenCount, format_token_report, model_key
        from aish.endpoints import is_loopback_endpoint

        target = self.resolve(model)
        if isinstance(target, str):
            return target
        messages = conversation.as_seen_by_model(cwd=cwd)
        specs = offered(target, tools)
        count = self.counter.estimate(model_key(target), messages, specs)
        # Only a local server that may see the text as it is counts it exactly.
        if is_loopback_endpoint(target.endpoint) and not target.scrub_secrets:
            from aish.llm.tokenize import count_exact

            exact = await count_exact(target, messages, specs or None)
            if exact is not None:
                count = TokenCount(exact, "exact")
        context = self._config.context
        return format_token_report(
            count,
            budget=context.token_budget,
            turns=conversation.exchange_count(),
            max_turns=context.max_turns,
            preset=target.name,
        )

    def _mapping(self) -> str:
        classes = self._config.routing.classes
        routed = ", ".join(f"{c} → {classes.get(c) or 'your model'}" for c in _CLASSES)
        # `??` is routed whether or not auto-routing is on (`fix_target`).
        fix = classes.get("fix") or ("fast" if "fast" in self._config.models else "your model")
        return f"{routed}; ?? (fix) → {fix}"

    def _say(self, text: str) -> None:
        self._status(text)
        self._log("status", {"text": text})
