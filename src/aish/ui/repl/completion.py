"""Completion at the prompt, as the user's shell would complete: meta commands after `:`;
command names (with the shell's aliases and functions) for the command word; the command's
programmable completion (`complete -F _git git`) for its arguments; `$NAME` and `${NAME`
variables; file names from the live shell's working directory.

What needs the live shell is asked through `LiveShell` and may take its time (a programmable
spec runs shell code): completion runs as a coroutine on the event loop, so typing goes on while
it is pending, and each question has a bound after which it offers nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncGenerator, Iterable, Iterator
from typing import TYPE_CHECKING, Protocol

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from aish.completion_words import CompletionLine, completion_line
from aish.ui.repl.path_completion import escape_path, path_completions

if TYPE_CHECKING:
    from aish.run.completion_helper import SpecAnswer

__all__ = ["AishCompleter", "LiveShell"]

_MAX_NAMES = 200  # command names offered at once; more is a wall, not a choice
_VARIABLE = re.compile(r"\$(\{?)([A-Za-z0-9_]*)\Z")
_FALLBACKS = frozenset({"default", "bashdefault", "dirnames"})


class LiveShell(Protocol):
    """What completion asks of the user's shell. The coroutines return nothing useful (empty,
    None) rather than raise, and never take longer than their bound."""

    def cwd(self) -> str: ...

    async def command_names(self, prefix: str) -> Iterable[str]: ...

    async def variable_names(self, prefix: str) -> Iterable[str]: ...

    async def programmable(self, line: CompletionLine) -> SpecAnswer | None: ...


class AishCompleter(Completer):
    def __init__(self, meta_names: Iterable[str], shell: LiveShell) -> None:
        self._meta = sorted(meta_names)
        self._shell = shell

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        """The part that needs no live shell (prompt_toolkit calls the async form)."""
        meta = self._meta_completions(document.text_before_cursor)
        if meta is not None:
            yield from meta
            return
        cut = completion_line(document.text, document.cursor_position)
        yield from path_completions(cut.word, self._shell.cwd(), quote=cut.quote)

    async def get_completions_async(
        self, document: Document, complete_event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        meta = self._meta_completions(document.text_before_cursor)
        if meta is not None:
            for completion in meta:
                yield completion
            return
        cut = completion_line(document.text, document.cursor_position)
        word = cut.word
        if cut.in_command_position and _is_command_word(cut):
            names = await self._shell.command_names(word)
            for name in sorted({n for n in names if n.startswith(word)})[:_MAX_NAMES]:
                yield Completion(name, start_position=-len(word))
            return
        only_directories = False
        if not cut.in_command_position and cut.command:
            answer = await self._shell.programmable(cut)
            if answer is not None and answer.found:
                offered = list(self._spec_completions(answer, cut))
                for completion in offered:
                    yield completion
                if offered or not answer.options & _FALLBACKS:
                    return
                only_directories = not answer.options & {"default", "bashdefault"}
        variable = _VARIABLE.search(word)
        if variable is not None and not only_directories and cut.quote != "'":
            async for completion in self._variable_completions(variable):
                yield completion
            return
        for completion in path_completions(
            word, self._shell.cwd(), quote=cut.quote, only_directories=only_directories
        ):
            yield completion

    def _meta_completions(self, text: str) -> list[Completion] | None:
        if not (text.startswith(":") and " " not in text):
            return None
        word = text[1:]
        return [Completion(n, start_position=-len(word)) for n in self._meta if n.startswith(word)]

    async def _variable_completions(self, match: re.Match[str]) -> AsyncGenerator[Completion, None]:
        brace, prefix = match.group(1), match.group(2)
        names = await self._shell.variable_names(prefix)
        replaced = len(match.group(0))
        for name in sorted({n for n in names if n.startswith(prefix)}):
            text = f"${{{name}}}" if brace else f"${name}"
            yield Completion(text, start_position=-replaced, display=text)

    def _spec_completions(self, answer: SpecAnswer, cut: CompletionLine) -> Iterator[Completion]:
        """The spec's matches as bash inserts them: file names marked and quoted under
        `-o filenames`, a space after each unless `-o nospace`."""
        options = answer.options
        matches = dict.fromkeys(m for m in answer.matches if m)  # in order, once each
        ordered = list(matches) if "nosort" in options else sorted(matches)
        filenames = "filenames" in options
        cwd = self._shell.cwd()
        for match in ordered:
            text, display = match, match
            ending = "" if "nospace" in options else " "
            if filenames:
                if os.path.isdir(os.path.join(cwd, os.path.expanduser(match))):
                    text, ending = match.rstrip("/") + "/", ""
                display = os.path.basename(text.rstrip("/")) + text[len(text.rstrip("/")) :]
                if not cut.quote and "noquote" not in options:
                    text = escape_path(text)
            yield Completion(text + ending, start_position=-len(cut.word), display=display)


def _is_command_word(cut: CompletionLine) -> bool:
    """A word that completes as a command name: not empty, not a path, not a variable."""
    word = cut.word
    return bool(word) and not cut.quote and "/" not in word and not word.startswith(("~", "$", "."))
