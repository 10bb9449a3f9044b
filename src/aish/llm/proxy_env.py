"""Would httpx send a request to this URL through a proxy from the environment?

`transport.client_for` asks, to choose between aish's own HTTP/1.1 client (which has no proxy
support) and httpx (which reads the proxy variables when `trust_env` is on). The answer follows
httpx 0.28's reading of the environment:

* the proxies are urllib's `getproxies()`: any `<scheme>_proxy` variable, in any case, the
  lower-case spelling winning; on macOS and Windows the system settings when no variable is set;
* `http_proxy`, `https_proxy` and `all_proxy` are the ones httpx uses;
* `no_proxy` lists exceptions: `*` (no proxy at all), a host (itself and its subdomains), a
  `.domain` (its subdomains only), an IP address, optionally a `:port`, or a `scheme://host`.

Where the two readings could differ, this one errs towards "proxied": then httpx makes the
request and decides for itself, so a proxy the user set is never bypassed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from urllib.parse import urlsplit

__all__ = ["environment_proxies", "proxy_applies"]


def environment_proxies(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Proxy URLs by scheme (`http`, `https`, `all`, ...), plus `no` for the exceptions."""
    if environ is None and sys.platform in ("darwin", "win32"):
        import urllib.request  # the system's proxy settings, as httpx reads them there

        return dict(urllib.request.getproxies())
    env = os.environ if environ is None else environ
    proxies: dict[str, str] = {}
    for name, value in env.items():  # any spelling first...
        key = name.lower()
        if key.endswith("_proxy") and value:
            proxies[key[: -len("_proxy")]] = value
    if "REQUEST_METHOD" in env:
        # Under CGI, HTTP_PROXY may come from a client's `Proxy:` header (httpoxy): only the
        # lower-case spelling counts there, as in urllib.
        proxies.pop("http", None)
    # ...then, as urllib reads it, every name whose `_proxy` is lower case decides, in the
    # environment's order (`HTTPS_proxy` counts here, and may set again what an empty
    # `https_proxy` dropped).
    for name, value in env.items():
        if name.endswith("_proxy"):
            scheme = name.lower()[: -len("_proxy")]
            if value:
                proxies[scheme] = value
            else:
                proxies.pop(scheme, None)
    return proxies


def proxy_applies(url: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether httpx, trusting the environment, would route `url` through a proxy."""
    try:
        parts = urlsplit(url)
        scheme, host, port = parts.scheme.lower(), (parts.hostname or ""), parts.port
    except ValueError:
        return True  # let httpx judge (and report) a URL this reading cannot take apart
    proxies = environment_proxies(environ)
    if not (proxies.get(scheme) or proxies.get("all")):
        return False
    for entry in (e.strip() for e in proxies.get("no", "").split(",")):
        if entry == "*":
            return False
        if entry and _exempts(entry, scheme, host, port):
            return False
    return True


def _exempts(entry: str, scheme: str, host: str, port: int | None) -> bool:
    """Whether one `no_proxy` entry exempts the URL, as httpx's patterns match it."""
    if "://" in entry:  # scheme://host[:port]: that scheme only, the host as written
        entry_scheme, _, rest = entry.partition("://")
        if entry_scheme.lower() not in ("all", scheme):
            return False
        pattern = rest
    else:  # httpx prefixes a bare domain with `*`: the domain and its subdomains
        bare = entry.split("/", 1)[0]  # an IP range `10.0.0.0/8` names its first address
        pattern = bare if _is_address(bare) or bare.lower() == "localhost" else "*" + bare
    pattern_host, pattern_port = _split_port(pattern.split("/", 1)[0])
    if pattern_host is None:
        return False
    # httpx compares an address as written (`2001:DB8::1` exempts nothing: URL hosts are
    # lower case) and never matches a punycode name (it compares the decoded form): both
    # leave the request to the proxy, and so does this reading.
    if not _is_address(pattern_host.strip("[]")):
        pattern_host = pattern_host.lower()
    if "xn--" in pattern_host or "xn--" in host:
        return False
    if pattern_port is not None:
        # httpx drops a URL's default port, so an entry with a port never matches it.
        url_port = None if port == {"http": 80, "https": 443}.get(scheme) else port
        if pattern_port != url_port:
            return False
    if pattern_host.startswith("*."):  # subdomains only
        return host.endswith(pattern_host[1:]) and len(host) > len(pattern_host) - 1
    if pattern_host.startswith("*"):  # the domain and its subdomains
        domain = pattern_host[1:]
        return bool(domain) and (host == domain or host.endswith("." + domain))
    return host == pattern_host


def _split_port(text: str) -> tuple[str | None, int | None]:
    """(host, port) of `host`, `host:port`, `[v6]` or `[v6]:port`; (None, None) when it is
    none of these (the entry then exempts nothing: httpx decides)."""
    if text.startswith("["):
        address, _, rest = text[1:].partition("]")
        if not rest:
            return address, None
        return (address, int(rest[1:])) if rest[1:].isdigit() and rest[0] == ":" else (None, None)
    if text.count(":") > 1 and _is_address(text):
        return text, None
    host, colon, digits = text.partition(":")
    if not colon:
        return host, None
    return (host, int(digits)) if digits.isdigit() else (None, None)


def _is_address(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
