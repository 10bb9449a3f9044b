"""Secrets recognised by where they stand: the password of a URL, an `Authorization:` header,
`curl -u user:pass`, `mysql -pX`, `--password X`, `--token X`, `NAME=value` with a sensitive
name, a value next to `aws_secret_access_key`.

The context finds a candidate; the value judgements of `values` decide, with a
strength that matches how sure the context is. Regexes are bounded and never nested, so any
text scans in linear time. A span is `(start, end, type)`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator

from aish.safety.secrets.structures import structure_spans
from aish.safety.secrets.values import (
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
_AUTH_HEADER = re.compile(
    r"(?i)\b(?:proxy-)?(?:authorization|auth)[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:bearer|basic|token|bot|digest|apikey|api-key)[ \t]+([A-Za-z0-9._~+/=-]{1,5000}+)"
)
_CURL_USER = re.compile(
    r"(?<![\w-])(?:-u|--user|--proxy-user)(?:[ \t]+|=)?([\"']?)"
    r"[^\s:\"'$]{1,200}:([^\s\"']{1,300})\1"
)
_ATTACHED_P = re.compile(r"(?<![\w-])-p" + _WORD)
_SPACED_P = re.compile(r"(?<![\w-])-[pPw][ \t]+" + _WORD)
_USER_FLAG = re.compile(r"(?<![\w-])(?:-[uUD]|--user(?:name)?|--login)(?:\b|=)")
_SSHPASS = re.compile(r"\bsshpass[ \t]+-p[ \t]*" + _WORD)
_OPENSSL_PASS = re.compile(
    r"(?<![\w-])-pass(?:in|out)?[ \t]+([\"']?)(?:pass|env|file|fd):?([^\s\"']{1,300})\1"
)
_SMB_USER = re.compile(
    r"(?<![\w-])(?:-U|--user)[ \t=]+([\"']?)[^\s%\"']{1,200}%([^\s\"']{1,300})\1"
)
_LONG_FLAG = re.compile(
    r"(?i)(?<![\w])--?[a-z0-9-]{0,40}?(?:password|passwd|pass|pwd|passphrase|token|secret"
    r"|api-?key|access-key|secret-key|auth-key)(?:=|[ \t]+)" + _WORD
)
_KEYWORD_VALUE = re.compile(r"(?i)(?:token|secret|apikey|api[-_]key)(?![\w-])[ \t]+" + _WORD)
_PASSWORD_VALUE = re.compile(r"(?i)(?:password|passwd|passphrase)(?![\w-])[ \t]+" + _WORD)
_SHORT_FLAG = re.compile(r"(?<![\w-])-[tkaT][ \t]+" + _WORD)
_AWS_SECRET = re.compile(
    r"(?i)aws.{0,3}secret.{0,3}access.{0,3}key[^\n]{0,40}?(?<![A-Za-z0-9/+])"
    r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
_INLINE_NAME = re.compile(
    r"(?<![\w./$-])[\"']?([A-Za-z_][\w.-]{0,80})[\"']?[ \t]*(?:=>|=(?![=>])|:(?![/:]))[ \t]*"
)
# A bare value stops at `=` (base64 padding aside): `Cookie: sid=…` is judged as `sid=…`.
_INLINE_VALUE = re.compile(r"""(?:(["'])([^"'\r\n]{1,1000})\1|([^\s"'`|;&<>=]{1,1000}+={0,2}))""")
_HTPASSWD = re.compile(r"\bhtpasswd\b[^\n|;&]{0,500}")
_CHPASSWD = re.compile(
    r"([\"']?)[\w.-]{1,64}:([^\s\"':]{1,200})\1[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd\b"
)


def _hex_digest(value: str) -> bool:
    return len(value) in (40, 64) and all(c in "0123456789abcdefABCDEF" for c in value)


def _spans_of(
    pattern: re.Pattern[str], text: str, group: int, type_: str, judge: Callable[[str], bool]
) -> Iterator[Span]:
    for match in pattern.finditer(text):
        value = match.group(group)
        if value and judge(value):
            yield match.start(group), match.end(group), type_


def _word_spans(
    pattern: re.Pattern[str], text: str, type_: str, judge: Callable[[str], bool]
) -> Iterator[Span]:
    for match in pattern.finditer(text):
        found = _word_value(match)
        if found is not None and judge(found[2]):
            yield found[0], found[1], type_


def url_password_spans(text: str) -> Iterator[Span]:
    if "://" in text:
        yield from _spans_of(_URL_PASSWORD, text, 1, "URL_PASSWORD", _url_password)


def _url_password(value: str) -> bool:
    return looks_like_password(value, min_length=3) or looks_like_random_token(value, 8)


def header_spans(text: str) -> Iterator[Span]:
    """`Authorization: Bearer|Basic|token X`, also as `auth="Bearer X"` in logs and dicts."""
    yield from _spans_of(_AUTH_HEADER, text, 1, "AUTH_HEADER", lambda v: looks_like_password(v, 8))


def flag_spans(text: str) -> Iterator[Span]:
    """Passwords and tokens given as command-line options."""
    yield from _spans_of(_CURL_USER, text, 2, "PASSWORD", looks_like_password)
    yield from _spans_of(_SMB_USER, text, 2, "PASSWORD", looks_like_password)
    yield from _spans_of(_OPENSSL_PASS, text, 2, "PASSWORD", looks_like_password)
    yield from _word_spans(_SSHPASS, text, "PASSWORD", looks_like_password)
    yield from _word_spans(_ATTACHED_P, text, "PASSWORD", lambda v: looks_like_password(v, 6))
    yield from _spaced_password_spans(text)
    for match in _LONG_FLAG.finditer(text):
        found = _word_value(match)
        if found is not None:
            flag = match.group().lower()
            kind = "PASSWORD" if "pass" in flag or "pwd" in flag else "TOKEN"
            judge = looks_like_password if kind == "PASSWORD" else looks_like_secret
            if judge(found[2]):
                yield found[0], found[1], kind
    yield from _word_spans(_KEYWORD_VALUE, text, "TOKEN", _keyword_value)
    yield from _word_spans(_PASSWORD_VALUE, text, "PASSWORD", looks_like_password)
    yield from _word_spans(
        _SHORT_FLAG, text, "TOKEN", lambda v: not _hex_digest(v) and looks_like_random_token(v)
    )
    yield from _htpasswd_spans(text)
    if "chpasswd" in text:
        yield from _spans_of(_CHPASSWD, text, 2, "PASSWORD", looks_like_password)


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
    for match in _HTPASSWD.finditer(text):
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


def aws_secret_spans(text: str) -> Iterator[Span]:
    """The 40-character secret key after any spelling of `aws_secret_access_key` (ini files,
    `aws configure` prompts, environment dumps)."""
    lowered_has = "secret" in text.lower()
    if lowered_has:
        yield from _spans_of(_AWS_SECRET, text, 1, "AWS_SECRET_KEY", lambda v: True)


def assignment_spans(text: str) -> Iterator[Span]:
    """`NAME=value` / `"name": "value"` / `name: value` with a sensitive name, whole lines and
    inside lines (`PGPASSWORD=x psql`, `?token=…&`, `--from-literal=password=…`)."""
    for start, end, name, _ in assignment_lines(text):
        yield start, end, type_for_name(name)
    for match in _INLINE_NAME.finditer(text):
        name = match.group(1)
        if not name_is_sensitive(name):
            continue
        value = _INLINE_VALUE.match(text, match.end())
        if value is None:
            continue
        found = _word_value(value)
        if found is not None and looks_like_secret(strip_quotes(found[2])):
            yield found[0], found[1], type_for_name(name)


def context_spans(text: str) -> Iterator[Span]:
    yield from url_password_spans(text)
    yield from header_spans(text)
    yield from flag_spans(text)
    yield from aws_secret_spans(text)
    yield from assignment_spans(text)
    yield from structure_spans(text)
