"""Whether typed bash text is unfinished: the question bash answers with its `PS2` prompt.

Bash asks for another line when the text so far cannot end: a quote is open (`'`, `"`, `$'`,
`$"`, a backtick), the last line ends in a backslash, a here-document's delimiter line has not
come, a compound command, group, subshell, substitution or `[[ … ]]` is open, a function has no
body yet, or the text ends with `|`, `|&`, `&&` or `||`. `unfinished(text)` answers that for text
typed at a prompt, where every Enter ends a line; the tests compare it with `bash -n` over many
generated inputs.

It is a small scanner of its own, not tree-sitter: tree-sitter-bash recovers from an incomplete
input with the same ERROR and MISSING nodes it uses for a wrong one, and the question here is
exactly *incomplete or wrong*. Wrong text (a stray `done`, `echo >`) counts as finished: Enter
hands it on, and the router or bash says what is wrong with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["Unfinished", "UnfinishedKind", "unfinished"]

UnfinishedKind = Literal["quote", "backslash", "heredoc", "construct", "operator"]


@dataclass(frozen=True)
class Unfinished:
    """What keeps the text open: its kind, the token that opened it, and where that starts."""

    kind: UnfinishedKind
    token: str  # the quote, `\`, the here-document's delimiter, the keyword, or the operator
    offset: int

    @property
    def reason(self) -> str:
        """One short phrase for messages: "an unclosed `'`", "a here-document until `EOF`"."""
        match self.kind:
            case "quote":
                return f"an unclosed `{self.token}`"
            case "backslash":
                return "a backslash at the end of the line"
            case "heredoc":
                return f"a here-document waiting for its `{self.token}` line"
            case "construct":
                return f"an open `{self.token}`"
            case "operator":
                return f"a trailing `{self.token}`"


def unfinished(text: str) -> Unfinished | None:
    """What keeps `text` from being a finished input, or None when Enter may hand it on."""
    try:
        _Scanner(text).top()
    except _Open as open_:
        return open_.found
    except _Wrong:
        return None
    return None


class _Open(Exception):
    """The text ended inside something."""

    def __init__(self, found: Unfinished) -> None:
        super().__init__(found.reason)
        self.found = found


class _Wrong(Exception):
    """Bash would reject the text before its end: finished, as far as Enter is concerned."""


_META = frozenset(" \t\n;&|()<>")
# Longest first, so `;;&` is not read as `;;` then `&`.
_OPERATORS = sorted(
    {";;&", "<<-", "<<<", "&>>", ";;", ";&", "&&", "||", "|&", "<<", ">>", "<&", ">&", "<>", ">|"}
    | {"&>", ";", "&", "|", "(", ")", "<", ">"},
    key=len,
    reverse=True,
)
_REDIRECTIONS = frozenset({"<", ">", ">>", "<&", ">&", "<>", ">|", "&>", "&>>", "<<<"})
_HEREDOC = frozenset({"<<", "<<-"})
_PIPES = frozenset({"|", "|&", "&&", "||"})
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
_ARRAY_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_UNARY_TESTS = frozenset(f"-{letter}" for letter in "abcdefghknoprstuvwxzGLNORS")
_BINARY_TESTS = frozenset(
    ["==", "=", "!=", "=~", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-ef", "-nt", "-ot"]
)
# Bash waits for more after a single `&` or `|` inside `[[` too, as after `&&` and `||`.
_CONDITION_JOINS = frozenset({"&&", "||", "&", "|"})
_COMPOUND_OPENERS = frozenset(
    {"{", "(", "((", "if", "for", "select", "while", "until", "case", "[["}
)


@dataclass
class _Token:
    kind: Literal["word", "op", "newline", "end"]
    text: str
    start: int
    plain: bool = True  # no quoting or expansion: a word that can be a reserved word


@dataclass
class _Frame:
    """An open construct at one nesting level, and how far its header has got."""

    keyword: str  # if, for, select, while, until, case, {, (, [[
    start: int
    phase: str = ""


@dataclass
class _HereDoc:
    delimiter: str
    strip_tabs: bool
    quoted: bool
    start: int


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text + "\n"  # Enter ends the last line
        self.pos = 0
        self.heredocs: list[_HereDoc] = []

    # ---- the grammar: a list of commands, with its open constructs ----------------------------

    def top(self) -> None:
        self.commands(closer=None, start=0)

    def commands(self, closer: str | None, start: int) -> None:
        """Read commands to the end of the text or, with `closer` (the `$(`, `<(` or `>(` that
        opened this level), to the `)` that closes it."""
        stack: list[_Frame] = []
        at_command = True  # the next word is a command word (reserved words count here)
        has_command = False  # a command since the last separator: `;` or `|` may follow
        pipe: _Token | None = None  # `|`, `&&` … still waiting for its command
        body_for: int | None = None  # where a function definition starts whose body has not
        function_word = False  # the word just read could name a function: `f ()`
        ended = False  # a compound command just ended: only operators or redirections follow
        while True:
            top = stack[-1] if stack else None
            phase = top.phase if top is not None else ""
            in_case_pattern = phase in ("pattern", "pattern-word", "pattern-next")
            token = self.token(arithmetic=at_command or phase == "name", at_command=phase != "name")
            if token.kind == "end":
                if pipe is not None:
                    raise _Open(Unfinished("operator", pipe.text, pipe.start))
                if body_for is not None:
                    raise _Open(Unfinished("construct", "function", body_for))
                if stack:
                    raise _Open(Unfinished("construct", stack[-1].keyword, stack[-1].start))
                if closer is not None:
                    raise _Open(Unfinished("construct", closer, start))
                return
            if top is not None and top.keyword == "[[":
                if self.conditional(top, token):
                    stack.pop()
                    at_command, has_command, ended = False, True, True
                continue
            if token.kind == "newline":
                function_word = ended = False
                if phase in ("name", "subject", "pattern-word", "pattern-next"):
                    raise _Wrong  # `for` or `case` with no word, a pattern with no `)`
                if phase in ("header", "in-list"):
                    assert top is not None
                    top.phase = "list"
                if not in_case_pattern and phase != "in":
                    at_command, has_command = True, False
                continue
            if body_for is not None and not (function_word and token.text == "("):
                if not (token.text in _COMPOUND_OPENERS or token.text.startswith("((")):
                    raise _Wrong
                body_for, at_command = None, True
            if token.kind == "op":
                text = token.text
                ended = ended and text in _REDIRECTIONS | _HEREDOC
                if in_case_pattern:
                    assert top is not None
                    if text == ")" and phase == "pattern-word":
                        top.phase = "body"
                        at_command, has_command = True, False
                    elif (text, phase) in (("|", "pattern-word"), ("(", "pattern")):
                        top.phase = "pattern-next"
                    else:
                        raise _Wrong
                    continue
                if phase in ("name", "header", "in-list", "list"):
                    assert top is not None
                    if text != ";" or phase in ("name", "list"):
                        raise _Wrong
                    top.phase = "list"
                    at_command, has_command = True, False
                    continue
                if text in _REDIRECTIONS or text in _HEREDOC:
                    target = self.token(arithmetic=False)
                    if target.kind != "word":
                        raise _Wrong
                    if text in _HEREDOC:
                        delimiter = _unquoted(target.text)
                        quoted = delimiter != target.text
                        self.heredocs.append(
                            _HereDoc(delimiter, text == "<<-", quoted, token.start)
                        )
                    continue
                if text == "(":
                    if function_word:
                        # `f ()`; after `function f`, a `(` without `)` opens a subshell body.
                        if self.empty_parentheses():
                            if body_for is None:
                                body_for = token.start
                            function_word = False
                            continue
                        if body_for is None:
                            raise _Wrong
                        body_for, function_word, at_command = None, False, True

                    if not at_command:
                        raise _Wrong
                    stack.append(_Frame("(", token.start))
                    at_command, has_command, pipe = True, False, None
                    continue
                function_word = False
                if text == ")":
                    if top is not None and top.keyword == "(":
                        stack.pop()
                        ended = True
                    elif top is None and closer is not None and pipe is None:
                        return
                    else:
                        raise _Wrong
                    at_command, has_command = False, True
                    continue
                if text in _CASE_ENDS:
                    if top is None or top.keyword != "case" or phase != "body":
                        raise _Wrong
                    top.phase = "pattern"
                    at_command, has_command = True, False
                    continue
                if not has_command:
                    raise _Wrong  # `; x`, `a | | b`
                if text in _PIPES:
                    pipe = token
                at_command, has_command = True, False
                continue
            # A word.
            if ended:
                raise _Wrong  # `( a ) b`, `fi x`
            pipe = None
            function_word = False
            word = token.text
            keyword = word if token.plain else ""
            if phase == "name":
                assert top is not None
                top.phase = "header"
                continue
            if phase == "header":  # after `for NAME`: `in …` or the body's `do`
                assert top is not None
                if keyword == "in":
                    top.phase = "in-list"
                elif keyword == "do":
                    top.phase = "body"
                    at_command, has_command = True, False
                else:
                    raise _Wrong
                continue
            if phase == "in-list":
                continue
            if phase in ("subject", "in"):
                assert top is not None
                if phase == "subject":
                    top.phase = "in"
                elif keyword == "in":
                    top.phase = "pattern"
                else:
                    raise _Wrong
                continue
            if in_case_pattern:
                assert top is not None
                if keyword == "esac" and phase == "pattern":
                    stack.pop()
                    at_command, has_command, ended = False, True, True
                else:
                    top.phase = "pattern-word"
                continue
            if phase == "list" and keyword != "do" and top and top.keyword in ("for", "select"):
                raise _Wrong  # after `for x in …;` only `do` may come

            if at_command and keyword:
                reserved = self.reserved(word, token.start, stack)
                if reserved is not None:
                    at_command, has_command = reserved
                    ended = has_command
                    if word == "function":
                        if self.token(arithmetic=False).kind != "word":
                            raise _Wrong
                        function_word, body_for = True, token.start
                    continue
            if word.startswith("(("):
                at_command, has_command, ended = False, True, True
            elif at_command and _ARRAY_ASSIGNMENT.match(word):
                has_command = True  # an assignment: the command word may still follow
            elif at_command:
                function_word = token.plain
                at_command, has_command = False, True

    def empty_parentheses(self) -> bool:
        """Step over `)` (after blanks) when it comes next: the `()` of a function definition."""
        found = re.compile(r"[ \t]*\)").match(self.text, self.pos)
        if found is None:
            return False
        self.pos = found.end()
        return True

    def conditional(self, frame: _Frame, token: _Token) -> bool:
        """One token inside `[[ … ]]`; True when it is the closing `]]`.

        Newlines are allowed where a new test may start or one has just ended, and nowhere
        else: `[[ -f x⏎` waits for more, `[[ -f⏎` and `[[ $x⏎` are errors."""
        state = frame.phase or "term"
        word = token.text if token.kind == "word" else ""
        if token.kind == "newline":
            if state not in ("term", "done"):
                raise _Wrong
            return False
        if word == "]]" and state in ("word", "done"):
            return True
        if state == "term":
            if word == "!" or token.text == "(":
                pass
            elif word in _UNARY_TESTS:
                state = "unary"
            elif word:
                state = "word"
            else:
                raise _Wrong
        elif state == "word":
            if word in _BINARY_TESTS or token.text in ("<", ">"):
                state = "binary"
                if word == "=~":
                    self.regex()
                    state = "done"
            elif token.text in _CONDITION_JOINS or word == "!":  # bash waits after these
                state = "term"
            elif token.text == ")":
                state = "done"
            else:
                raise _Wrong
        elif state in ("unary", "binary"):
            if not word:
                raise _Wrong
            state = "done"
        elif token.text in _CONDITION_JOINS:
            state = "term"
        elif token.text != ")" and not word.startswith("]"):  # bash waits for a `]]` here
            raise _Wrong
        frame.phase = state
        return False

    def regex(self) -> None:
        """The right side of `=~`: one word in which `(`, `)` and `|` are the pattern's own."""
        text = self.text
        while self.pos < len(text) and text[self.pos] in " \t":
            self.pos += 1
        depth = 0
        start = self.pos
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\n" and depth == 0:
                break
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            self.quoted_part(char)
        if self.pos == start:
            raise _Wrong

    def reserved(self, word: str, start: int, stack: list[_Frame]) -> tuple[bool, bool] | None:
        """Apply a reserved word in command position; the new (at_command, has_command)."""
        top = stack[-1] if stack else None
        opened = (True, False)
        closed = (False, True)
        if word in ("if", "while", "until", "{"):
            stack.append(_Frame(word, start, "cond"))
            return opened
        if word in ("for", "select"):
            stack.append(_Frame(word, start, "name"))
            return opened
        if word == "case":
            stack.append(_Frame(word, start, "subject"))
            return (False, False)
        if word == "[[":
            stack.append(_Frame(word, start))
            return opened
        if word == "]]":
            raise _Wrong  # only `[[` opens a test
        if word in ("!", "time"):
            return opened
        if word == "function":
            return (False, False)
        expects = {
            "then": ("if", "cond"),
            "elif": ("if", "then"),
            "else": ("if", "then"),
            "do": ("loop", "cond"),
        }
        if word in expects:
            keyword, phase = expects[word]
            loop = top is not None and top.keyword in ("while", "until", "for", "select")
            if top is None or (top.keyword != keyword and not (keyword == "loop" and loop)):
                raise _Wrong
            if word == "do" and top.phase not in ("cond", "list"):
                raise _Wrong
            if word != "do" and top.phase != phase:
                raise _Wrong
            top.phase = {"then": "then", "elif": "cond", "else": "else", "do": "body"}[word]
            return opened
        closers = {"fi": ("if",), "done": ("while", "until", "for", "select"), "}": ("{",)}
        if word in closers:
            if top is None or top.keyword not in closers[word]:
                raise _Wrong
            if word == "fi" and top.phase not in ("then", "else"):
                raise _Wrong
            if word == "done" and top.phase != "body":
                raise _Wrong
            stack.pop()
            return closed
        if word == "esac":
            if top is None or top.keyword != "case":
                raise _Wrong
            stack.pop()
            return closed
        return None

    # ---- tokens -------------------------------------------------------------------------------

    def token(self, *, arithmetic: bool, at_command: bool = False) -> _Token:
        """The next token; `arithmetic`: `((` here starts an arithmetic command (or a `for`'s
        arithmetic header, when not `at_command`)."""
        text = self.text
        while True:
            if self.pos >= len(text):
                return _Token("end", "", self.pos)
            char = text[self.pos]
            if char in " \t":
                self.pos += 1
            elif text.startswith("\\\n", self.pos):
                self.line_continuation()
            elif char == "#":
                end = text.find("\n", self.pos)
                self.pos = end if end >= 0 else len(text)
            else:
                break
        start = self.pos
        if char == "\n":
            self.pos += 1
            self.read_heredocs()
            return _Token("newline", "\n", start)
        if arithmetic and text.startswith("((", start):
            self.pos += 2
            self.arithmetic(start, token="((" if at_command else "for ((")
            return _Token("word", text[start : self.pos], start, plain=False)
        for op in _OPERATORS:
            if text.startswith(op, start) and not (op in ("<", ">") and text[start + 1] == "("):
                self.pos += len(op)
                return _Token("op", op, start)
        return self.word(start)

    def word(self, start: int) -> _Token:
        text = self.text
        plain = True
        while self.pos < len(text):
            char = text[self.pos]
            if char in "<>" and text.startswith("(", self.pos + 1):
                self.pos += 2
                self.commands(closer=char + "(", start=self.pos - 2)
                plain = False
                continue
            if char == "(" and _ARRAY_ASSIGNMENT.fullmatch(text, start, self.pos):
                self.array(self.pos)
                plain = False
                continue
            if char in _META:
                break
            plain = plain and char not in "\\'\"`$"
            self.quoted_part(char)
        return _Token("word", text[start : self.pos], start, plain=plain)

    def quoted_part(self, char: str) -> None:
        """Step over one character, or one quoted or expanded part, of a word."""
        text, pos = self.text, self.pos
        if char == "\\":
            if text.startswith("\n", pos + 1):
                self.line_continuation()
            else:
                self.pos += 2
        elif char == "'":
            self.pos += 1
            self.single_quoted("'", pos)
        elif char == '"':
            self.pos += 1
            self.double_quoted(pos)
        elif char == "`":
            self.pos += 1
            self.backquoted(pos)
        elif char == "$":
            self.dollar(pos)
        else:
            self.pos += 1

    def dollar(self, start: int) -> None:
        text = self.text
        after = text[start + 1 : start + 3]
        if after.startswith("'"):
            self.pos = start + 2
            self.ansi_quoted(start)
        elif after.startswith('"'):
            self.pos = start + 2
            self.double_quoted(start, token='$"')
        elif after == "((":
            self.pos = start + 3
            self.arithmetic(start, token="$((")
        elif after.startswith("("):
            self.pos = start + 2
            self.commands(closer="$(", start=start)
        elif after.startswith("{"):
            self.pos = start + 2
            self.braced(start)
        elif after.startswith("["):
            self.pos = start + 2
            self.until_char("]", start, "$[")
        else:
            self.pos = start + 1

    def line_continuation(self) -> None:
        start = self.pos
        self.pos += 2
        if self.pos >= len(self.text):
            raise _Open(Unfinished("backslash", "\\", start))

    def single_quoted(self, quote: str, start: int) -> None:
        end = self.text.find(quote, self.pos)
        if end < 0:
            raise _Open(Unfinished("quote", quote, start))
        self.pos = end + 1

    def ansi_quoted(self, start: int) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == "'":
                self.pos += 1
                return
            self.pos += 2 if char == "\\" else 1
        raise _Open(Unfinished("quote", "$'", start))

    def double_quoted(self, start: int, token: str = '"') -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return
            if char == "\\":
                self.pos += 2
            elif char == "`":
                self.pos += 1
                self.backquoted(self.pos - 1)
            elif char == "$":
                self.dollar(self.pos)
            else:
                self.pos += 1
        raise _Open(Unfinished("quote", token, start))

    def backquoted(self, start: int) -> None:
        # Bash reads a backquoted command as text up to the closing backquote; its insides are
        # parsed only when it runs.
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == "`":
                self.pos += 1
                return
            self.pos += 2 if char == "\\" else 1
        raise _Open(Unfinished("quote", "`", start))

    def braced(self, start: int) -> None:
        """`${…}`: to the matching `}`, over quotes and substitutions."""
        text = self.text
        depth = 0
        while self.pos < len(text):
            char = text[self.pos]
            if char == "}" and depth == 0:
                self.pos += 1
                return
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
            self.quoted_part(char)
        raise _Open(Unfinished("construct", "${", start))

    def arithmetic(self, start: int, token: str = "((") -> None:
        """`((…))` and `$((…))`: to the `))` that closes them, over nested parentheses."""
        text = self.text
        depth = 0
        while self.pos < len(text):
            char = text[self.pos]
            if char == ")":
                if depth == 0:
                    if text.startswith("))", self.pos):
                        self.pos += 2
                        return
                    # Not arithmetic after all: bash reads it again as `$( (…) …` or
                    # `( (…) …`, a subshell inside a substitution or a subshell.
                    if token == "for ((":
                        raise _Wrong
                    self.pos += 1
                    self.commands(closer=token[:-1], start=start)
                    return
                depth -= 1
                self.pos += 1
            elif char == "(":
                depth += 1
                self.pos += 1
            else:
                self.quoted_part(char)
        raise _Open(Unfinished("construct", token, start))

    def array(self, start: int) -> None:
        """`name=(…)`: words, newlines and comments to the closing `)`."""
        self.pos += 1
        while True:
            token = self.token(arithmetic=False)
            if token.kind == "end":
                raise _Open(Unfinished("construct", "(", start))
            if token.kind == "op":
                if token.text == ")":
                    return
                raise _Wrong

    def until_char(self, closer: str, start: int, token: str) -> None:
        end = self.text.find(closer, self.pos)
        if end < 0:
            raise _Open(Unfinished("construct", token, start))
        self.pos = end + 1

    def read_heredocs(self) -> None:
        """After a newline, the bodies of the here-documents started on the line before it."""
        pending, self.heredocs = self.heredocs, []
        for heredoc in pending:
            self.heredoc_body(heredoc)

    def heredoc_body(self, heredoc: _HereDoc) -> None:
        text = self.text
        line = ""
        while self.pos < len(text):
            end = text.find("\n", self.pos)
            line += text[self.pos : end]
            self.pos = end + 1
            trailing = len(line) - len(line.rstrip("\\"))
            if not heredoc.quoted and trailing % 2 == 1:
                line = line[:-1]  # `\` newline joins the next line in an unquoted body
                continue
            candidate = line.lstrip("\t") if heredoc.strip_tabs else line
            if candidate == heredoc.delimiter:
                return
            line = ""
        raise _Open(Unfinished("heredoc", heredoc.delimiter, heredoc.start))


def _unquoted(word: str) -> str:
    """A here-document delimiter after quote removal (`'EOF'`, `"EOF"`, `\\EOF` → `EOF`)."""
    out: list[str] = []
    index = 0
    quote = ""
    while index < len(word):
        char = word[index]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"' and index + 1 < len(word):
                index += 1
                out.append(word[index])
            else:
                out.append(char)
        elif char in "'\"":
            quote = char
        elif char == "\\" and index + 1 < len(word):
            index += 1
            out.append(word[index])
        else:
            out.append(char)
        index += 1
    return "".join(out)
