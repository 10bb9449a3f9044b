"""What changed between two tool catalogues, and which changed tools must be confirmed again.

A server may announce a new tool list at any time (`notifications/tools/list_changed`). A tool
the user came to rely on as read-only can come back under the same name declaring it deletes
things, or with a description that now tells the model something else. So a change is shown as
a diff, and a tool is *held* — every call asks (chat) or halts (Norris), whatever `auto_approve`
or a trusted server's hints say — when it:

- is new on a server that had already listed its tools (a server coming up is no change);
- declares itself less safe: `readOnlyHint` true → anything else, `destructiveHint` false →
  anything else, `openWorldHint` false → anything else (absent hints take the MCP defaults:
  not read-only, destructive, open world), or its annotations were removed;
- has a new description.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aish.mcp.catalogue import McpTool

__all__ = ["CatalogueChange", "ToolChange", "catalogue_change"]

# Each hint, the value that is the safe one, and its default when absent (MCP spec).
_HINTS: tuple[tuple[str, bool, bool], ...] = (
    ("readOnlyHint", True, False),
    ("destructiveHint", False, True),
    ("openWorldHint", False, True),
)


@dataclass(frozen=True)
class ToolChange:
    """One tool that is in both lists but differs: each difference said as a phrase, and why
    it is held (empty: the change is not one that needs the user's word)."""

    tool: McpTool
    differences: tuple[str, ...]
    held: str = ""


@dataclass(frozen=True)
class CatalogueChange:
    added: tuple[McpTool, ...] = ()
    removed: tuple[McpTool, ...] = ()
    changed: tuple[ToolChange, ...] = ()
    # Qualified name → why the tool now needs the user's word before it runs unasked.
    held: Mapping[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def catalogue_change(before: Sequence[McpTool], after: Sequence[McpTool]) -> CatalogueChange:
    """The diff from `before` to `after`, tools matched by server and the server's own name."""
    old = {(tool.server, tool.name): tool for tool in before}
    new = {(tool.server, tool.name): tool for tool in after}
    listed_before = {tool.server for tool in before}
    added = tuple(tool for key, tool in new.items() if key not in old)
    removed = tuple(tool for key, tool in old.items() if key not in new)
    changed: list[ToolChange] = []
    held: dict[str, str] = {}
    for tool in added:
        if tool.server in listed_before:
            held[tool.qualified] = "a tool the server added since it first listed its tools"
    for key, tool in new.items():
        if key not in old:
            continue
        change = _compare(old[key], tool)
        if change is not None:
            changed.append(change)
            if change.held:
                held[tool.qualified] = change.held
    return CatalogueChange(added, removed, tuple(changed), held)


def _compare(before: McpTool, after: McpTool) -> ToolChange | None:
    differences: list[str] = []
    riskier: list[str] = []
    if before.annotations is not None and after.annotations is None:
        differences.append("annotations removed")
        riskier.append("its annotations were removed")
    elif before.annotations != after.annotations:
        for hint, safe, default in _HINTS:
            was = _hint(before.annotations, hint, default)
            now = _hint(after.annotations, hint, default)
            if was != now:
                differences.append(f"{hint} {_word(was)} → {_word(now)}")
                if was == safe:
                    riskier.append(f"{hint} {_word(was)} → {_word(now)}")
        if not differences:
            differences.append("annotations changed")
    if before.description != after.description:
        differences.append("description changed")
        riskier.append("its description changed")
    if before.input_schema != after.input_schema:
        differences.append("input schema changed")
    if before.trusted != after.trusted:
        differences.append("server trust changed")
    if not differences:
        return None
    held = "the tool changed since it was listed: " + ", ".join(riskier) if riskier else ""
    return ToolChange(after, tuple(differences), held)


def _hint(annotations: Mapping[str, Any] | None, hint: str, default: bool) -> bool:
    value = (annotations or {}).get(hint)
    return value if isinstance(value, bool) else default


def _word(value: bool) -> str:
    return "true" if value else "false"
