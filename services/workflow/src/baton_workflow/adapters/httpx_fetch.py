"""HTTP for tools and skills over httpx: allowed schemes, a host deny-list, a size cap, timeouts.

Every failure is a one-line `StepActionFailed` naming the host or the URL. The body is read
as a stream and the read stops one byte past the cap, so an oversized answer is never held
whole in memory. Redirects are followed up to a limit; each hop passes the same URL checks.

The deny-list holds for names too: before each direct connection (the first URL and every
redirect) the host is resolved once, the request is refused when any of its addresses is in
a denied network, and the connection goes to a checked address, so a name that resolves
differently a moment later (DNS rebinding) cannot slip past. The name is kept for the Host
header, TLS SNI and the certificate check. A request sent through a proxy from the
environment (`HTTP_PROXY`, ...) is resolved by the proxy, which must enforce its own rules.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import os
import re
import socket
import ssl
import urllib.request
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

import httpx

from baton_workflow.service.step_ports import StepActionFailed, StepTimedOut

SNIPPET_CHARS = 200
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_ERRNO = re.compile(r"^\[Errno -?\d+\]\s*")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]


async def resolve(host: str, port: int) -> list[str]:
    """The addresses of `host`, in the order the system prefers them, without repeats."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class HttpRequest:
    """One request: method, URL, headers, optional body and query parameters."""

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | None = None
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HttpResponse:
    """A 2xx answer, its body decoded by its charset (UTF-8 when none is given)."""

    status: int
    url: str
    headers: Mapping[str, str]
    content_type: str
    text: str
    size: int


def header_problem(raw: str) -> str | None:
    """Why `raw` is not a JSON object of header names to string values, or None."""
    try:
        headers = json.loads(raw)
    except ValueError as exc:
        return f'not valid JSON ({exc}); expected an object like {{"Accept": "text/plain"}}'
    if not isinstance(headers, dict):
        return f"expected a JSON object of header names to strings, got {type(headers).__name__}"
    for name, value in headers.items():
        if not _HEADER_NAME.match(name):
            return f"{name!r} is not a valid header name"
        if not isinstance(value, str):
            return f"header {name!r} must be a string, got {type(value).__name__}"
        if "\r" in value or "\n" in value:
            return f"header {name!r} holds a line break"
    return None


def _short(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _reason(exc: Exception) -> str:
    """What went wrong, in the socket's words where there is one: httpx wraps a refused
    connection as "All connection attempts failed", which hides why."""
    cause = _socket_error(exc)
    if cause is not None:
        return cause
    return _ERRNO.sub("", str(exc)) or type(exc).__name__


def _socket_error(exc: BaseException) -> str | None:
    """The message of the innermost OSError with an errno in `exc`'s chain, if any."""
    found, seen = None, 0
    link: BaseException | None = exc
    while link is not None and seen < 10:  # a chain is short; a cycle is not followed
        if isinstance(link, OSError) and link.errno is not None:
            if isinstance(link, socket.gaierror) and link.strerror:
                found = link.strerror
            elif link.errno > 0:
                found = os.strerror(link.errno)
        link, seen = link.__cause__ or link.__context__, seen + 1
    return found


def _unspecified(host: str) -> bool:
    """`0.0.0.0` or `::`: connecting to it reaches this machine's own listeners, like loopback.
    Refused whenever networks are denied, listed or not: a deny-list meant to keep tools off
    this machine would otherwise miss it (`[::]` is not in `::1/128`)."""
    ip = _ip(host)
    return ip is not None and ip.is_unspecified


def _where(url: httpx.URL) -> str:
    return f"{url.host}:{url.port}" if url.port else url.host


class HttpxFetcher:
    """Fetches URLs within the configured limits; one short-lived client per call."""

    def __init__(
        self,
        *,
        max_bytes: int,
        max_redirects: int,
        schemes: tuple[str, ...],
        denied_hosts: tuple[str, ...],
        user_agent: str,
        resolver: Resolver = resolve,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.schemes = tuple(s.lower() for s in schemes)
        self.denied_hosts = tuple(h.lower().rstrip(".") for h in denied_hosts)
        self.denied_networks = _networks(self.denied_hosts)
        self.user_agent = user_agent
        self.resolve = resolver
        self._ssl = ssl_context or _trust_store()

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

    async def fetch(self, request: HttpRequest, timeout: float) -> HttpResponse:
        """Send `request`; a non-2xx answer, a dead host, a timeout or a big body fail it."""
        problem = self.url_problem(request.url)
        if problem:
            raise StepActionFailed(problem)
        url = httpx.URL(request.url)
        try:
            async with asyncio.timeout(timeout):  # httpx bounds each phase; this, the whole call
                return await self._send(request, timeout)
        except (httpx.TimeoutException, TimeoutError):
            raise StepTimedOut(f"no response from {_where(url)} within {timeout:g}s") from None
        except httpx.TooManyRedirects:
            raise StepActionFailed(
                f"more than {self.max_redirects} redirects from {_short(request.url)}"
            ) from None
        except httpx.ConnectError as exc:
            raise StepActionFailed(f"cannot reach {_where(url)}: {_reason(exc)}") from None
        except httpx.HTTPError as exc:
            raise StepActionFailed(f"request to {_where(url)} failed: {_reason(exc)}") from None

    async def _send(self, request: HttpRequest, timeout: float) -> HttpResponse:
        async with (
            self._client(timeout) as client,
            client.stream(
                request.method,
                request.url,
                headers=dict(request.headers),
                content=request.body,
                params=dict(request.params) or None,
            ) as response,
        ):
            body, over = await self._read(response)
            text = _decode(body, response.charset_encoding)
            final = str(response.url)
            if not response.is_success:
                snippet = f": {_short(text)}" if text.strip() else ""
                raise StepActionFailed(
                    f"HTTP {response.status_code} {response.reason_phrase} from "
                    f"{_short(final)}{snippet}"
                )
            if over:
                raise StepActionFailed(
                    f"response larger than {self.max_bytes} bytes from {_short(final)}"
                )
            return HttpResponse(
                status=response.status_code,
                url=final,
                headers=dict(response.headers),
                content_type=response.headers.get("content-type", ""),
                text=text,
                size=len(body),
            )

    async def _read(self, response: httpx.Response) -> tuple[bytes, bool]:
        """At most `max_bytes` of the body, and whether there was more."""
        declared = response.headers.get("content-length", "")
        if response.is_success and declared.isdigit() and int(declared) > self.max_bytes:
            return b"", True
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > self.max_bytes:
                return b"".join(chunks)[: self.max_bytes], True
        return b"".join(chunks), False

    def _client(self, timeout: float) -> httpx.AsyncClient:
        # A transport of one's own turns off httpx's proxies from the environment; they are
        # mounted again from httpx's own reading of it, so HTTP_PROXY / NO_PROXY act as before.
        mounts: dict[str, httpx.AsyncBaseTransport | None] = {
            pattern: None
            if proxy is None
            else httpx.AsyncHTTPTransport(verify=self._ssl, proxy=proxy)
            for pattern, proxy in environment_proxies().items()
        }
        transport = _CheckedTransport(self)
        return httpx.AsyncClient(
            transport=transport,
            mounts=mounts,
            timeout=httpx.Timeout(timeout),
            follow_redirects=True,
            max_redirects=self.max_redirects,
            headers={"User-Agent": self.user_agent},
            event_hooks={"request": [self._check_hop, transport.count_hop]},
        )

    async def _check_hop(self, request: httpx.Request) -> None:
        """Redirects pass the same checks as the first URL (a redirect to a denied host fails)."""
        problem = self.url_problem(str(request.url))
        if problem:
            raise StepActionFailed(f"redirect refused: {problem}")


def environment_proxies(
    proxies: Mapping[str, str] | None = None,
) -> dict[str, str | None]:
    """httpx mounts for the proxies of the environment, as httpx reads them for a client of
    its own: `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` by scheme (a proxy without a scheme
    is `http://`), and each `NO_PROXY` entry as a direct route (None) after curl's rules:
    `example.com` is that domain and its subdomains, `.example.com` only its subdomains, an
    IP address or `localhost` only itself, `*` no proxy at all.

    `proxies` is what `urllib.request.getproxies()` gives (the environment, read each call).
    """
    found = urllib.request.getproxies() if proxies is None else proxies
    mounts: dict[str, str | None] = {}
    for scheme in ("http", "https", "all"):
        if proxy := found.get(scheme):
            mounts[f"{scheme}://"] = proxy if "://" in proxy else f"http://{proxy}"
    for host in (entry.strip() for entry in found.get("no", "").split(",")):
        if host == "*":
            return {}
        if not host:
            continue
        if "://" in host:
            mounts[host] = None
            continue
        try:
            address = ipaddress.ip_address(host.split("/")[0])  # an address, or a network
        except ValueError:
            exact = host.lower() == "localhost"
            mounts[f"all://{host}" if exact else f"all://*{host}"] = None
        else:
            mounts[f"all://[{host}]" if address.version == 6 else f"all://{host}"] = None
    return mounts


class _CheckedTransport(httpx.AsyncHTTPTransport):
    """Direct connections of one fetch: each request (first URL or redirect) resolves its host
    once, is refused when an address is denied, and is sent to a checked address.

    The request handed on differs only in its URL's host (the address) and the `sni_hostname`
    extension (the name, for SNI and the certificate check); its headers, Host included, are
    the original ones. When an address cannot be connected to, the next checked one is tried.
    """

    def __init__(self, fetcher: HttpxFetcher) -> None:
        super().__init__(verify=fetcher._ssl)
        self._fetcher = fetcher
        self._hops = 0

    async def count_hop(self, request: httpx.Request) -> None:
        """The client's request hook: it sees every hop, proxied ones too, so a refusal here
        knows whether it refuses the first URL or a redirect."""
        self._hops += 1

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self._fetcher.denied_networks:
            # No address can be refused (the default list is empty): no lookup of our own.
            return await super().handle_async_request(request)
        url = request.url
        host = url.raw_host.decode("ascii")
        port = url.port or (443 if url.scheme == "https" else 80)
        timeouts = request.extensions.get("timeout", {})
        try:
            addresses = await self._fetcher.checked_addresses(host, port, timeouts.get("connect"))
        except StepActionFailed as exc:
            if self._hops > 1:
                raise StepActionFailed(f"redirect refused: {exc.message}") from None
            raise
        extensions = dict(request.extensions)
        if _ip(host) is None:
            extensions["sni_hostname"] = host
        for address in addresses[:-1]:
            try:
                return await super().handle_async_request(_to(request, address, extensions))
            except httpx.ConnectError:
                continue
        return await super().handle_async_request(_to(request, addresses[-1], extensions))


def _to(request: httpx.Request, address: str, extensions: dict[str, object]) -> httpx.Request:
    """`request` sent to `address`: the same headers (Host included), body and extensions."""
    return httpx.Request(
        request.method,
        request.url.copy_with(host=address),
        headers=request.headers,
        stream=request.stream,
        extensions=extensions,
    )


@functools.cache
def _trust_store() -> ssl.SSLContext:
    """One TLS context for every client: building it costs 60 ms or more, so not per call."""
    return httpx.create_ssl_context()


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
                raise ValueError(
                    f"workflow_tool_denied_hosts: {entry!r} is not an IP network"
                ) from None
        elif (ip := _ip(entry)) is not None:
            networks.append(ipaddress.ip_network(ip))
    return tuple(networks)


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")
