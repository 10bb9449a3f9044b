"""Secrets out of an export: whether the session scrubbed, and every text of it scrubbed.

The session log keeps what happened as it happened: a token the user typed, printed by a
command or read from a file is in it as its value (only the model was given placeholders, and
the placeholders' values live in memory only). A session in which any preset scrubbed
(`secrets = "scrub"`) is exported with its secrets replaced too — in every text of the
document, whatever kind of entry holds it: the user's questions and commands, outputs, replies,
tool calls and results, notes, statuses, even the session's name and cwd.

The scrubber first goes over every payload of the log as it was written, only to learn: a value
revealed anywhere (after `--password`, in `.env` output, in lines the export leaves out) is then
a known secret everywhere. Then it scrubs the finished document, the text as the reader will
see it (taking out a control sequence may have joined what it split). Long lines are cut only
between words (`reading`), so no part of a token is left behind that could not be recognised.

Placeholders are stable within one scrubber: with the live session's (`:export` in the REPL)
they are the ones the model saw; `aish export` in another process numbers them afresh, in the
order the texts come.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from aish.ui.export.document import SessionDocument
from aish.ui.export.reading import LoggedTurn

__all__ = ["MARK", "learn_from_turns", "scrub_document", "session_scrubbed"]

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


def learn_from_turns(turns: Sequence[LoggedTurn], scrub: Callable[[str], str]) -> None:
    """Let `scrub` see every string of the turns' payloads, however nested (what it returns is
    not kept: the document is scrubbed as it will be read)."""
    for turn in turns:
        for text in _texts(turn.payload):
            scrub(text)


def _texts(value: Any) -> Iterator[str]:
    """Every string in a JSON value (keys too: a damaged log may hold anything)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _texts(key)
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


def scrub_document(document: SessionDocument, scrub: Callable[[str], str]) -> SessionDocument:
    """`document` with `scrub` applied to every text in it."""
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
