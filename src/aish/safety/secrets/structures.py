"""Secrets named by the structure around them: an XML element or `key=`/`value=` attribute pair,
PHP's `define('DB_PASSWORD', …)` and `$config['pass'] = …`, a `.pgpass` line, a cookie with a
session-like name, a URL query parameter (`sig=`, `token=`, `X-Amz-Signature=`), a Java
`-Dx.password=` property in a process listing, a Kubernetes Secret's `data:`, and prose ("the
password is X").

As in `contexts`, the structure finds a candidate and the judgements of `values`
decide, so `<password>${DB_PASS}</password>`, `key=name` and "the password is required" stay.
Regexes are bounded and never nested: linear in the text. A span is `(start, end, type)`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from urllib.parse import unquote

from aish.safety.secrets.anchors import (
    AtLineStarts,
    fold,
    literal_first,
    matches_from,
    positions,
)
from aish.safety.secrets.values import (
    looks_like_password,
    looks_like_random_token,
    looks_like_secret,
    name_is_sensitive,
    type_for_name,
)

Span = tuple[int, int, str]

_XML_ELEMENT = re.compile(
    r"<([A-Za-z_][\w.:-]{0,80})(?:[ \t][^<>]{0,300})?>([^<>\r\n]{1,500})</\1>"
)
_XML_NAMED = re.compile(
    r"""<([A-Za-z_][\w:-]{0,40})[ \t][^<>]{0,300}?\b(?:key|name)[ \t]*=[ \t]*"""
    r"""(["'])([^"'<>]{1,100})\2(?:[^<>]{0,300}?\bvalue[ \t]*=[ \t]*(["'])"""
    r"""([^"'<>\r\n]{1,500})\4|[^<>]{0,300}?>([^<>\r\n]{1,500})</\1>)"""
)
_PHP_DEFINE = re.compile(
    literal_first(
        r"""\bdefine[ \t]*\([ \t]*(["'])([A-Za-z_]\w{0,80})\1[ \t]*,[ \t]*"""
        r"""(["'])([^"'\r\n]{1,500})\3"""
    )
)
_SUBSCRIPT = re.compile(
    r"""\[[ \t]*(["'])([A-Za-z_][\w.-]{0,80})\1[ \t]*\][ \t]*=(?!=)[ \t]*"""
    r"""(["'])([^"'\r\n]{1,500})\3"""
)
_PGPASS = re.compile(
    r"^[ \t]*(?:[\w.-]{1,253}|\*):(?:\d{1,5}|\*):(?:[^:\s]{1,63}|\*):(?:[^:\s]{1,63}|\*):"
    r"([^\s]{1,300})[ \t]*\r?$",
    re.MULTILINE,
)
_COOKIE_HEADER = re.compile(  # tried where "cookie" starts: `Cookie:`, `Set-Cookie:`, `--cookie`
    r"(?i)cookie(?:[ \t]*:|(?<=--cookie)(?:[ \t]+|=)[\"']?)[ \t]*([^\r\n\"']{1,4000})"
)
_CURL_COOKIE = re.compile(r"-b(?<![\w-]-b)(?:[ \t]+|=)[\"']?[ \t]*([^\r\n\"']{1,4000})")
_COOKIE_PAIR = re.compile(r"(?:^|;)[ \t]*([^=;\s]{1,100})=([^;\s]{1,2000})")
_COOKIE_FILE_LINE = re.compile(
    r"^[^\t\r\n]{1,253}\t(?:TRUE|FALSE)\t[^\t\r\n]{1,500}\t(?:TRUE|FALSE)\t\d{1,20}\t"
    r"([^\t\r\n]{1,200})\t([^\t\r\n]{1,4000})\r?$",
    re.MULTILINE,
)
_SESSION_NAME = re.compile(r"(?i)sess|^sid$|\.sid$|_sid$|auth|token|jwt|remember|secret|csrf|xsrf")
_QUERY_PARAM = re.compile(r"[?&;]([A-Za-z_][\w.-]{0,60})=([^&\s#\"'<>;]{1,4000})")
_SIGNATURE_NAMES = re.compile(
    r"(?i)^(?:sig|signature|x-amz-signature|x-goog-signature|x-amz-security-token|"
    r"x-goog-credential|sas|code_verifier|client_secret|apikey|api_key|key|access_token|"
    r"id_token|refresh_token|token|auth|password|pass|pwd|secret)$"
)
_JAVA_PROPERTY = re.compile(r"-D(?<![\w-]-D)([A-Za-z_][\w.-]{0,100})=(\S{1,500})")
_PROSE = re.compile(
    r"(?i)\b(password|passwd|passphrase|passcode|pw|pwd|api[ -]?key|access[ -]key|token|secret)"
    r"(?:[ \t]+(?:for|of|on)[ \t]+[\w.@-]{1,40})?"
    r"[ \t]+(?:(?:is[ \t]+|was[ \t]+|has[ \t]+been[ \t]+)?(?:set|changed|reset|updated)"
    r"[ \t]+to|is[ \t]+now|will[ \t]+be|is|was|to|=)[ \t]*:?[ \t]+"
    r"([^\s\"'`]{1,300})"
)
_K8S_SECRET = re.compile(r"""(?m)^[ \t]*kind:[ \t]*Secret[ \t]*$|"kind"[ \t]*:[ \t]*"Secret\"""")
_YAML_DATA = re.compile(r"^([ \t]*)(data|stringData):[ \t]*\r?$", re.MULTILINE)
_YAML_ENTRY = re.compile(r"([ \t]+)[\w.-]{1,253}:[ \t]*([^\s#]{1,100000})[ \t]*\r?(?:\n|$)")
_JSON_DATA = re.compile(r"\"(data|stringData)\"[ \t]*:[ \t]*\{([^{}]{0,100000})\}")
_JSON_ENTRY = re.compile(r"\"[\w.-]{1,253}\"[ \t]*:[ \t]*\"([^\"\\]{1,100000})\"")


def _judge_for(name: str) -> Callable[[str], bool]:
    """How sure a value must look: a password-ish name says so outright."""
    return looks_like_password if type_for_name(name) == "PASSWORD" else looks_like_secret


def _spaced_secret(value: str) -> bool:
    """A quoted value with a few spaces inside (WordPress salts): the rest must look secret."""
    inner = value.strip()
    return inner == value and inner.count(" ") <= 3 and looks_like_secret(inner.replace(" ", ""))


def _named_value(name: str, value: str) -> bool:
    if not name_is_sensitive(name):
        return False
    return _judge_for(name)(value) or (" " in value and _spaced_secret(value))


def xml_spans(text: str) -> Iterator[Span]:
    """`<password>X</password>`, `<add key="ApiPassword" value="X"/>`, `<entry key="k">X</…>`."""
    if "</" in text:
        for match in _XML_ELEMENT.finditer(text):
            name, value = match.group(1).rsplit(":", 1)[-1], match.group(2).strip()
            if value and _named_value(name, value):
                start = match.start(2) + match.group(2).find(value)
                yield start, start + len(value), type_for_name(name)
    if "=" in text:
        for match in _XML_NAMED.finditer(text):
            group = 5 if match.group(5) is not None else 6
            name, value = match.group(3), match.group(group).strip()
            if value and _named_value(name, value):
                start = match.start(group) + match.group(group).find(value)
                yield start, start + len(value), type_for_name(name)


def code_spans(text: str) -> Iterator[Span]:
    """PHP `define('DB_PASSWORD', 'X')` and `$config['smtp_pass'] = "X"` (Python dicts too)."""
    for pattern, literal in ((_PHP_DEFINE, "define"), (_SUBSCRIPT, "]")):
        if literal not in text:
            continue
        for match in pattern.finditer(text):
            if _named_value(match.group(2), match.group(4)):
                yield match.start(4), match.end(4), type_for_name(match.group(2))


_PGPASS_LINES = AtLineStarts(_PGPASS)


def pgpass_spans(text: str) -> Iterator[Span]:
    """`host:port:database:user:password`, the `.pgpass` line."""
    for match in _PGPASS_LINES.finditer(text):
        if looks_like_password(match.group(1)):
            yield match.start(1), match.end(1), "PASSWORD"


def cookie_spans(text: str, folded: str | None = None) -> Iterator[Span]:
    """Session-like cookies in `Cookie:`/`Set-Cookie:` headers, `curl -b`, cookie jar files."""
    headers = list(_matches_at(_COOKIE_HEADER, text, ("cookie",), folded))
    if "-b" in text:
        headers.extend(_CURL_COOKIE.finditer(text))
    for header in headers:
        for pair in _COOKIE_PAIR.finditer(header.group(1)):
            if _session_cookie(pair.group(1), pair.group(2)):
                offset = header.start(1)
                yield offset + pair.start(2), offset + pair.end(2), "SESSION"
    if "\tTRUE\t" in text or "\tFALSE\t" in text:
        for match in _COOKIE_FILE_LINE.finditer(text):
            name, value = match.group(1), match.group(2)
            if _session_cookie(name, value) or looks_like_random_token(value):
                yield match.start(2), match.end(2), "SESSION"


def _session_cookie(name: str, value: str) -> bool:
    if not (_SESSION_NAME.search(name) or name_is_sensitive(name)):
        return False
    plain = unquote(value)
    return looks_like_secret(plain, 16) or looks_like_random_token(plain)


def query_spans(text: str) -> Iterator[Span]:
    """`?sig=X`, `&token=X`, `X-Amz-Signature=X`: parameters that carry a credential."""
    if "=" not in text:
        return
    for match in _QUERY_PARAM.finditer(text):
        name, value = match.group(1), match.group(2)
        if not (_SIGNATURE_NAMES.match(name) or name_is_sensitive(name)):
            continue
        plain = unquote(value)
        if looks_like_secret(plain) or looks_like_random_token(plain, 12):
            yield match.start(2), match.end(2), "URL_" + type_for_name(name.replace("-", "_"))


def java_property_spans(text: str) -> Iterator[Span]:
    """`-Dspring.datasource.password=X` on a command line or in a process listing."""
    if "-D" not in text:
        return
    for match in _JAVA_PROPERTY.finditer(text):
        name, value = match.group(1), match.group(2).strip("\"'")
        if _named_value(name, value):
            start = match.start(2) + match.group(2).find(value)
            yield start, start + len(value), type_for_name(name)


def prose_spans(text: str, folded: str | None = None) -> Iterator[Span]:
    """ "the password is X", "pw: X", "the API key for staging is X", "set it to X"."""
    for match in _matches_at(_PROSE, text, _PROSE_HEADS, folded):
        word, value = match.group(1).lower(), match.group(2).rstrip(".,;:!?)]}")
        password = word.startswith("pass") or word in ("pw", "pwd")
        judged = (
            looks_like_password(value, 8 if word in ("pw", "pwd") else 6)
            if password
            else looks_like_secret(value, 12) or looks_like_random_token(value)
        )
        if judged:
            yield match.start(2), match.start(2) + len(value), "PASSWORD" if password else "TOKEN"


_PROSE_HEADS = ("pass", "pw", "api", "access", "token", "secret")


def _matches_at(
    pattern: re.Pattern[str], text: str, heads: tuple[str, ...], folded: str | None
) -> Iterator[re.Match[str]]:
    """`pattern`'s matches, tried only where one of `heads` starts (in any case): one `find`
    per head in C beats the regex engine trying a case-blind alternation at every position."""
    yield from matches_from(
        pattern, text, positions(fold(text) if folded is None else folded, heads)
    )


def kubernetes_secret_spans(text: str) -> Iterator[Span]:
    """Every value under a Kubernetes Secret's `data:` or `stringData:`."""
    for start, end, _ in _kubernetes_entries(text):
        yield start, end, "K8S_SECRET"


def kubernetes_secret_values(text: str) -> dict[str, str]:
    """value -> type for the decoded `data:` values of Kubernetes Secrets in `text`: a pod
    that prints one later prints it decoded."""
    found: dict[str, str] = {}
    for start, end, encoded in _kubernetes_entries(text):
        if not encoded:
            continue
        try:
            decoded = base64.b64decode(text[start:end], validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        decoded = decoded.strip()
        if len(decoded) >= 6 and looks_like_password(decoded):
            found.setdefault(decoded, "K8S_SECRET")
    return found


def _kubernetes_entries(text: str) -> Iterator[tuple[int, int, bool]]:
    """(start, end, base64-encoded) of each value in a Secret's data maps."""
    if "Secret" not in text or not _is_kubernetes_secret(text):
        return
    for block in _YAML_DATA.finditer(text):
        indent, position = len(block.group(1)), block.end() + 1
        while entry := _YAML_ENTRY.match(text, position):
            if len(entry.group(1)) <= indent:
                break
            if _worth_scrubbing(entry.group(2)):
                yield entry.start(2), entry.end(2), block.group(2) == "data"
            position = entry.end()
    for block in _JSON_DATA.finditer(text):
        for entry in _JSON_ENTRY.finditer(block.group(2)):
            if _worth_scrubbing(entry.group(1)):
                offset = block.start(2)
                yield offset + entry.start(1), offset + entry.end(1), block.group(1) == "data"


def _is_kubernetes_secret(text: str) -> bool:
    """Whether `_K8S_SECRET` matches: tried where each `kind` line starts, and at `"kind"`."""
    kind = text.find("kind")
    while kind != -1:  # one at a time: the first that tells is enough
        line = text.rfind("\n", 0, kind) + 1
        if _K8S_SECRET.match(text, line) or _K8S_SECRET.match(text, max(0, kind - 1)):
            return True
        kind = text.find("kind", kind + 1)
    return False


def _worth_scrubbing(value: str) -> bool:
    return len(value) >= 4 and not value.startswith(("$", "{{", "<"))


def structure_spans(text: str, folded: str | None = None) -> Iterator[Span]:
    folded = fold(text) if folded is None else folded
    yield from xml_spans(text)
    yield from code_spans(text)
    yield from pgpass_spans(text)
    yield from cookie_spans(text, folded)
    yield from query_spans(text)
    yield from java_property_spans(text)
    yield from prose_spans(text, folded)
    yield from kubernetes_secret_spans(text)
