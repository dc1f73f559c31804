"""HTTP for tools and skills over httpx: allowed schemes, a host deny-list, a size cap, timeouts.

Every failure is a one-line `StepActionFailed` naming the host or the URL. The body is read
as a stream and the read stops one byte past the cap, so an oversized answer is never held
whole in memory. Redirects are followed up to a limit; each hop passes the same URL checks.

The URL and host checks (schemes, the deny-list, resolving and checking addresses) live in
`url_policy`, the direct and proxied connections in `fetch_transport`; this module re-exports
the names it held before, so importers need not know about the split.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx

from baton_workflow.adapters.fetch_transport import _CheckedTransport, environment_proxies
from baton_workflow.adapters.url_policy import (
    SNIPPET_CHARS,
    Address,
    Network,
    Resolver,
    UrlPolicy,
    _short,
    resolve,
)
from baton_workflow.service.step_ports import StepActionFailed, StepTimedOut

__all__ = [
    "SNIPPET_CHARS",
    "Address",
    "HttpRequest",
    "HttpResponse",
    "HttpxFetcher",
    "Network",
    "Resolver",
    "environment_proxies",
    "header_problem",
    "resolve",
]

_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # fullmatch: "$" lets a "\n" in
_HEADER_VALUE_BAD = re.compile(r"[^\t\x20-\x7e]")  # httpx sends values as ASCII; no controls
_ERRNO = re.compile(r"^\[Errno -?\d+\]\s*")


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
        if not _HEADER_NAME.fullmatch(name):
            return f"{name!r} is not a valid header name"
        if not isinstance(value, str):
            return f"header {name!r} must be a string, got {type(value).__name__}"
        if "\r" in value or "\n" in value:
            return f"header {name!r} holds a line break"
        if bad := _HEADER_VALUE_BAD.search(value):
            return f"header {name!r} holds {bad.group(0)!r}; a header value is printable ASCII"
    return None


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


def _where(url: httpx.URL) -> str:
    return f"{url.host}:{url.port}" if url.port else url.host


class HttpxFetcher(UrlPolicy):
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
        super().__init__(schemes=schemes, denied_hosts=denied_hosts, resolver=resolver)
        self.user_agent = user_agent
        self._ssl = ssl_context or _trust_store()

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
        transport = _CheckedTransport(self, self._ssl)
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


@functools.cache
def _trust_store() -> ssl.SSLContext:
    """One TLS context for every client: building it costs 60 ms or more, so not per call."""
    return httpx.create_ssl_context()


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")
