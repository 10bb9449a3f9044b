"""Choosing the scripted reply for each chat request: rule matching, sequences and ``times``."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from aish_testllm.chat_request import ChatRequest
from aish_testllm.scenario import Reply, Rule, Scenario, When


@dataclass(frozen=True)
class Selection:
    """The outcome of matching one request."""

    n: int  # 1-based chat request number over the server's lifetime
    rule: str | int  # rule name, rule index, or "default"
    reply: Reply


def when_matches(when: When, request: ChatRequest, n: int) -> bool:
    """Whether every condition given in ``when`` holds for request number ``n``."""
    checks = (
        when.user is None or when.user.search(request.user_text) is not None,
        when.system is None or when.system.search(request.system_text) is not None,
        when.model is None or when.model.search(request.model or "") is not None,
        when.request is None or when.request == n,
        when.tools is None or when.tools == request.has_tools,
        when.api is None or when.api == request.api,
        when.stream is None or when.stream == request.stream,
    )
    return all(checks)


def echo_reply(request: ChatRequest) -> Reply:
    """The built-in reply used when nothing matches and the scenario has no default."""
    return Reply(text=f"You said: {request.user_text}")


class Matcher:
    """Numbers chat requests and picks their replies; thread-safe, stateful per server."""

    def __init__(self, scenario: Scenario) -> None:
        self._scenario = scenario
        self._hits = [0] * len(scenario.rules)
        self._count = 0
        self._lock = threading.Lock()

    def select(self, request: ChatRequest) -> Selection:
        """Assign the next request number and choose the reply for ``request``."""
        with self._lock:
            self._count += 1
            n = self._count
            for rule in self._scenario.rules:
                if self._eligible(rule) and when_matches(rule.when, request, n):
                    reply = self._next_reply(rule)
                    return Selection(n, rule.label, reply)
            default = self._scenario.default or echo_reply(request)
            return Selection(n, "default", default)

    def _eligible(self, rule: Rule) -> bool:
        return rule.times is None or self._hits[rule.index] < rule.times

    def _next_reply(self, rule: Rule) -> Reply:
        hit = self._hits[rule.index]
        self._hits[rule.index] = hit + 1
        return rule.replies[min(hit, len(rule.replies) - 1)]
