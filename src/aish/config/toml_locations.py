"""Where each key of a TOML document is written: dotted key paths mapped to line numbers.

`tomllib` returns values without positions, and pydantic reports errors by key path; this
scanner closes the gap so a bad value is reported as `config.toml:7: key models.fast.timeout_s`.
It runs only on text that `tomllib` has already accepted, so it skips values without judging
them and never raises on odd input: at worst a key is missing and the caller falls back to the
line of its table.

Paths use strings for keys and integers for positions in arrays (arrays of tables, and inline
tables inside arrays), the same shape pydantic uses for error locations.
"""

from __future__ import annotations

from collections.abc import Mapping

KeyPath = tuple[str | int, ...]

_BARE_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_BASIC_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def locate_keys(text: str) -> dict[KeyPath, int]:
    """Map every key path in `text` to the 1-based line where it is first written.

    Tables (`[a.b]`) and arrays of tables (`[[a]]`, each element as `a, i`) map to their header
    line; dotted keys also record their intermediate tables.
    """
    scanner = _Scanner(text)
    scanner.document()
    return scanner.lines


def line_of(lines: Mapping[KeyPath, int], path: KeyPath) -> int | None:
    """The line of `path`, else of its nearest written ancestor (usually a table header)."""
    for end in range(len(path), 0, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.lines: dict[KeyPath, int] = {}
        # Arrays of tables seen so far (by resolved path) and how many elements each has.
        self.array_sizes: dict[KeyPath, int] = {}

    # -- character level -------------------------------------------------------------------

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else ""

    def startswith(self, token: str) -> bool:
        return self.text.startswith(token, self.pos)

    def advance(self, count: int = 1) -> None:
        end = min(self.pos + count, len(self.text))
        self.line += self.text.count("\n", self.pos, end)
        self.pos = end

    def skip_spaces(self) -> None:
        while self.peek() in (" ", "\t") and self.peek():
            self.pos += 1

    def skip_comment(self) -> None:
        if self.peek() == "#":
            end = self.text.find("\n", self.pos)
            self.pos = len(self.text) if end < 0 else end

    def skip_blank(self) -> None:
        """Spaces, comments and newlines: what may separate items of arrays."""
        while True:
            self.skip_spaces()
            self.skip_comment()
            if self.peek() in ("\n", "\r") and self.peek():
                self.advance()
            else:
                return

    def skip_line(self) -> None:
        end = self.text.find("\n", self.pos)
        self.advance((len(self.text) if end < 0 else end + 1) - self.pos)

    # -- document structure ----------------------------------------------------------------

    def record(self, path: KeyPath, line: int) -> None:
        for end in range(1, len(path) + 1):
            self.lines.setdefault(path[:end], line)

    def document(self) -> None:
        table: KeyPath = ()
        while self.pos < len(self.text):
            self.skip_spaces()
            char = self.peek()
            if char in ("\n", "\r", "#", ""):
                self.skip_line()
                continue
            line = self.line
            if self.startswith("[["):
                self.advance(2)
                table = self.array_header(self.key())
                self.record(table, line)
            elif char == "[":
                self.advance()
                table = self.resolve(self.key())
                self.record(table, line)
            else:
                path = table + tuple(self.key())
                self.record(path, line)
                self.skip_spaces()
                if self.peek() == "=":
                    self.advance()
                self.value(path)
            self.skip_line()

    def resolve(self, keys: list[str]) -> KeyPath:
        """A header's path, entering the latest element of every array of tables on the way."""
        path: KeyPath = ()
        for key in keys:
            path += (key,)
            size = self.array_sizes.get(path)
            if size:
                path += (size - 1,)
        return path

    def array_header(self, keys: list[str]) -> KeyPath:
        array = self.resolve(keys[:-1]) + tuple(keys[-1:])
        index = self.array_sizes.get(array, 0)
        self.array_sizes[array] = index + 1
        return (*array, index)

    def key(self) -> list[str]:
        """A dotted key (`a."b.c".'d'`); leaves the position after its last part."""
        parts: list[str] = []
        while True:
            self.skip_spaces()
            char = self.peek()
            if char == '"':
                parts.append(self.basic_string())
            elif char == "'":
                parts.append(self.literal_string())
            else:
                start = self.pos
                while self.peek() in _BARE_KEY_CHARS and self.peek():
                    self.pos += 1
                if self.pos == start:
                    return parts
                parts.append(self.text[start : self.pos])
            self.skip_spaces()
            if self.peek() != ".":
                return parts
            self.advance()

    # -- values ----------------------------------------------------------------------------

    def value(self, path: KeyPath) -> None:
        self.skip_spaces()
        if self.startswith('"""'):
            self.multiline_string('"""')
        elif self.startswith("'''"):
            self.multiline_string("'''")
        elif self.peek() == '"':
            self.basic_string()
        elif self.peek() == "'":
            self.literal_string()
        elif self.peek() == "[":
            self.array(path)
        elif self.peek() == "{":
            self.inline_table(path)
        else:
            while self.peek() and self.peek() not in ",]}\n#":
                self.pos += 1

    def array(self, path: KeyPath) -> None:
        self.advance()
        index = 0
        while True:
            self.skip_blank()
            if self.peek() in ("]", ""):
                self.advance()
                return
            self.record((*path, index), self.line)
            self.value((*path, index))
            index += 1
            self.skip_blank()
            if self.peek() == ",":
                self.advance()

    def inline_table(self, path: KeyPath) -> None:
        self.advance()
        while True:
            self.skip_blank()
            if self.peek() in ("}", ""):
                self.advance()
                return
            line = self.line
            keys = self.key()
            if not keys:  # not TOML; stop rather than loop
                self.advance()
                continue
            inner = path + tuple(keys)
            self.record(inner, line)
            self.skip_spaces()
            if self.peek() == "=":
                self.advance()
            self.value(inner)
            self.skip_blank()
            if self.peek() == ",":
                self.advance()

    def basic_string(self) -> str:
        self.advance()
        chars: list[str] = []
        while self.peek() not in ('"', "\n", ""):
            if self.peek() == "\\":
                escaped = self.peek(1)
                chars.append(_BASIC_ESCAPES.get(escaped, escaped))
                self.pos += 2
            else:
                chars.append(self.peek())
                self.pos += 1
        self.advance()
        # Keys with \u escapes are rare enough that a rough decoding is acceptable here.
        return "".join(chars)

    def literal_string(self) -> str:
        end = self.text.find("'", self.pos + 1)
        end = len(self.text) if end < 0 else end
        content = self.text[self.pos + 1 : end]
        self.advance(end + 1 - self.pos)
        return content

    def multiline_string(self, quotes: str) -> None:
        index = self.pos + 3
        while True:
            end = self.text.find(quotes, index)
            if end < 0:
                self.advance(len(self.text) - self.pos)
                return
            backslashes = 0
            while quotes == '"""' and self.text[end - 1 - backslashes] == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                break
            index = end + 1
        end += 3
        # Up to two quote characters right before the delimiter belong to the content.
        for _ in range(2):
            if end < len(self.text) and self.text[end] == quotes[0]:
                end += 1
        self.advance(end - self.pos)
