"""Secrets recognised by where they stand: the password of a URL, an `Authorization:` header,
`curl -u user:pass`, `mysql -pX`, `--password X`, `--token X`, `NAME=value` with a sensitive
name, a value next to `aws_secret_access_key`.

The context finds a candidate; the value judgements of `values` decide, with a
strength that matches how sure the context is. Regexes are bounded and never nested, so any
text scans in linear time; each is tried only where its matches can start (`anchors`): after
a literal it opens with, or near a word it holds. A span is `(start, end, type)`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator

from aish.safety.secrets.anchors import (
    Anchored,
    Folded,
    at_cased_heads,
    at_heads,
    fold,
    line_matches,
    literal_first,
    positions,
)
from aish.safety.secrets.structures import structure_spans
from aish.safety.secrets.values import (
    AssignmentLine,
    assignment_lines,
    looks_like_password,
    looks_like_random_token,
    looks_like_secret,
    name_is_sensitive,
    strip_quotes,
    type_for_name,
)

Span = tuple[int, int, str]

# A shell word's value: quoted (group 2, up to the same quote on that line) or bare (group 3).
# Patterns ending in it have no groups of their own, so the numbers hold.
_WORD = r"""(?:(["'])([^"'\r\n]{1,1000})\1|([^\s"'`|;&<>]{1,1000}))"""


def _word_value(match: re.Match[str]) -> tuple[int, int, str] | None:
    """The value of the pattern's `_WORD`: (start, end, text), quotes left out, and trailing
    punctuation of a bare word too."""
    for index in (2, 3):
        if match.group(index) is not None:
            value = match.group(index)
            start = match.start(index)
            trimmed = value.rstrip(".,:;)]}") if index == 3 else value
            if not trimmed:
                return None
            return start, start + len(trimmed), trimmed
    return None


_URL_PASSWORD = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{0,30}://[^/\s:@'\"<>]{0,200}:([^\s/'\"<>]{1,300})@"
)
# What follows the scheme of a URL with a password: URLs without one stop here.
_URL_USERINFO = re.compile(r"://[^/\s:@'\"<>]{0,200}:[^\s/'\"<>]{1,300}@")
_SCHEME_RUN = re.compile(r"[a-zA-Z0-9+.-]{1,31}\Z")  # searched up to the `://`
_AUTH_HEADER = re.compile(
    r"(?i)\b(?:proxy-)?(?:authorization|auth)[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:bearer|basic|token|bot|digest|apikey|api-key)[ \t]+([A-Za-z0-9._~+/=-]{1,5000}+)"
)
_CURL_USER = re.compile(
    literal_first(
        r"(?<![\w-])-(?:u|-user|-proxy-user)(?:[ \t]+|=)?([\"']?)"
        r"[^\s:\"'$]{1,200}:([^\s\"']{1,300})\1"
    )
)
_ATTACHED_P = re.compile(literal_first(r"(?<![\w-])-p" + _WORD))
_SPACED_P = re.compile(literal_first(r"(?<![\w-])-[pPw][ \t]+" + _WORD))
_USER_FLAG = re.compile(r"(?<![\w-])(?:-[uUD]|--user(?:name)?|--login)(?:\b|=)")
_SSHPASS = re.compile(literal_first(r"\bsshpass[ \t]+-p[ \t]*" + _WORD))
_OPENSSL_PASS = re.compile(
    literal_first(
        r"(?<![\w-])-pass(?:in|out)?[ \t]+([\"']?)(?:pass|env|file|fd):?([^\s\"']{1,300})\1"
    )
)
_SMB_USER = re.compile(
    literal_first(r"(?<![\w-])-(?:U|-user)[ \t=]+([\"']?)[^\s%\"']{1,200}%([^\s\"']{1,300})\1")
)
_LONG_FLAG = re.compile(
    r"(?i)(?<![\w])--?[a-z0-9-]{0,40}?(?:password|passwd|pass|pwd|passphrase|token|secret"
    r"|api-?key|access-key|secret-key|auth-key)(?:=|[ \t]+)" + _WORD
)
_LONG_FLAG_WORDS = ("pass", "pwd", "token", "secret", "apikey", "api-key", "access-key", "auth-key")
# The flag's keyword and what follows it: a keyword followed by neither ends no such flag.
_LONG_FLAG_END = re.compile(
    r"(?i)(?:password|passwd|pass|pwd|passphrase|token|secret|api-?key|access-key|secret-key"
    r"|auth-key)(?:=|[ \t])"
)
_KEYWORD_VALUE = re.compile(r"(?i)(?:token|secret|apikey|api[-_]key)(?![\w-])[ \t]+" + _WORD)
_PASSWORD_VALUE = re.compile(r"(?i)(?:password|passwd|passphrase)(?![\w-])[ \t]+" + _WORD)
_SHORT_FLAG = re.compile(literal_first(r"(?<![\w-])-[tkaT][ \t]+" + _WORD))
_AWS_SECRET = re.compile(
    r"(?i)aws.{0,3}secret.{0,3}access.{0,3}key[^\n]{0,40}?(?<![A-Za-z0-9/+])"
    r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
_INLINE_NAME = re.compile(
    r"(?<![\w./$-])[\"']?([A-Za-z_][\w.-]{0,80})[\"']?[ \t]*(?:=>|=(?![=>])|:(?![/:]))[ \t]*"
)
# A bare value stops at `=` (base64 padding aside): `Cookie: sid=…` is judged as `sid=…`.
_INLINE_VALUE = re.compile(r"""(?:(["'])([^"'\r\n]{1,1000})\1|([^\s"'`|;&<>=]{1,1000}+={0,2}))""")
_HTPASSWD = re.compile(literal_first(r"\bhtpasswd\b[^\n|;&]{0,500}"))
_CHPASSWD = re.compile(
    r"([\"']?)[\w.-]{1,64}:([^\s\"':]{1,200})\1[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd\b"
)


def _url_starts(text: str, _folded: str | None) -> list[int]:
    """A URL password's match starts in the scheme before a `://` that a password follows."""
    starts: list[int] = []
    if "://" not in text:
        return starts
    for colon in positions(text, ("://",)):
        if _URL_USERINFO.match(text, colon) is None:
            continue
        scheme = _SCHEME_RUN.search(text, max(0, colon - 31), colon)
        if scheme is not None:
            starts.extend(range(scheme.start(), colon))
    return sorted(set(starts))


def _long_flag_starts(text: str, folded: str | None) -> list[int]:
    """A `--…password` flag starts at a dash at most 42 characters before its keyword, which
    a separator follows."""
    starts: set[int] = set()
    for word in positions(fold(text) if folded is None else folded, _LONG_FLAG_WORDS):
        if _LONG_FLAG_END.match(text, word) is None:
            continue
        dash = text.find("-", max(0, word - 42), word)
        while dash != -1:
            starts.add(dash)
            dash = text.find("-", dash + 1, word)
    return sorted(starts)


# Each rule's regex, and where its matches can start; see `anchors`.
URL_PASSWORD = Anchored(_URL_PASSWORD, _url_starts)
AUTH_HEADER = Anchored(_AUTH_HEADER, at_heads("proxy-", "auth"))
LONG_FLAG = Anchored(_LONG_FLAG, _long_flag_starts)
KEYWORD_VALUE = Anchored(
    _KEYWORD_VALUE, at_heads("token", "secret", "apikey", "api-key", "api_key")
)
PASSWORD_VALUE = Anchored(_PASSWORD_VALUE, at_heads("password", "passwd", "passphrase"))
AWS_SECRET = Anchored(_AWS_SECRET, at_heads("aws"))
HTPASSWD = Anchored(_HTPASSWD, at_cased_heads("htpasswd"))
# The parts one of which a sensitive name holds (`values.name_is_sensitive`), in any case.
_SENSITIVE_HEADS = (
    "token", "secret", "pass", "pw", "key", "auth", "credential", "cookie", "session", "dsn"
)  # fmt: skip
# From a sensitive part: the rest of its name and what an assignment puts after a name.
_NAME_THEN_SEPARATOR = re.compile(r"[\w.-]*[\"']?[ \t]*(?:=>|=(?![=>])|:(?![/:]))")
_NOT_NAME = re.compile(r"[^\w.-]")


def _sensitive_name_starts(text: str, folded: str | None) -> list[int]:
    """An assignment to a sensitive name starts where its name does, or at a quote just
    before: names are whole runs of `[\\w.-]` (the look-behind sees to that), so a part
    followed by no separator is in no assignment, and the name's start is the first character
    before the part that is no name character (searched for in the text reversed)."""
    starts: set[int] = set()
    backwards = ""
    for head in positions(fold(text) if folded is None else folded, _SENSITIVE_HEADS):
        if _NAME_THEN_SEPARATOR.match(text, head) is None:
            continue
        backwards = backwards or text[::-1]
        mirrored = len(text) - head  # where the character before `head` stands, reversed
        before = _NOT_NAME.search(backwards, mirrored, mirrored + 82)
        if before is None and mirrored + 82 < len(text):
            continue  # a name longer than a name can be
        start = len(text) - before.start() if before is not None else 0
        starts.update((max(0, start - 1), start))
    return sorted(starts)


# Only assignments to sensitive names: the others are never findings, and no match of the
# pattern can hide one inside it (a match inside another has the same name).
SENSITIVE_ASSIGNMENT = Anchored(_INLINE_NAME, _sensitive_name_starts)


def _hex_digest(value: str) -> bool:
    return len(value) in (40, 64) and all(c in "0123456789abcdefABCDEF" for c in value)


Rule = re.Pattern[str] | Anchored


def _matches(rule: Rule, text: str, folded: str | None) -> Iterator[re.Match[str]]:
    if isinstance(rule, Anchored):
        return rule.finditer(text, folded)
    return rule.finditer(text)


def _spans_of(
    rule: Rule,
    text: str,
    group: int,
    type_: str,
    judge: Callable[[str], bool],
    folded: str | None = None,
) -> Iterator[Span]:
    for match in _matches(rule, text, folded):
        value = match.group(group)
        if value and judge(value):
            yield match.start(group), match.end(group), type_


def _word_spans(
    rule: Rule, text: str, type_: str, judge: Callable[[str], bool], folded: str | None = None
) -> Iterator[Span]:
    for match in _matches(rule, text, folded):
        found = _word_value(match)
        if found is not None and judge(found[2]):
            yield found[0], found[1], type_


def url_password_spans(text: str) -> Iterator[Span]:
    if "://" in text:
        yield from _spans_of(URL_PASSWORD, text, 1, "URL_PASSWORD", _url_password)


def _url_password(value: str) -> bool:
    return looks_like_password(value, min_length=3) or looks_like_random_token(value, 8)


def header_spans(text: str, folded: str | None = None) -> Iterator[Span]:
    """`Authorization: Bearer|Basic|token X`, also as `auth="Bearer X"` in logs and dicts."""
    folded = fold(text) if folded is None else folded
    yield from _spans_of(
        AUTH_HEADER, text, 1, "AUTH_HEADER", lambda v: looks_like_password(v, 8), folded
    )


def flag_spans(text: str, folded: str | None = None) -> Iterator[Span]:
    """Passwords and tokens given as command-line options."""
    folded = fold(text) if folded is None else folded
    yield from _spans_of(_CURL_USER, text, 2, "PASSWORD", looks_like_password)
    yield from _spans_of(_SMB_USER, text, 2, "PASSWORD", looks_like_password)
    yield from _spans_of(_OPENSSL_PASS, text, 2, "PASSWORD", looks_like_password)
    yield from _word_spans(_SSHPASS, text, "PASSWORD", looks_like_password)
    yield from _word_spans(_ATTACHED_P, text, "PASSWORD", lambda v: looks_like_password(v, 6))
    yield from _spaced_password_spans(text)
    for match in LONG_FLAG.finditer(text, folded):
        found = _word_value(match)
        if found is not None:
            flag = match.group().lower()
            kind = "PASSWORD" if "pass" in flag or "pwd" in flag else "TOKEN"
            judge = looks_like_password if kind == "PASSWORD" else looks_like_secret
            if judge(found[2]):
                yield found[0], found[1], kind
    yield from _word_spans(KEYWORD_VALUE, text, "TOKEN", _keyword_value, folded)
    yield from _word_spans(PASSWORD_VALUE, text, "PASSWORD", looks_like_password, folded)
    yield from _word_spans(
        _SHORT_FLAG, text, "TOKEN", lambda v: not _hex_digest(v) and looks_like_random_token(v)
    )
    yield from _htpasswd_spans(text)
    if "chpasswd" in text:
        # Within one line (no pattern part takes a line break): only lines that say chpasswd.
        for match in line_matches(_CHPASSWD, text, positions(text, ("chpasswd",))):
            if looks_like_password(match.group(2)):
                yield match.start(2), match.end(2), "PASSWORD"


def _keyword_value(value: str) -> bool:
    return looks_like_random_token(value) and not _hex_digest(value)


def _spaced_password_spans(text: str) -> Iterator[Span]:
    """`-p X` / `-P X` / `-w X` are passwords only next to a user option on the same line
    (`docker login -u me -p X`, `sqlcmd -U sa -P X`, `ldapsearch -D dn -w X`)."""
    for match in _SPACED_P.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if not _USER_FLAG.search(text, line_start, match.start()):
            continue
        found = _word_value(match)
        if found is not None and looks_like_password(found[2]):
            yield found[0], found[1], "PASSWORD"


def _htpasswd_spans(text: str) -> Iterator[Span]:
    """`htpasswd -b[c] FILE USER PASSWORD`: the third operand."""
    if "htpasswd" not in text:
        return
    for match in HTPASSWD.finditer(text):
        try:
            words = shlex.split(match.group())
        except ValueError:
            continue
        options = [w for w in words[1:] if w.startswith("-")]
        operands = [w for w in words[1:] if not w.startswith("-")]
        if any("b" in o for o in options) and len(operands) >= 3:
            password = operands[2]
            where = match.group().rfind(password)
            if where > 0 and looks_like_password(password):
                start = match.start() + where
                yield start, start + len(password), "PASSWORD"


def aws_secret_spans(text: str, folded: str | None = None) -> Iterator[Span]:
    """The 40-character secret key after any spelling of `aws_secret_access_key` (ini files,
    `aws configure` prompts, environment dumps)."""
    folded = fold(text) if folded is None else folded
    if "secret" in folded:
        yield from _spans_of(AWS_SECRET, text, 1, "AWS_SECRET_KEY", lambda v: True, folded)


def assignment_spans(
    text: str, folded: str | None = None, lines: list[AssignmentLine] | None = None
) -> Iterator[Span]:
    """`NAME=value` / `"name": "value"` / `name: value` with a sensitive name, whole lines and
    inside lines (`PGPASSWORD=x psql`, `?token=…&`, `--from-literal=password=…`). `lines`
    are `assignment_lines(text)`, when the caller has them."""
    folded = fold(text) if folded is None else folded
    for start, end, name, _ in assignment_lines(text) if lines is None else lines:
        yield start, end, type_for_name(name)
    for match in SENSITIVE_ASSIGNMENT.finditer(text, folded):
        name = match.group(1)
        if not name_is_sensitive(name):
            continue
        value = _INLINE_VALUE.match(text, match.end())
        if value is None:
            continue
        found = _word_value(value)
        if found is not None and looks_like_secret(strip_quotes(found[2])):
            yield found[0], found[1], type_for_name(name)


def context_spans(text: str, lines: list[AssignmentLine] | None = None) -> Iterator[Span]:
    folded = Folded(fold(text))  # once for every case-blind rule, and each head found once
    yield from url_password_spans(text)
    yield from header_spans(text, folded)
    yield from flag_spans(text, folded)
    yield from aws_secret_spans(text, folded)
    yield from assignment_spans(text, folded, lines)
    yield from structure_spans(text, folded)
