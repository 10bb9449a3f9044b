"""One export, from the session log to a file: read, scrub when the session scrubbed, render,
write. `:export` (the running session, with its own placeholders) and `aish export` (any
logged session, with a scrubber of its own) both come here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from aish.ui.export.document import Heading, SessionDocument
from aish.ui.export.files import default_name, write_new
from aish.ui.export.reading import LoggedTurn, read_document
from aish.ui.export.scrubbing import learn_from_turns, scrub_document, session_scrubbed

if TYPE_CHECKING:
    from aish.config.schema import AishConfig
    from aish.session import Session
    from aish.session.records import SessionInfo, UsageTotals

__all__ = [
    "FORMATS",
    "Format",
    "SessionSource",
    "Written",
    "export_running_session",
    "export_session",
    "preset_scrubs",
    "render",
]

Format = Literal["md", "html"]
FORMATS: tuple[Format, ...] = ("md", "html")


class SessionSource(Protocol):
    """Where logged sessions are read from (the store)."""

    def turns(self, session_id: int) -> Sequence[LoggedTurn]: ...

    def usage_totals(
        self,
        session_id: int | None = None,
        since_ts: float | None = None,
        by: Sequence[str] = ("model", "category"),
    ) -> list[UsageTotals]: ...


@dataclass(frozen=True)
class Written:
    path: Path
    scrubbed: bool


def preset_scrubs(config: AishConfig) -> Callable[[str], bool]:
    """Whether a preset of `config` scrubs secrets; a preset it does not know counts as one
    that does (the session may have used it under another config)."""

    def scrubs(name: str) -> bool:
        preset = config.models.get(name)
        return preset is None or preset.effective_secrets() == "scrub"

    return scrubs


def session_document(
    source: SessionSource,
    info: SessionInfo,
    *,
    scrubs: Callable[[str], bool],
    scrub: Callable[[str], str],
) -> SessionDocument:
    """The session's document, its secrets replaced when any preset of it scrubbed."""
    turns: Sequence[LoggedTurn] = source.turns(info.id)
    presets = [info.model]
    presets += [str(t.payload.get("model", "")) for t in turns if t.kind in _ANSWERED]
    presets += [row.key[0] for row in source.usage_totals(info.id, by=("preset",)) if row.key]
    replies = [str(t.payload.get("text", "")) for t in turns if t.kind == "assistant"]
    scrubbed = session_scrubbed(presets, replies, scrubs)
    if scrubbed:
        learn_from_turns(turns, scrub)
    by_model = source.usage_totals(info.id, by=("model", "category"))
    totals = source.usage_totals(info.id, by=())
    heading = Heading(info.name or f"#{info.id}", info.started_at, info.cwd, info.model)
    document = read_document(heading, turns, by_model, totals[0] if totals else None)
    return scrub_document(document, scrub) if scrubbed else document


_ANSWERED = ("assistant", "norris_start")


def render(document: SessionDocument, fmt: Format) -> str:
    if fmt == "html":
        from aish.ui.export.html_page import render_html

        return render_html(document)
    from aish.ui.export.markdown import render_markdown

    return render_markdown(document)


def export_session(
    source: SessionSource,
    info: SessionInfo,
    fmt: Format,
    *,
    scrubs: Callable[[str], bool],
    scrub: Callable[[str], str],
    file: str | None,
    folder: Path,
) -> Written:
    """Export the session to `file` (relative to `folder`, `~` expanded) or, without one, to
    `aish-<session>-<date>.<fmt>` in `folder`; `ExportError` when it cannot be written."""
    document = session_document(source, info, scrubs=scrubs, scrub=scrub)
    path = Path(file).expanduser() if file else None
    # A saved session by its name (as scrubbed), an unnamed one by its number.
    label = document.heading.label if info.name else f"session-{info.id}"
    default = default_name(label, info.started_at, fmt)
    written = write_new(render(document, fmt), path=path, folder=folder, default=default)
    return Written(written, document.scrubbed)


def export_running_session(session: Session, fmt: Format, file: str | None, cwd: str) -> str:
    """`:export`: the REPL's session, scrubbed with the session's own placeholders (those the
    model saw); the line to tell the user."""
    from aish.session.records import StoreError
    from aish.ui.export.files import ExportError

    store, info = session.store, session.info
    if store is None or info is None:
        return "this session is not logged: there is nothing to export"
    try:
        written = export_session(
            store,
            info,
            fmt,
            scrubs=preset_scrubs(session.config),
            scrub=session.outbound.scrub,
            file=file,
            folder=Path(cwd),
        )
    except (ExportError, StoreError) as error:
        return f"export failed: {error}"
    said = " (secrets replaced by placeholders)" if written.scrubbed else ""
    return f"session exported to {written.path}{said}"
