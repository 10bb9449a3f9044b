"""Facts about an endpoint URL that policies depend on: is it this machine?

Loopback endpoints are local model servers: free, private (secrets need no scrubbing) and never
reached through an HTTP proxy from the environment.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


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
