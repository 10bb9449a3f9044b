"""Auto-routing by task type: which class of model a request wants, and the preset for it.

A request is `code` when it carries code or a failure from code, `reasoning` when it asks for an
explanation or a comparison, and `default` otherwise; the first class that matches wins, in that
order. `routing.classes` maps a class to a preset; a class with no entry stays on the user's
model. Pure and cheap (no pydantic at run time): it runs on every question at the REPL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from aish.config.schema import AishConfig, RoutingConfig
    from aish.llm.types import ModelTarget, PresetResolver

__all__ = ["ModelChoice", "ModelClass", "classify_model", "classify_text", "routed_target"]

# The values of `aish.config.schema.RouteClass`, spelled out so that importing this module does
# not import pydantic; a unit test keeps the two equal.
# `fix` is never given to a text: it is the class of `??` (`ModelChoice.fix_target`).
ModelClass = Literal["code", "reasoning", "default", "fix"]

# "error:"/"exception:" counts only near the start, where a pasted message begins; later in a
# sentence ("… I finally got this error: …") it is usually prose about an error.
ERROR_WINDOW = 40
# A paste must be longer than this many lines, with some indentation, to look like code.
PASTE_MIN_LINES = 5
# A question mark makes a request `reasoning` only in a text longer than this.
LONG_QUESTION = 100

SOURCE_EXTENSIONS = ("py", "lua", "c", "js", "go", "rs")

_FENCE = "```"
_TRACE = re.compile(r"traceback|stack[ -]?trace", re.IGNORECASE)
_ERROR = re.compile(r"error:|exception:", re.IGNORECASE)
_REASONING_WORDS = ("explain", "why", "how does", "compare")

_SEGMENT = r"[\w.+@-]+"
# A path starts where a word could: not inside another word, path or URL (`https://x/y.js`).
# It ends at its extension, which nothing word-like may continue (`x.cpp`, `x.py.bak`, `x.c/`);
# `:10:5`, `)` or a closing full stop may follow.
_SOURCE_PATH = re.compile(
    r"(?<![\w.~/:@%+\\-])"
    rf"(?P<path>(?:~/|\.\.?/|/|(?P<first>{_SEGMENT})/)(?:{_SEGMENT}/)*{_SEGMENT}"
    rf"\.(?:{'|'.join(SOURCE_EXTENSIONS)}))"
    r"(?![\w/-]|\.\w)"
)
# `github.com/x/y.go`: a host name first is a URL without its scheme, not a file on disk.
_HOST = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


@dataclass(frozen=True)
class ModelChoice:
    """The class a request belongs to, the preset for it, and why."""

    model_class: ModelClass
    # routing.classes[model_class]; None: stay on the user's model.
    preset: str | None
    reason: str


def classify_text(text: str) -> tuple[ModelClass, str]:
    """The class of `text` and a short reason, e.g. `("code", "traceback")`."""
    code = _code_reason(text)
    if code is not None:
        return "code", code
    reasoning = _reasoning_reason(text)
    if reasoning is not None:
        return "reasoning", reasoning
    return "default", "no trigger"


def classify_model(text: str, routing: RoutingConfig) -> ModelChoice:
    """The class of `text` and the preset `routing.classes` gives it (None when it has none)."""
    model_class, reason = classify_text(text)
    return ModelChoice(model_class, routing.classes.get(model_class), reason)


def routed_target(
    config: AishConfig, text: str, active: ModelTarget, targets: PresetResolver
) -> tuple[ModelTarget, str | None]:
    """The target auto-routing gives `text` — `active`, or the preset its class maps to —
    and the status line that says so (None: nothing to say). A preset that cannot be used (a
    missing key) leaves the request on `active`, and says why. Callers check `routing.auto`
    (or the session's `:route` switch) first."""
    choice = classify_model(text, config.routing)
    if choice.preset is None or choice.preset == active.name:
        return active, None
    from aish.errors import ConfigError

    try:
        target = targets(choice.preset)
    except ConfigError as error:
        return active, f"not routed to {choice.preset} ({error}); asking {active.name}"
    return target, f"routed to {target.name} ({choice.model_class}: {choice.reason})"


def _code_reason(text: str) -> str | None:
    if _FENCE in text:
        return "code fence"
    trace = _TRACE.search(text)
    if trace is not None:
        return "traceback" if trace.group().lower() == "traceback" else "stack trace"
    error = _ERROR.search(text[:ERROR_WINDOW])
    if error is not None:
        return f"'{error.group().lower()}' near the start"
    path = _source_path(text)
    if path is not None:
        return f"source path {path}"
    lines = text.splitlines()
    if len(lines) >= PASTE_MIN_LINES and any(_is_indented(line) for line in lines):
        return f"indented paste of {len(lines)} lines"
    return None


def _source_path(text: str) -> str | None:
    for match in _SOURCE_PATH.finditer(text):
        first = match.group("first")
        if first is not None and first not in (".", "..") and _HOST.fullmatch(first):
            continue
        return match.group("path")
    return None


def _is_indented(line: str) -> bool:
    return line[:1] in (" ", "\t") and bool(line.strip())


def _reasoning_reason(text: str) -> str | None:
    lowered = text.lower()
    for word in _REASONING_WORDS:
        if word in lowered:
            return f"'{word}'"
    if "?" in text and len(text) > LONG_QUESTION:
        return f"question longer than {LONG_QUESTION} characters"
    return None
