"""The secrets scrubber: what must never reach a cloud model, and the session's placeholders.

`find_secrets` says where the secrets in a text are (known values in any encoding, and
secret-shaped strings); `SecretVault` replaces each distinct one by a stable
`AISH_SECRET_<TYPE>_<n>` and puts the values back, only where a command is executed.
Placeholders hold only `[A-Z0-9_]`: one shell word inside or outside quotes, no glob, no
redirection. Pure and in memory: nothing here writes a value anywhere.

The rules live in `patterns` (formats), `contexts` (where a value stands) and
`values` (judging names and values); `docs/secrets.md` describes them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from aish.safety.secrets.finder import Finding, encoded_forms, find_secrets
from aish.safety.secrets.shapes import KnownShapes
from aish.safety.secrets.structures import kubernetes_secret_values
from aish.safety.secrets.values import (
    PLACEHOLDER,
    assignment_lines,
    env_file_values,
    sensitive_environment,
)

__all__ = [
    "PLACEHOLDER",
    "Finding",
    "SecretVault",
    "UnknownPlaceholder",
    "encoded_forms",
    "env_file_values",
    "find_secrets",
    "sensitive_environment",
]

_TYPE_CHARS = re.compile(r"[^A-Z0-9]+")
_MIN_LEARNED = 8  # a shorter value found in context (a URL's password) stays in its context


class UnknownPlaceholder(Exception):
    """A text names placeholders this session never handed out (invented or mangled)."""

    def __init__(self, names: list[str]) -> None:
        super().__init__("unknown secret placeholder: " + ", ".join(names))
        self.names = names


def placeholder_type(type_: str) -> str:
    """`type_` as it may stand in a placeholder: upper case, `[A-Z0-9_]`, never empty."""
    return _TYPE_CHARS.sub("_", type_.upper()).strip("_") or "SECRET"


class SecretVault:
    """The session's placeholders: one stable `AISH_SECRET_<TYPE>_<n>` per distinct value
    (n counts per type from 1), kept in memory only.

    Every value it has replaced is also known from then on, so a token first seen after
    `--token` is scrubbed wherever it shows up later, encoded or not.
    """

    def __init__(self) -> None:
        self._known: dict[str, str] = {}
        self._name_of: dict[str, str] = {}  # value -> placeholder
        self._value_of: dict[str, str] = {}  # placeholder -> value
        self._counts: dict[str, int] = {}
        self._shapes = KnownShapes()  # the known values' other shapes, built once per value

    def learn(self, values: Mapping[str, str]) -> None:
        """value -> type: known values to scrub from now on (the first type given stays)."""
        for value, type_ in values.items():
            if value and not PLACEHOLDER.search(value) and value not in self._known:
                self._know(value, placeholder_type(type_))

    def _know(self, value: str, type_: str) -> None:
        self._known[value] = type_
        self._shapes.add_unless_a_shape(value, type_)

    def scrub(self, text: str) -> str:
        """`text` with every secret replaced by its placeholder. Learns the `.env`-style values
        and the decoded values of Kubernetes Secrets in `text` first. Scrubbing scrubbed text
        changes nothing."""
        lines = assignment_lines(text)  # once: learned from, then scrubbed
        self.learn(env_file_values(text, lines))
        self.learn(kubernetes_secret_values(text))
        findings = find_secrets(text, self._known, self._shapes, lines)
        if not findings:
            return text
        parts: list[str] = []
        position = 0
        for finding in findings:
            parts.append(text[position : finding.start])
            parts.append(self._placeholder(finding.value, finding.type))
            position = finding.end
        parts.append(text[position:])
        return "".join(parts)

    def holds_secrets(self, text: str) -> bool:
        """Whether `scrub` would change `text` (a known value in any shape, a secret-shaped
        string, a `.env` value), without learning from it or handing out placeholders."""
        if env_file_values(text) or kubernetes_secret_values(text):
            return True
        return bool(find_secrets(text, self._known, self._shapes))

    def rehydrate(self, text: str) -> str:
        """`text` with every placeholder replaced by its value; raises `UnknownPlaceholder`
        (naming them all) if any placeholder-shaped word is not one of this vault's."""
        unknown = self.unknown_placeholders(text)
        if unknown:
            raise UnknownPlaceholder(unknown)
        return PLACEHOLDER.sub(lambda m: self._value_of[m.group()], text)

    def unknown_placeholders(self, text: str) -> list[str]:
        """The distinct placeholder-shaped words in `text` this vault never handed out."""
        unknown: list[str] = []
        for match in PLACEHOLDER.finditer(text):
            name = match.group()
            if name not in self._value_of and name not in unknown:
                unknown.append(name)
        return unknown

    def placeholders(self) -> dict[str, int]:
        """type -> how many distinct values of it have a placeholder (never the values)."""
        return dict(self._counts)

    def __contains__(self, item: object) -> bool:
        """Whether `item` is a placeholder this vault handed out, or a value it replaced."""
        return item in self._value_of or item in self._name_of

    def __len__(self) -> int:
        return len(self._value_of)

    @property
    def generation(self) -> int:
        """Grows whenever the vault learns a value or hands out a placeholder: text scrubbed
        at the same generation would scrub the same way again."""
        return len(self._known) + len(self._value_of)

    def _placeholder(self, value: str, type_: str) -> str:
        name = self._name_of.get(value)
        if name is None:
            type_ = placeholder_type(type_)
            self._counts[type_] = self._counts.get(type_, 0) + 1
            name = f"AISH_SECRET_{type_}_{self._counts[type_]}"
            self._name_of[value] = name
            self._value_of[name] = value
            if len(value) >= _MIN_LEARNED and value not in self._known:
                self._know(value, type_)
        return name
