"""Which URLs tools and skills may fetch: allowed schemes, a deny-list of hosts and networks.

The deny-list holds for names too: `UrlPolicy.checked_addresses` resolves a host and refuses
it when any of its addresses is in a denied network; `fetch_transport` connects only to the
addresses it returns. Apart from the fetching (`httpx_fetch`) so the rules read in one place.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable

import httpx

from baton_messaging.process import SettingUnusable
from baton_workflow.service.step_ports import StepActionFailed

SNIPPET_CHARS = 200

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]


async def resolve(host: str, port: int) -> list[str]:
    """The addresses of `host`, in the order the system prefers them, without repeats."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _short(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _unspecified(host: str) -> bool:
    """`0.0.0.0` or `::`: connecting to it reaches this machine's own listeners, like loopback.
    Refused whenever networks are denied, listed or not: a deny-list meant to keep tools off
    this machine would otherwise miss it (`[::]` is not in `::1/128`)."""
    ip = _ip(host)
    return ip is not None and ip.is_unspecified


class UrlPolicy:
    """The URL and host checks of `HttpxFetcher`, kept as its base class so that its
    attributes (`schemes`, `denied_hosts`, `denied_networks`, `resolve`) stay the fetcher's own
    and a resolver set on a fetcher is the one its checks use."""

    def __init__(
        self, *, schemes: tuple[str, ...], denied_hosts: tuple[str, ...], resolver: Resolver
    ) -> None:
        self.schemes = tuple(s.lower() for s in schemes)
        self.denied_hosts = tuple(h.lower().rstrip(".") for h in denied_hosts)
        self.denied_networks = _networks(self.denied_hosts)
        self.resolve = resolver

    def url_problem(self, url: str) -> str | None:
        """Why `url` may not be fetched (bad URL, scheme not allowed, denied host), or None."""
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL as exc:
            return f"not a valid URL ({exc}): {_short(url)!r}"
        if parsed.scheme not in self.schemes:
            return f"only {', '.join(self.schemes)} URLs are allowed, got {_short(url)!r}"
        if not parsed.host:
            return f"no host in {_short(url)!r}"
        if self._denied(parsed.host):
            return f"host {parsed.host!r} is on the denied hosts list"
        if self.denied_networks and _unspecified(parsed.host):
            return f"host {parsed.host!r} is an unspecified address, which reaches this machine"
        return None

    def _denied(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        for entry in self.denied_hosts:
            if entry.startswith(".") and (host.endswith(entry) or host == entry[1:]):
                return True
            if host == entry:
                return True
        return _ip(host) is not None and self.address_denied(host)

    def address_denied(self, address: str) -> bool:
        """Whether an IP address is in a denied network (an IPv4-mapped IPv6 one as its IPv4)."""
        ip = _ip(address)
        if ip is None:
            return False
        candidates: list[Address] = [ip]
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            candidates.append(ip.ipv4_mapped)
        return any(c in network for c in candidates for network in self.denied_networks)

    async def checked_addresses(self, host: str, port: int, timeout: float | None) -> list[str]:
        """The addresses of `host`; `StepActionFailed` when any is denied, `ConnectError` when
        it has none."""
        try:
            async with asyncio.timeout(timeout):
                addresses = await self.resolve(host, port)
        except TimeoutError:
            raise httpx.ConnectTimeout(f"resolving {host} took over {timeout:g}s") from None
        except OSError as exc:
            raise httpx.ConnectError(str(exc)) from None
        if not addresses:
            raise httpx.ConnectError(f"{host} has no address")
        for address in addresses:
            if self.address_denied(address):
                raise StepActionFailed(
                    f"host {host!r} resolves to {address}, which is on the denied hosts list"
                )
            if _unspecified(address):
                raise StepActionFailed(
                    f"host {host!r} resolves to {address}, an unspecified address, which "
                    "reaches this machine"
                )
        return addresses


def _ip(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    """The deny-list's networks: `a.b.c.d/n` entries, and bare addresses as one-address ones.
    A malformed network is a configuration error, not an entry that silently matches nothing."""
    networks: list[Network] = []
    for entry in entries:
        if "/" in entry:
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                raise SettingUnusable(
                    f"BATON_WORKFLOW_TOOL_DENIED_HOSTS: {entry!r} is not an IP network"
                ) from None
        elif (ip := _ip(entry)) is not None:
            networks.append(ipaddress.ip_network(ip))
    return tuple(networks)
