"""A lean HTTP/1.1 keep-alive client for the benches, so the load generator stays cheap.

httpx costs the bench process 3-10 ms of CPU per request at 50 concurrent callers, more than
the gateway it measures; on a 2-core machine that CPU is taken from the platform. This client
speaks only what the gateway answers (HTTP/1.1, keep-alive, `Content-Length` bodies) over a
pool of plain asyncio streams, and says so when it meets anything else.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit


class Response:
    """Status, headers (lower-case names) and body of one answer."""

    def __init__(self, status_code: int, headers: dict[str, str], content: bytes) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = content

    @property
    def text(self) -> str:
        """The body as UTF-8 text."""
        return self.content.decode()

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.content)


class LeanHttp:
    """`async with LeanHttp("http://127.0.0.1:8080", 100) as http: await http.post(...)`."""

    def __init__(self, base_url: str, max_connections: int = 100, timeout: float = 30.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"base_url: expected http://host:port, got {base_url!r}")
        self._host, self._port = parts.hostname, parts.port or 80
        self._host_header = f"{self._host}:{self._port}".encode()
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._slots = asyncio.Semaphore(max_connections)
        self._timeout = timeout

    async def __aenter__(self) -> LeanHttp:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        idle, self._idle = self._idle, []
        for _, writer in idle:
            writer.close()

    async def get(self, path: str, headers: Mapping[str, str] | None = None) -> Response:
        """GET `path`."""
        return await self.request("GET", path, headers=headers)

    async def post(
        self, path: str, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> Response:
        """POST `json` to `path`."""
        return await self.request("POST", path, json, headers)

    async def put(
        self, path: str, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> Response:
        """PUT `json` to `path`."""
        return await self.request("PUT", path, json, headers)

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """Send one request on a pooled connection; a fresh connection if the pooled one died."""
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1".encode(), b"Host: " + self._host_header]
        lines += [f"{k}: {v}".encode() for k, v in (headers or {}).items()]
        if body is not None:
            lines.append(b"Content-Type: application/json")
        lines.append(b"Content-Length: %d" % len(payload))
        data = b"\r\n".join(lines) + b"\r\n\r\n" + payload
        async with self._slots:
            async with asyncio.timeout(self._timeout):
                if self._idle:
                    conn = self._idle.pop()
                    try:
                        return await self._exchange(conn, data)
                    except (ConnectionError, asyncio.IncompleteReadError):
                        conn[1].close()  # the server closed an idle connection: start over
                conn = await asyncio.open_connection(self._host, self._port)
                return await self._exchange(conn, data)

    async def _exchange(
        self, conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], data: bytes
    ) -> Response:
        reader, writer = conn
        writer.write(data)
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head[:-4].decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" not in headers:
            writer.close()
            raise ConnectionError(f"bench client: no Content-Length in the answer ({head!r})")
        content = await reader.readexactly(int(headers["content-length"]))
        if headers.get("connection", "").lower() == "close":
            writer.close()
        else:
            self._idle.append(conn)
        return Response(status, headers, content)
