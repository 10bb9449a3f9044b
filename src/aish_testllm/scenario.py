"""Scenario files: the data model, loading and validation.

A scenario scripts what the test server answers.  It is plain JSON (documented in
``docs/testllm.md``); this module turns it into immutable dataclasses and rejects anything it does
not understand with a message that names the offending place, e.g.
``rules[2].replies[0]: unknown key 'txt'``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_MODELS = ("testllm",)
REASONING_FIELDS = ("reasoning_content", "reasoning")
TOOL_STYLES = ("fragmented", "whole")
USAGE_CHOICES = ("empty", "null", "missing")
ERROR_STYLES = ("openai", "openrouter", "legacy", "anthropic")
APIS = ("openai", "anthropic")

DEFAULT_SCENARIO: dict[str, Any] = {
    "models": list(DEFAULT_MODELS),
    "rules": [],
    "default": {"text": "Hello from aish-testllm. This is a scripted test reply."},
}


class ScenarioError(ValueError):
    """The scenario document is invalid; the message says where and why."""


@dataclass(frozen=True)
class ToolCall:
    """A tool call the scripted model makes; ``arguments`` is an object or raw JSON text."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class UsageOverride:
    """Usage figures that replace the computed ones (``None`` = keep the computed value)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost: float | None = None


@dataclass(frozen=True)
class Reply:
    """One scripted answer: content, stream shape, noise and injected failures."""

    text: str = ""
    chunk_size: int = 16
    delay_ms: float = 0.0
    first_delay_ms: float = 0.0
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"
    tool_calls: tuple[ToolCall, ...] = ()
    tool_style: str = "fragmented"
    finish_reason: str | None = None
    usage: UsageOverride | None = UsageOverride()  # None: send no usage at all
    timings: bool = False
    comments: tuple[str, ...] = ()
    crlf: bool = False
    usage_null: bool = False
    usage_choices: str = "empty"
    role_chunk: bool = True
    obfuscation: bool = False
    fingerprint: str | None = None
    status: int | None = None
    body: Any = None
    content_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    error_after: int | None = None
    error_style: str | None = None
    error_message: str | None = None
    cut_after: int | None = None
    cut_mid_json: bool = False
    stall_after: int | None = None
    stall_s: float = 0.0
    ping_every_ms: int | None = None
    raw: tuple[str, ...] | None = None

    @property
    def effective_finish_reason(self) -> str:
        """``finish_reason`` if given, else ``tool_calls`` when calling tools, else ``stop``."""
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


@dataclass(frozen=True)
class When:
    """Conditions of a rule; ``None`` means "not constrained"."""

    user: re.Pattern[str] | None = None
    system: re.Pattern[str] | None = None
    model: re.Pattern[str] | None = None
    request: int | None = None
    tools: bool | None = None
    api: str | None = None
    stream: bool | None = None


@dataclass(frozen=True)
class Rule:
    """A conditional script entry: the nth match gets ``replies[n]`` (the last one repeats)."""

    index: int
    name: str | None
    when: When
    replies: tuple[Reply, ...]
    times: int | None = None

    @property
    def label(self) -> str | int:
        """How the request log names this rule: its name, else its 0-based index."""
        return self.name if self.name is not None else self.index


@dataclass(frozen=True)
class Scenario:
    """A whole validated scenario."""

    models: tuple[str, ...] = DEFAULT_MODELS
    loading_s: float = 0.0
    chars_per_token: float = 4.0
    rules: tuple[Rule, ...] = ()
    default: Reply | None = None


# --- primitive checks: each takes (value, where) and returns the converted value ---------------

_Check = Callable[[Any, str], Any]


def _fail(where: str, problem: str) -> ScenarioError:
    return ScenarioError(f"{where}: {problem}")


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, f"expected a string, got {_type_name(value)}")
    return value


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"expected true or false, got {_type_name(value)}")
    return value


def _integer(minimum: int, maximum: int | None = None) -> _Check:
    def check(value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(where, f"expected an integer, got {_type_name(value)}")
        if value < minimum or (maximum is not None and value > maximum):
            upper = f" and <= {maximum}" if maximum is not None else ""
            raise _fail(where, f"must be >= {minimum}{upper}, got {value}")
        return value

    return check


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(where, f"expected a number, got {_type_name(value)}")
    if value < 0:
        raise _fail(where, f"must be >= 0, got {value}")
    return float(value)


def _positive_number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(where, f"expected a number, got {_type_name(value)}")
    if not value > 0 or value == float("inf"):
        raise _fail(where, f"must be a finite number > 0, got {value}")
    return float(value)


def _choice(*choices: str) -> _Check:
    def check(value: Any, where: str) -> str:
        if value not in choices:
            allowed = ", ".join(repr(c) for c in choices)
            raise _fail(where, f"must be one of {allowed}, got {value!r}")
        return str(value)

    return check


def _regex(value: Any, where: str) -> re.Pattern[str]:
    try:
        return re.compile(_string(value, where))
    except re.error as exc:
        raise _fail(where, f"invalid regular expression: {exc}") from None


def _string_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _fail(where, f"expected a list of strings, got {_type_name(value)}")
    return tuple(_string(item, f"{where}[{i}]") for i, item in enumerate(value))


def _comments(value: Any, where: str) -> tuple[str, ...]:
    lines = _string_list(value, where)
    for i, line in enumerate(lines):
        if not line.startswith(":") or "\n" in line or "\r" in line:
            raise _fail(f"{where}[{i}]", "an SSE comment is one line starting with ':'")
    return lines


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, f"expected an object, got {_type_name(value)}")
    return value


def _known_keys(obj: Mapping[str, Any], allowed: Mapping[str, Any] | set[str], where: str) -> None:
    for key in obj:
        if key not in allowed:
            raise _fail(where, f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})")


def _body(value: Any, where: str) -> Any:
    if not isinstance(value, dict | list | str):
        raise _fail(where, f"expected an object, a list or a string, got {_type_name(value)}")
    return value


def _headers(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    items = []
    for name, header_value in _object(value, where).items():
        if isinstance(header_value, bool) or not isinstance(header_value, str | int | float):
            raise _fail(f"{where}.{name}", "header values must be strings or numbers")
        items.append((name, str(header_value)))
    return tuple(items)


def _tool_call(value: Any, where: str) -> ToolCall:
    obj = _object(value, where)
    _known_keys(obj, {"id", "name", "arguments"}, where)
    if "name" not in obj:
        raise _fail(where, "missing 'name'")
    arguments = obj.get("arguments", {})
    if not isinstance(arguments, dict | str):
        raise _fail(f"{where}.arguments", "expected an object or a JSON string")
    call_id = _string(obj["id"], f"{where}.id") if "id" in obj else None
    return ToolCall(name=_string(obj["name"], f"{where}.name"), arguments=arguments, id=call_id)


def _tool_calls(value: Any, where: str) -> tuple[ToolCall, ...]:
    if not isinstance(value, list):
        raise _fail(where, f"expected a list, got {_type_name(value)}")
    return tuple(_tool_call(item, f"{where}[{i}]") for i, item in enumerate(value))


_USAGE_FIELDS: dict[str, _Check] = {
    "prompt_tokens": _integer(0),
    "completion_tokens": _integer(0),
    "cached_tokens": _integer(0),
    "cost": _number,
}


def _usage(value: Any, where: str) -> UsageOverride | None:
    if value is False:
        return None
    obj = _object(value, where) if value is not True else {}
    _known_keys(obj, _USAGE_FIELDS, where)
    return UsageOverride(**{k: _USAGE_FIELDS[k](v, f"{where}.{k}") for k, v in obj.items()})


_REPLY_FIELDS: dict[str, _Check] = {
    "text": _string,
    "chunk_size": _integer(1),
    "delay_ms": _number,
    "first_delay_ms": _number,
    "reasoning": _string,
    "reasoning_field": _choice(*REASONING_FIELDS),
    "tool_calls": _tool_calls,
    "tool_style": _choice(*TOOL_STYLES),
    "finish_reason": _string,
    "usage": _usage,
    "timings": _boolean,
    "comments": _comments,
    "crlf": _boolean,
    "usage_null": _boolean,
    "usage_choices": _choice(*USAGE_CHOICES),
    "role_chunk": _boolean,
    "obfuscation": _boolean,
    "fingerprint": _string,
    "status": _integer(100, 599),
    "body": _body,
    "content_type": _string,
    "headers": _headers,
    "error_after": _integer(0),
    "error_style": _choice(*ERROR_STYLES),
    "error_message": _string,
    "cut_after": _integer(0),
    "cut_mid_json": _boolean,
    "stall_after": _integer(0),
    "stall_s": _number,
    "ping_every_ms": _integer(1),
    "raw": _string_list,
}

# (key, keys it needs) and (key, keys it cannot be combined with)
_REQUIRES = (
    ("body", ("status",)),
    ("cut_mid_json", ("cut_after",)),
    ("stall_after", ("stall_s",)),
    ("stall_s", ("stall_after",)),
    ("ping_every_ms", ("stall_after",)),
    ("error_style", ("error_after",)),
    ("error_message", ("error_after",)),
)
_EXCLUDES = (
    ("raw", ("body", "error_after", "text", "reasoning", "tool_calls")),
    ("status", ("error_after", "cut_after", "stall_after")),
)


def parse_reply(value: Any, where: str) -> Reply:
    """Validate one reply object (``where`` names it in error messages)."""
    obj = _object(value, where)
    _known_keys(obj, _REPLY_FIELDS, where)
    for key, needed in _REQUIRES:
        if key in obj:
            for other in needed:
                if other not in obj:
                    raise _fail(where, f"{key!r} requires {other!r}")
    for key, excluded in _EXCLUDES:
        if key in obj:
            for other in excluded:
                if other in obj:
                    raise _fail(where, f"{key!r} cannot be combined with {other!r}")
    values = {key: _REPLY_FIELDS[key](item, f"{where}.{key}") for key, item in obj.items()}
    return Reply(**values)


_WHEN_FIELDS: dict[str, _Check] = {
    "user": _regex,
    "system": _regex,
    "model": _regex,
    "request": _integer(1),
    "tools": _boolean,
    "api": _choice(*APIS),
    "stream": _boolean,
}

_RULE_KEYS = {"name", "description", "when", "reply", "replies", "times"}


def _parse_rule(value: Any, index: int) -> Rule:
    where = f"rules[{index}]"
    obj = _object(value, where)
    _known_keys(obj, _RULE_KEYS, where)
    name = _string(obj["name"], f"{where}.name") if "name" in obj else None
    if "description" in obj:
        _string(obj["description"], f"{where}.description")
    when_obj = _object(obj.get("when", {}), f"{where}.when")
    _known_keys(when_obj, _WHEN_FIELDS, f"{where}.when")
    when = When(**{k: _WHEN_FIELDS[k](v, f"{where}.when.{k}") for k, v in when_obj.items()})
    if ("reply" in obj) == ("replies" in obj):
        raise _fail(where, "needs exactly one of 'reply' or 'replies'")
    if "reply" in obj:
        replies: tuple[Reply, ...] = (parse_reply(obj["reply"], f"{where}.reply"),)
    else:
        items = obj["replies"]
        if not isinstance(items, list) or not items:
            raise _fail(f"{where}.replies", "expected a non-empty list of replies")
        replies = tuple(parse_reply(item, f"{where}.replies[{i}]") for i, item in enumerate(items))
    times = _integer(0)(obj["times"], f"{where}.times") if "times" in obj else None
    return Rule(index=index, name=name, when=when, replies=replies, times=times)


_TOP_KEYS = {"description", "models", "loading_s", "chars_per_token", "rules", "default"}


def parse_scenario(document: Any) -> Scenario:
    """Validate a scenario document (already parsed from JSON)."""
    obj = _object(document, "scenario")
    _known_keys(obj, _TOP_KEYS, "scenario")
    if "description" in obj:
        _string(obj["description"], "description")
    models = _string_list(obj.get("models", list(DEFAULT_MODELS)), "models")
    if not models:
        raise _fail("models", "must name at least one model")
    rules = obj.get("rules", [])
    if not isinstance(rules, list):
        raise _fail("rules", f"expected a list, got {_type_name(rules)}")
    return Scenario(
        models=models,
        loading_s=_number(obj.get("loading_s", 0), "loading_s"),
        chars_per_token=_positive_number(obj.get("chars_per_token", 4), "chars_per_token"),
        rules=tuple(_parse_rule(rule, i) for i, rule in enumerate(rules)),
        default=parse_reply(obj["default"], "default") if "default" in obj else None,
    )


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file; problems raise :class:`ScenarioError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"cannot read file: {exc}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    return parse_scenario(document)
