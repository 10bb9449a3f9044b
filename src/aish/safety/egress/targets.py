"""Where a network command connects: the host and port its words name.

Each program names its destination its own way: a URL or a bare `host[:port]/path` (curl,
wget, httpie), `host port` (nc, telnet), `[user@]host` or `ssh://…` (ssh), `host:path` and
`rsync://` (scp, rsync), a remote URL or name (git), a DNS name (dig, nslookup, getent hosts),
`TCP:host:port` (socat), `-connect host:port` (openssl s_client). A host written with an
expansion is reported as computed (None). Some shapes also say what leaves (`scp f host:`
uploads f; `git push` the commits).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from aish.safety.bash.command_walk import COMMAND_OUTPUT, DYNAMIC_VALUE, Arg
from aish.safety.egress.programs import Program, read_options

__all__ = ["Target", "targets"]


@dataclass(frozen=True)
class Target:
    host: str | None
    port: int | None
    text: str
    carries: tuple[str, ...] = ()


_URL = re.compile(
    r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?:[^@/?#]*@)?"
    r"(?P<host>\[[^\]]*\]|[^:/?#\s]*)(?::(?P<port>[0-9]+))?"
)
_BARE = re.compile(
    r"^(?:[^@/\s]*@)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]*)(?::(?P<port>[0-9]+))?(?:[/?#]|$)"
)
_PORTS = {
    "http": 80, "https": 443, "ftp": 21, "ftps": 990, "sftp": 22, "scp": 22, "ssh": 22,
    "git": 9418, "rsync": 873, "ws": 80, "wss": 443, "smtp": 25, "smtps": 465, "ldap": 389,
    "ldaps": 636, "gopher": 70, "telnet": 23, "dict": 2628, "tftp": 69, "imap": 143,
    "imaps": 993, "pop3": 110, "pop3s": 995, "mqtt": 1883, "redis": 6379, "git+ssh": 22,
}  # fmt: skip
# scp/rsync `[user@]host:path`; a path with a slash before the colon is local.
_REMOTE_PATH = re.compile(r"^(?:[^@/:\s]+@)?(?P<host>\[[^\]]+\]|[^/:\s]+):(?!//)")
_GIT_GLOBAL_VALUES = frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace"))
_GIT_NETWORK = frozenset(("push", "fetch", "pull", "clone", "ls-remote", "send-email"))
_GIT_CARRIES = {"push": "the repository's commits", "send-email": "patches"}
_LOOKUP_DATABASES = frozenset(("hosts", "ahosts", "ahostsv4", "ahostsv6", "networks"))
_DNS_TYPES = frozenset(
    "A AAAA MX NS TXT SOA CNAME PTR SRV ANY CAA DS DNSKEY HTTPS SVCB IN CH HS AXFR IXFR".split()  # noqa: SIM905
)
_SOCAT_NETWORK = re.compile(
    r"(?i)^(tcp[46]?|tcp[46]?-connect|udp[46]?|udp[46]?-(sendto|datagram|connect)|"
    r"openssl(-connect)?|ssl|socks4a?|socks5|proxy(-connect)?|sctp[46]?(-connect)?|dccp[46]?)"
    r":(?P<rest>.*)$"
)
_SOCAT_FILE = re.compile(r"(?i)^(file|open|gopen|create|pipe):(?P<file>[^,]*)")
_SOCAT_COMMAND = re.compile(r"(?i)^(exec|system):")


def targets(program: str, spec: Program, args: Sequence[Arg]) -> list[Target] | None:
    """The destinations the words name; None when this use of the program sends nothing."""
    if program == "git":
        return _git(args)
    if program == "openssl":
        return _openssl(args)
    options = read_options(spec, args)
    operands = list(options.operands)
    shape = spec.shape
    if shape == "url":
        urls = [v for o, v in options.pairs if o == "--url" and v is not None] + operands
        if program in ("http", "https", "httpie", "xh", "xhs"):
            return _httpie(operands)
        return [_url(a, spec.default_port) for a in urls]
    if shape == "host_port":
        port = _port(operands[1]) if len(operands) > 1 else spec.default_port
        return [_host(operands[0], port)] if operands else []
    if shape == "ssh":
        port = next((_port(v) for o, v in options.pairs if o == "-p" and v is not None), None)
        return [_url(operands[0], port or spec.default_port)] if operands else []
    if shape == "copy":
        return _copy(program, operands, options.pairs, spec.default_port)
    if shape == "lookup":
        return _lookup(program, operands)
    if shape == "probe":
        return [_host(operands[0], spec.default_port)] if operands else []
    if shape == "mail":
        return [_mail(a) for a in operands]
    if shape == "client":
        return []  # the service its configuration or options name
    return _socat(operands)


def _url(arg: Arg, default_port: int | None) -> Target:
    text = _literal_text(arg)
    match = _URL.match(text)
    if match is not None:
        scheme = match.group("scheme").lower()
        port = _port_of(match.group("port")) or _PORTS.get(scheme, default_port)
        return Target(_host_or_none(match.group("host")), port, arg.text)
    if text.startswith(":"):  # httpie's `:3000/path` is localhost
        text = "localhost" + text
    bare = _BARE.match(text)
    if bare is None or not bare.group("host"):
        return Target(None, None, arg.text)
    port = _port_of(bare.group("port")) or default_port or 80
    return Target(_host_or_none(bare.group("host")), port, arg.text)


def _host(arg: Arg, port: int | None) -> Target:
    text = _literal_text(arg)
    host, _sep, written = text.partition(":") if text.count(":") == 1 else (text, "", "")
    return Target(_host_or_none(host), _port_of(written) or port, arg.text)


def _copy(
    program: str, operands: list[Arg], pairs: Sequence[tuple[str, Arg | None]], default: int | None
) -> list[Target]:
    port_option = "--port" if program == "rsync" else "-P"
    port = next((_port(v) for o, v in pairs if o == port_option and v is not None), default)
    found: list[Target] = []
    for index, arg in enumerate(operands):
        text = _literal_text(arg)
        remote = _URL.match(text) or _REMOTE_PATH.match(text)
        if remote is None or text.startswith(("/", ".", "~")):
            continue
        last = index == len(operands) - 1 and index > 0
        sources = [a.text for a in operands[:index]] if last else []
        carries = tuple(f"the file {s}" for s in sources)
        if program == "sftp":
            target = _url(arg, port)
            found.append(Target(target.host, target.port, arg.text, carries))
        else:
            host = _host_or_none(remote.group("host"))
            found.append(Target(host, port, arg.text, carries))
    return found


def _git(args: Sequence[Arg]) -> list[Target] | None:
    index = 0
    while index < len(args) and (args[index].value or "").startswith("-"):
        index += 2 if args[index].value in _GIT_GLOBAL_VALUES else 1
    if index >= len(args):
        return None
    subcommand = args[index].value or ""
    rest = [a for a in args[index + 1 :] if not (a.value or "").startswith("-")]
    remote = any((a.value or "").startswith("--remote") for a in args[index + 1 :])
    if subcommand not in _GIT_NETWORK and not (subcommand == "archive" and remote):
        return None
    carries = (_GIT_CARRIES[subcommand],) if subcommand in _GIT_CARRIES else ()
    if not rest:
        return [Target(None, None, "the default remote", carries)]
    first = rest[0]
    text = _literal_text(first)
    if _URL.match(text) or _REMOTE_PATH.match(text):
        target = _url(first, 22) if _URL.match(text) else _copy("scp", [first], (), 22)[0]
        return [Target(target.host, target.port, first.text, carries)]
    return [Target(None, None, f"the remote {first.text}", carries)]


def _openssl(args: Sequence[Arg]) -> list[Target] | None:
    if not args or args[0].value not in ("s_client", "s_time"):
        return None
    values = [a.value for a in args]
    for index, value in enumerate(values[:-1]):
        if value in ("-connect", "-host"):
            return [_host(args[index + 1], 443)]
    return [Target(None, 443, "the default host")]


def _lookup(program: str, operands: list[Arg]) -> list[Target] | None:
    names = operands
    if program == "getent":
        if not operands or operands[0].value not in _LOOKUP_DATABASES:
            return None
        names = operands[1:]
    elif program in ("dig", "drill"):
        names = [a for a in operands if not (a.value or "").startswith(("+", "@"))]
        names = [a for a in names if (a.value or "").upper() not in _DNS_TYPES]
    elif program in ("nslookup", "host"):
        names = operands[:1]
    return [Target(_host_or_none(_literal_text(a)), 53, a.text) for a in names]


def _mail(arg: Arg) -> Target:
    text = _literal_text(arg)
    domain = text.rpartition("@")[2] if "@" in text else None
    return Target(_host_or_none(domain) if domain else None, 25, arg.text)


def _socat(operands: list[Arg]) -> list[Target]:
    found: list[Target] = []
    others: list[str] = []
    for arg in operands:
        text = _literal_text(arg)
        network = _SOCAT_NETWORK.match(text)
        if network is None:
            others.append(text)
            continue
        address = network.group("rest").split(",", 1)[0]
        host, _sep, port = address.rpartition(":")
        found.append(Target(_host_or_none(host or address), _port_of(port), arg.text))
    carries: list[str] = []
    for text in others:
        file = _SOCAT_FILE.match(text)
        carries += [f"the file {file.group('file')}"] if file else []
        carries += ["a command's output"] if _SOCAT_COMMAND.match(text) else []
    return [Target(t.host, t.port, t.text, tuple(carries)) for t in found]


def _httpie(operands: list[Arg]) -> list[Target]:
    """httpie/xh: `[METHOD] URL [ITEM …]`; `f=@file`, `f:=@file` and `f@file` send a file."""
    method = len(operands) > 1 and (operands[0].value or "").isupper()
    words = operands[1:] if method else operands
    if not words:
        return []
    url, items = words[0], words[1:]
    files = [m.group("file") for a in items if (m := _HTTPIE_FILE.match(_literal_text(a)))]
    target = _url(url, 80)
    return [Target(target.host, target.port, target.text, tuple(f"the file {f}" for f in files))]


_HTTPIE_FILE = re.compile(r"^[^=:@\s]+(?:=@|:=@|@)(?P<file>.+)$")


def _literal_text(arg: Arg) -> str:
    """The word's value, or its text with quotes dropped when it expands at run time."""
    return arg.value if arg.value is not None else arg.text.replace('"', "").replace("'", "")


def _host_or_none(host: str | None) -> str | None:
    """A literal host name, or None when any of it is computed at run time."""
    if not host or any(m in host for m in ("$", "`", DYNAMIC_VALUE, COMMAND_OUTPUT, "AISH_")):
        return None
    return host


def _port(arg: Arg | None) -> int | None:
    return _port_of(arg.value) if arg is not None else None


def _port_of(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() and int(text) < 65536 else None
