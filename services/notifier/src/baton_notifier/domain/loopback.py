"""Whether a request names this gateway on a loopback address, and comes from its own pages.

Dev sign-in mints a token for any name, which is safe only for the person at the machine. A
web page elsewhere can reach a gateway on 127.0.0.1 through DNS rebinding (its own name made to
resolve to 127.0.0.1); the browser then still sends that name as `Host` and, on a POST, the
page's `Origin`. Refusing every Host but a loopback one, and every Origin but the gateway's
own, keeps such a page out while the console (served by the gateway itself) and `curl` work.
"""

from __future__ import annotations

import ipaddress
import re

LOOPBACK_NAMES = frozenset({"localhost"})
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}

# `name[:port]` or `[ipv6][:port]`; nothing else (no user part, path or second colon).
_HOST = re.compile(
    r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[^\[\]:@/\\?#\s]+))(?::(?P<port>\d{1,5}))?"
)
_ORIGIN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<host>[^/?#]*)")


def split_host(host: str) -> tuple[str, int | None] | None:
    """`localhost:8080` -> (`localhost`, 8080), `[::1]` -> (`::1`, None); None if malformed."""
    match = _HOST.fullmatch(host)
    if match is None:
        return None
    port = int(match["port"]) if match["port"] else None
    if port is not None and port > 65535:
        return None
    return (match["v6"] or match["name"]).lower(), port


def is_loopback(name: str) -> bool:
    """`localhost`, or an IP address on the loopback network (127.0.0.0/8, ::1)."""
    if name.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_problem(host: str | None) -> str | None:
    """Why a `Host` header does not name a loopback address, or None when it does."""
    if not host:
        return "the request has no Host header"
    split = split_host(host)
    if split is None or not is_loopback(split[0]):
        return f"host {host!r} is not a loopback address (localhost, 127.0.0.1 or [::1])"
    return None


def origin_problem(origin: str | None, scheme: str, host: str) -> str | None:
    """Why an `Origin` header is not this gateway's own (`scheme://host`); None if it is or
    if there is none (a browser always sends one with a POST; curl and scripts do not)."""
    if origin is None:
        return None
    own = f"{scheme}://{host}"
    if _origin_key(origin) is None or _origin_key(origin) != _origin_key(own):
        return f"origin {origin!r} is not this gateway's own ({own!r})"
    return None


def _origin_key(origin: str) -> tuple[str, str, int | None] | None:
    match = _ORIGIN.fullmatch(origin)
    split = split_host(match["host"]) if match else None
    if match is None or split is None:
        return None
    scheme = match["scheme"].lower()
    name, port = split
    return scheme, name, DEFAULT_PORTS.get(scheme) if port is None else port
