"""Facts about a model endpoint that policies depend on: which wire API it speaks, and is it
this machine?

Shared by `config` (a preset names its API; a loopback preset needs no scrubbing by default),
`llm` (the broker picks its adapter by API; loopback servers are never reached through a proxy)
and the rooms above them. It lives outside both because neither `config` nor `llm` may import
the other; it imports nothing from aish.

Loopback endpoints are local model servers: free, private (secrets need no scrubbing) and never
reached through an HTTP proxy from the environment.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["Api", "is_loopback_endpoint", "shown_endpoint"]

# The wire formats a preset may name. The broker has one adapter per name
# (`llm.adapters.ADAPTERS`); a test checks the two agree.
Api = Literal["openai", "anthropic"]


def is_loopback_endpoint(url: str) -> bool:
    """True when the URL's host is this machine: 127.0.0.0/8, ::1 or `localhost`."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    if not host:
        return False
    host = host.rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


# `scheme://user:password@` up to the last `@` of the authority (a raw `@` in a password too).
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@")


def shown_endpoint(url: str) -> str:
    """The URL as a message may quote it: credentials written into it (`user:pass@`, which
    is sent as Basic auth) replaced by `***`, so an error never shows or logs them."""
    return _USERINFO.sub(r"\1***@", url)
