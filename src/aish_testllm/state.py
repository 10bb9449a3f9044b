"""Per-server mutable state shared by all request handler threads."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from aish_testllm.chat_request import ChatRequest
from aish_testllm.completion import IdSource
from aish_testllm.matching import Matcher, Selection
from aish_testllm.prefix import PrefixReuse, PrefixTracker
from aish_testllm.reqlog import RequestLog
from aish_testllm.scenario import Scenario


@dataclass(frozen=True)
class Admission:
    """A chat request's number, chosen reply and prefix reuse."""

    selection: Selection
    reuse: PrefixReuse


class ServerState:
    """Scenario, counters, request log and the shutdown signal of one server."""

    def __init__(self, scenario: Scenario, log: RequestLog) -> None:
        self.scenario = scenario
        self.log = log
        self.ids = IdSource()
        self.stopping = threading.Event()
        self._matcher = Matcher(scenario)
        self._prefixes = PrefixTracker()
        self._lock = threading.Lock()
        self._started = time.monotonic()

    def admit(self, request: ChatRequest) -> Admission:
        """Number the request, pick its reply and measure its prefix reuse, atomically."""
        with self._lock:
            selection = self._matcher.select(request)
            return Admission(selection, self._prefixes.observe(request.prompt))

    def loading(self) -> bool:
        """Whether the scripted model-loading period is still running."""
        return time.monotonic() - self._started < self.scenario.loading_s

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds``; returns False early if the server is shutting down."""
        return not self.stopping.wait(seconds)
