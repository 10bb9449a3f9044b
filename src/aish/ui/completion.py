"""Completion at the prompt: meta commands after `:`, command names for the first word,
paths everywhere else."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document


class AishCompleter(Completer):
    def __init__(self, meta_names: Iterable[str], command_names: Callable[[], Iterable[str]]):
        self._meta = sorted(meta_names)
        self._commands = command_names
        self._paths = PathCompleter(expanduser=True)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith(":") and " " not in text:
            word = text[1:]
            for name in self._meta:
                if name.startswith(word):
                    yield Completion(name, start_position=-len(word))
            return
        word = document.get_word_before_cursor(WORD=True)
        first_word = " " not in text.lstrip()
        if first_word and word and "/" not in word and not word.startswith(("~", ".")):
            for name in sorted(n for n in self._commands() if n.startswith(word))[:200]:
                yield Completion(name, start_position=-len(word))
            return
        # Paths: complete the current word as a path.
        path_doc = Document(word, len(word))
        yield from self._paths.get_completions(path_doc, complete_event)
