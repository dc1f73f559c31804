"""A TCP proxy in front of a test database that can be frozen: connections stay open, and
nothing is passed either way, as a PostgreSQL stopped with SIGSTOP, or cut off by the network
without a reset, would leave them. What a store's client-side bound is tested against.
`tests/cutting_proxy.py` cuts connections at a commit instead."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit, urlunsplit


class FrozenProxy:
    """Forwards 127.0.0.1:<port> to the database of `url` until `freeze()`."""

    def __init__(self, url: str) -> None:
        self.url = url
        parts = urlsplit(url)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._thawed = asyncio.Event()
        self._thawed.set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def proxied_url(self) -> str:
        """`url` with its host and port this proxy's."""
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        parts = urlsplit(self.url)
        user = f"{parts.username}@" if parts.username else ""
        return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{port}"))

    def freeze(self) -> None:
        self._thawed.clear()

    def thaw(self) -> None:
        self._thawed.set()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                await self._thawed.wait()
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._thawed.wait()  # a frozen server takes the connection, then says nothing
        up_reader, up_writer = await asyncio.open_connection(*self._target)
        for pipe in (self._pipe(reader, up_writer), self._pipe(up_reader, writer)):
            task = asyncio.create_task(pipe)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[FrozenProxy]:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        try:
            yield self
        finally:
            self.thaw()
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
