"""`:export md|html [FILE]`: this session as a Markdown file or one self-contained HTML page
(`aish.ui.export`), secrets replaced by placeholders when any preset of it scrubbed. Without
FILE it goes to `aish-<session>-<date>.<md|html>` in the shell's cwd; an existing file is never
replaced."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from aish.ui.repl.meta.context import ReplContext

EXPORT_USAGE = "usage: :export md|html [FILE]"

_FORMATS: dict[str, Literal["md", "html"]] = {"md": "md", "html": "html"}


@runtime_checkable
class ExportsSession(Protocol):
    """A REPL whose session is logged and can be exported."""

    def export_session(self, fmt: Literal["md", "html"], file: str | None) -> str: ...


async def export(repl: ReplContext, args: str) -> None:
    word, _, file = args.strip().partition(" ")
    fmt = _FORMATS.get(word.lower())
    if fmt is None:
        repl.say(EXPORT_USAGE)
    elif not isinstance(repl, ExportsSession):
        repl.say("export is not available here")
    else:
        repl.say(repl.export_session(fmt, file.strip() or None))
