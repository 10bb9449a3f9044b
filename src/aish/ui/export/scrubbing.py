"""Secrets out of an export: whether the session scrubbed, and every text of it scrubbed.

The session log keeps what happened as it happened: a token the user typed, printed by a
command or read from a file is in it as its value (only the model was given placeholders, and
the placeholders' values live in memory only). A session in which any preset scrubbed
(`secrets = "scrub"`) is exported with its secrets replaced too — in every text of the
document, whatever kind of entry holds it: the user's questions and commands, outputs, replies,
tool calls and results, notes, statuses, even the session's name and cwd.

Scrubbing is done twice. The logged payloads are scrubbed as they were written, before anything
is cleaned or cut (a long line cut in the middle of a token would leave a part of it no scrubber
recognises); the finished document is scrubbed again, as the reader will see it (taking out a
control sequence may join what it split). Each time the scrubber goes over everything once
only to learn (a value revealed late, after `--password` or in `.env` output, is then known
everywhere) and then writes.

Placeholders are stable within one scrubber: with the live session's (`:export` in the REPL)
they are the ones the model saw; `aish export` in another process numbers them afresh, in the
order the texts come.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from aish.ui.export.document import SessionDocument
from aish.ui.export.reading import LoggedTurn

__all__ = ["MARK", "ScrubbedTurn", "scrub_document", "scrub_turns", "session_scrubbed"]

MARK = "AISH_SECRET_"

T = TypeVar("T")


def session_scrubbed(
    presets: Iterable[str], replies: Iterable[str], scrubs: Callable[[str], bool]
) -> bool:
    """Whether a session counts as scrubbing: a preset it used (`presets`: the session's
    model and every preset that answered or was billed) scrubs by `scrubs` — which says yes for
    a preset the config no longer knows — or a reply holds a placeholder. A session that used
    no preset at all is scrubbed too: nothing says its secrets may be shown."""
    used = [name for name in presets if name]
    if not used or any(scrubs(name) for name in used):
        return True
    return any(MARK in text for text in replies)


@dataclass(frozen=True)
class ScrubbedTurn:
    ts: float
    kind: str
    payload: Mapping[str, Any]


def scrub_turns(turns: Sequence[LoggedTurn], scrub: Callable[[str], str]) -> list[ScrubbedTurn]:
    """`turns` with `scrub` applied to every string of their payloads, however nested."""
    for turn in turns:
        _map_json(turn.payload, lambda text: (scrub(text), text)[1])
    return [ScrubbedTurn(t.ts, t.kind, _map_json(t.payload, scrub)) for t in turns]


def _map_json(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {key: _map_json(item, change) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_map_json(item, change) for item in value]
    return value


def scrub_document(document: SessionDocument, scrub: Callable[[str], str]) -> SessionDocument:
    """`document` with `scrub` applied to every text in it (learning first, then writing)."""
    _map_texts(document, lambda text: (scrub(text), text)[1])
    return dataclasses.replace(_map_texts(document, scrub), scrubbed=True)


def _map_texts(value: T, change: Callable[[str], str]) -> T:
    """`value` with `change` applied to every string in it: fields of dataclasses and items of
    tuples, however deep. Nothing is skipped by name: a field added later is scrubbed too."""
    if isinstance(value, str):
        return change(value)  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(_map_texts(item, change) for item in value)  # type: ignore[return-value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            field.name: _map_texts(getattr(value, field.name), change)
            for field in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changes)
    return value
