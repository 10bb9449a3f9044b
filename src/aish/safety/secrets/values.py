"""Judging names and values: does a variable's name say "secret", does its value look like one.

The name alone is never enough (`TOKEN_TTL_SECONDS=3600`, `PASSWORD_STORE_DIR=~/x`,
`SECRET_KEY=$SECRET_KEY`): every rule asks the value too. Three strengths of judgement, for
three strengths of context:

- `looks_like_password`: the context says "password" outright (`--password=X`, `-pX`, a URL's
  `user:X@`): anything that is not a reference, a placeholder, a number, a path or a plain
  lower-case word;
- `looks_like_secret`: a sensitive name is assigned the value (`API_KEY=X`, `"token": "X"`):
  it must also mix letters with digits or symbols, or be long random-looking letters;
- `looks_like_random_token`: only a nearby keyword or a short flag hints (`--token X`,
  `add-authtoken X`, `-t X`): the value must look machine-made (mixed case and digits, or hex).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from itertools import pairwise

from aish.safety.secrets.anchors import AtLineStarts, fold

PLACEHOLDER = re.compile(r"\bAISH_SECRET_[A-Z0-9_]+?_\d+\b")


# A name is sensitive when one of its parts is one of these (or ends with one of the compound
# suffixes: `authToken`, `DBPASSWORD`, `clientSecret`), unless its last part says the value is
# about the secret rather than the secret itself.
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SENSITIVE_PARTS = _words(
    "token tokens secret secrets password passwd passphrase pwd pass pw key apikey auth "
    "credential credentials cookie session dsn"
)
_SENSITIVE_SUFFIXES = (
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "authkey",
    "credential",
    "credentials",
    "cookie",
)
_HARMLESS_LAST_PARTS = _words(
    "ttl seconds secs sec minutes mins hours days ms timeout expiry expires expiration lifetime "
    "age dir directory path file filename name names header manager length len size min max "
    "count limit rounds iterations host hostname port user username login email type mode "
    "enabled enable disabled required format algorithm alg store location prefix suffix style "
    "sock socket pid parallelism endpoint region version provider scope scopes field param "
    "policy strategy backend class level env regex pattern hint label description kind issuer "
    "audience domain method source server address id ids arn helper program command cmd "
    "length rotation interval"
)
_PUBLIC_PARTS = frozenset({"public", "publishable", "pub"})
_NAME_PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")

_REFERENCE = re.compile(
    r"^\$[A-Za-z_{(]|\$\{|\$\(|\{\{|\}\}|<%|%>|#\{|^%[A-Za-z_]\w*%$|\bprocess\.env\b"
    r"|\bos\.environ\b|\bENV\[|\bgetenv\(|%\([A-Za-z_]\w*\)[sd]"
)
_DUMMY_WORDS = _words(
    "null none nil undefined true false yes no on off required optional hidden secret password "
    "passwd token changeme changeit letmein example sample placeholder redacted masked dummy "
    "default unset empty todo tbd"
)
_DUMMY_MARKERS = re.compile(
    r"(?i)^your[-_ ]|example|changeme|change[-_]me|change[-_]?this|placeholder|redacted"
    r"|^(.)\1+$|\*{3}|x{4}|X{4}|\.\.\.|^<.*>$|^\[.*\]$|^\{.*\}$|^\(.*\)$|^%s$"
)
# `_DUMMY_MARKERS` asked faster (a case-blind alternation tried at every position of every
# value was a third of judging one): its `^` alternatives are tried at the start only, its
# words looked for in the value folded to lower case (`anchors.fold`, which takes every
# character to the ASCII letter a case-blind pattern takes it for).
_DUMMY_AT_START = re.compile(r"(?i)your[-_ ]|(.)\1+$|<.*>$|\[.*\]$|\{.*\}$|\(.*\)$|%s$")
_DUMMY_INSIDE = ("example", "changeme", "placeholder", "redacted", "xxxx")
_CHANGE_ME = re.compile(r"change[-_]?(?:me|this)")
# Each alternative of `_REFERENCE` holds one of these characters, `env` or `ENV[`.
_REFERENCE_CHARS = frozenset("$%{}")
_CODE = re.compile(r"[A-Za-z_][\w.]*[(\[]")  # `get_token()`, `os.environ[…]`: an expression
_NUMBER = re.compile(r"[+-]?\d[\d_,.:]*(?:[eE][+-]?\d+)?[A-Za-z]{0,3}")
_DATE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?)?"
)
_HOSTNAME = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?::\d+)?")
_IDENTIFIER = re.compile(r"[A-Za-z]+(?:[-_./:][A-Za-z]+)*")
_LOWER_WORDS = re.compile(r"[a-z][a-z0-9]*(?:[-_./:][a-z0-9]+)*")
_BASE64ISH = re.compile(r"[A-Za-z0-9+/=_-]+")
_TOKENISH = re.compile(r"[A-Za-z0-9_+/=.~-]+")
_HEXISH = re.compile(r"[0-9a-fA-F]+(?:-[0-9a-fA-F]+)*")
_URL_PASSWORD = re.compile(r"^[a-z][a-z0-9+.-]*://[^/\s:@]*:[^@\s/]+@", re.IGNORECASE)
_URL_USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://[^/\s@]+@", re.IGNORECASE)
_SYMBOLS = set("!@#$%^&*+=~?|()[]{}<>;,")
_CAMEL_WORDS = re.compile(r"[a-z]{0,20}(?:[A-Z][a-z]{2,20}){1,8}")  # PasswordMinLength: a name


def name_parts(name: str) -> list[str]:
    """`AWS_SECRET_ACCESS_KEY` → aws secret access key; `clientSecret` → client secret."""
    return [part.lower() for part in _NAME_PARTS.findall(name)]


@lru_cache(maxsize=4096)  # names repeat (a log says `token=` on every line); names are no secret
def name_is_sensitive(name: str) -> bool:
    """Whether a variable, key or option named `name` would hold a secret."""
    parts = name_parts(name)
    if not parts or parts[-1] in _HARMLESS_LAST_PARTS or _PUBLIC_PARTS.intersection(parts):
        return False
    return any(p in _SENSITIVE_PARTS or p.endswith(_SENSITIVE_SUFFIXES) for p in parts)


@lru_cache(maxsize=4096)
def type_for_name(name: str) -> str:
    """The placeholder type for a secret assigned to `name`: PASSWORD, TOKEN, API_KEY …"""
    parts = name_parts(name)
    joined = "".join(parts)
    if (
        any(p in ("pass", "pwd", "pw") for p in parts)
        or "passw" in joined
        or "passphrase" in joined
    ):
        return "PASSWORD"
    if "secret" in joined:
        return "SECRET"
    if "token" in joined or "auth" in joined:
        return "TOKEN"
    if "key" in joined:
        return "API_KEY"
    if "cookie" in joined or "session" in joined:
        return "SESSION"
    if "dsn" in joined:
        return "DSN"
    return "CREDENTIAL"


def _not_a_value(value: str) -> bool:
    """References, placeholders, numbers, dates, booleans and paths: never secrets. (The
    cheap questions first: each is a yes on its own.)"""
    if not value or value[0] in "/~-" or value.startswith(("./", "../")):
        return True
    lowered = value.lower()
    return bool(
        lowered in _DUMMY_WORDS
        or any(map(str.isspace, value))
        or ("AISH_SECRET_" in value and PLACEHOLDER.search(value))
        or _is_reference(value)
        or _has_dummy_marker(value)
        or _NUMBER.fullmatch(value)
        or _DATE.match(value)
        or (("(" in value or "[" in value) and _CODE.match(value))
    )


def _is_reference(value: str) -> bool:
    """`_REFERENCE.search(value)`, asked only of values that hold what it needs."""
    if _REFERENCE_CHARS.isdisjoint(value) and "env" not in value and "ENV[" not in value:
        return False
    return _REFERENCE.search(value) is not None


def _has_dummy_marker(value: str) -> bool:
    """`_DUMMY_MARKERS.search(value)`, without trying a case-blind alternation everywhere."""
    if "***" in value or "..." in value or _DUMMY_AT_START.match(value):
        return True
    folded = fold(value)
    return any(word in folded for word in _DUMMY_INSIDE) or (
        "change" in folded and _CHANGE_ME.search(folded) is not None
    )


def _classes(value: str) -> tuple[bool, bool, bool, bool]:
    lower = any(map(str.islower, value))  # `map` over a method: the loop stays in C
    upper = any(map(str.isupper, value))
    digit = any(map(str.isdigit, value))
    symbol = not _SYMBOLS.isdisjoint(value)
    return lower, upper, digit, symbol


def _case_runs(value: str) -> float:
    """Runs of one character class per character: about 0.6 for random base62, low for words."""
    if value.isascii():  # the classes by one translation and the runs by one regex, in C
        return len(_RUNS.findall(value.translate(_ASCII_KINDS))) / len(value)
    kinds = [_kind(c) for c in value]
    runs = 1 + sum(1 for a, b in pairwise(kinds) if a != b)
    return runs / len(value)


def _kind(char: str) -> str:
    return "u" if char.isupper() else "l" if char.islower() else "d" if char.isdigit() else "s"


_ASCII_KINDS = {code: _kind(chr(code)) for code in range(128)}
_RUNS = re.compile(r"(.)\1*", re.DOTALL)


def _url_judgement(value: str) -> bool | None:
    """For a URL value: secret only with a password in it; None when `value` is no URL."""
    if "://" not in value:
        return None
    return bool(_URL_PASSWORD.match(value))


def looks_like_password(value: str, min_length: int = 6) -> bool:
    """In a context that says "password": anything but a reference, placeholder, number, path
    or plain lower-case word."""
    if len(value) < min_length or _not_a_value(value):
        return False
    lower, upper, digit, symbol = _classes(value)
    if not (lower or upper):
        return False
    return digit or symbol or (lower and upper) or not _IDENTIFIER.fullmatch(value)


def looks_like_secret(value: str, min_length: int = 8) -> bool:
    """The value of a sensitive-named setting: letters mixed with digits or symbols, or long
    random-looking letters; not a path, host name, URL without password, or identifier."""
    if len(value) < min_length:
        return False
    url = _url_judgement(value)
    if url is not None:
        return url
    if _not_a_value(value) or _HOSTNAME.fullmatch(value):
        return False
    if "/" in value and not _BASE64ISH.fullmatch(value):
        return False  # a path or a slug (`anthropic/claude-3.5-sonnet`), not base64
    lower, upper, digit, symbol = _classes(value)
    if not (lower or upper):
        return False
    if digit and not _LOWER_WORDS.fullmatch(value):
        return True
    if digit:  # lower case and digits: hex keys and `a1b2c3…` yes, `shop2024`, `app-v2` no
        hexish = len(value) >= 16 and bool(_HEXISH.fullmatch(value))
        return hexish or (len(value) >= 12 and _case_runs(value) >= 0.3)
    if symbol and lower and upper:
        return True
    return (
        len(value) >= 16
        and lower
        and upper
        and _case_runs(value) >= 0.35
        and not _CAMEL_WORDS.fullmatch(value)
    )


def looks_like_random_token(value: str, min_length: int = 16) -> bool:
    """Machine-made: mixed case with digits, random-looking letters, or hex (UUIDs included)."""
    if len(value) < min_length or _not_a_value(value) or not _TOKENISH.fullmatch(value):
        return False
    lower, upper, digit, _ = _classes(value)
    if _HEXISH.fullmatch(value):
        return digit and (lower or upper) and sum(c.isalnum() for c in value) >= 16
    if lower and upper:
        return _case_runs(value) >= 0.35 and (digit or len(value) >= 20)
    return False


def strip_quotes(value: str) -> str:
    """`'x'` → x, `"x",` → x; a lone closing quote (the opening one was before the name) goes."""
    value = value.strip().rstrip(",;").strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"`":
        return value[1:-1]
    if value[-1:] in ("'", '"') and value[-1] not in value[:-1]:
        return value[:-1]
    return value


def _sanitised(name: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")[:40].strip("_")


def sensitive_environment(env: Mapping[str, str]) -> dict[str, str]:
    """value -> `ENV_<NAME>` for variables whose name looks sensitive and whose value looks
    like a secret, and for any variable holding a URL with a password in it."""
    found: dict[str, str] = {}
    for name, value in env.items():
        if (name_is_sensitive(name) and looks_like_secret(value)) or _url_judgement(value):
            found.setdefault(value, f"ENV_{_sanitised(name)}" if _sanitised(name) else "ENV_VALUE")
    return found


_ASSIGNMENT_LINE = re.compile(
    r"^[ \t]*(?:export[ \t]+|set[ \t]+-x[ \t]+|setenv[ \t]+)?[\"']?([A-Za-z_][\w.-]{0,80})[\"']?"
    r"[ \t]*(?:=|:(?!//))[ \t]*(\S[^\r\n]{0,2000}?)[ \t]*\r?$",
    re.MULTILINE,
)


AssignmentLine = tuple[int, int, str, str]  # start, end, name, value


_ASSIGNMENT_LINES = AtLineStarts(_ASSIGNMENT_LINE)


def assignment_lines(text: str) -> list[AssignmentLine]:
    """`(start, end, name, value)` of each `NAME=VALUE` / `export NAME=VALUE` / `NAME: value`
    line whose name looks sensitive and whose value looks like a secret."""
    found = []
    for match in _ASSIGNMENT_LINES.finditer(text):
        name, raw = match.group(1), match.group(2)
        if not name_is_sensitive(name):
            continue
        value = raw
        if raw[0] not in "'\"`" and " #" in raw:
            value = raw.split(" #", 1)[0].rstrip()  # a trailing comment
        value = strip_quotes(value)
        if value and looks_like_secret(value):
            start = match.start(2) + raw.find(value)
            found.append((start, start + len(value), name, value))
    return found


def env_file_values(text: str, lines: list[AssignmentLine] | None = None) -> dict[str, str]:
    """value -> type (PASSWORD, TOKEN, SECRET, API_KEY …) for `.env`-style lines in `text`
    (`lines`: its `assignment_lines`, when the caller has them)."""
    lines = assignment_lines(text) if lines is None else lines
    return {value: type_for_name(name) for _, _, name, value in lines}
