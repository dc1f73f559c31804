"""A TCP proxy in front of a test database that cuts a connection at its commit, as a server
that stops, or a connection reset by the network, cuts one in the middle of an append.

It reads PostgreSQL's protocol from the client: the commit of a write is a simple query
`COMMIT` that ends an explicit transaction, or the `Sync` that ends the implicit transaction
of a statement sent with the extended protocol (asyncpg's Bind/Execute/Sync), or a simple
query outside a transaction. A cut is armed for the next commit of a write whose SQL holds a
marker (`cut_at_commit`), and happens in one of two ways:

- `delivered=True`: the commit goes to the server, which answers it (its ReadyForQuery is
  read), and the answer is dropped: the write took effect, its client never hears so;
- `delivered=False`: the commit is held back, the server's side closed: what the connection
  sent before it reached the server, the commit never did, and the server rolls it back.

Either way the client's side is reset (or closed: `reset=False`). With `going_down=True` the
proxy stops taking connections at the same moment (refused, as a server that stopped), and
ends every other, until `come_back()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.frozen_proxy import FrozenProxy

FATES = [pytest.param(True, id="commit-took-effect"), pytest.param(False, id="commit-not-sent")]
"""Both ends of a cut at the commit, for `cut_at_commit(delivered=...)`: the commit took
effect and its answer was lost, or it never reached the server."""

_NOT_STARTUP = (80877103, 80877104, 80877102)  # SSLRequest, GSSENCRequest, CancelRequest


@dataclass
class _Cut:
    marker: str
    delivered: bool
    reset: bool
    going_down: bool


@dataclass(eq=False)
class _Link:
    """One client connection, its upstream, and what its client has said so far."""

    client: asyncio.StreamWriter
    upstream: asyncio.StreamWriter
    startup: bool = True
    statements: dict[str, str] = field(default_factory=dict)
    bound: str = ""
    in_transaction: bool = False
    wrote: bool = False  # the transaction (or the implicit one) ran the marked SQL
    cut: _Cut | None = None  # the cut under way: the server's answer is being dropped
    dropped: bytearray = field(default_factory=bytearray)


class CuttingProxy(FrozenProxy):
    """Forwards 127.0.0.1:<port> to the database of `url`; cuts a connection at a commit."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self._armed: _Cut | None = None
        self._links: set[_Link] = set()
        self._port = 0
        self.cuts = 0
        """Connections cut so far."""
        self.cut_done = asyncio.Event()
        self.cut_on = ""
        """The message the last cut came at: "Sync" (an implicit transaction's end),
        "COMMIT", or "Query" (a simple query outside a transaction)."""

    @property
    def proxied_url(self) -> str:
        """`url` with its host and port this proxy's (the same while it is down)."""
        if not self._port:
            assert self._server is not None
            self._port = self._server.sockets[0].getsockname()[1]
        return self._url_for(self._port)

    def cut_at_commit(
        self,
        marker: str = "INSERT INTO events",
        *,
        delivered: bool,
        reset: bool = True,
        going_down: bool = False,
    ) -> None:
        """Cut the connection at the next commit of a write whose SQL holds `marker`."""
        self.cut_done.clear()
        self._armed = _Cut(marker, delivered, reset, going_down)

    async def come_back(self) -> None:
        """Take connections again (on the same port) after a cut that went down."""
        if self._server is None or not self._server.is_serving():
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)

    def _url_for(self, port: int) -> str:
        parts = urlsplit(self.url)
        user = f"{parts.username}@" if parts.username else ""
        return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{port}"))

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._thawed.wait()
        up_reader, up_writer = await asyncio.open_connection(*self._target)
        link = _Link(writer, up_writer)
        self._links.add(link)
        for pipe in (self._from_client(link, reader), self._from_server(link, up_reader)):
            task = asyncio.create_task(pipe)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _from_client(self, link: _Link, reader: asyncio.StreamReader) -> None:
        pending = bytearray()
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                await self._thawed.wait()
                pending += data
                out = bytearray()
                while (message := _take(pending, link.startup)) is not None:
                    cut = self._commit_cut(link, message)
                    if cut is not None:
                        await self._cut(link, cut, bytes(out), message)
                        return
                    out += message
                link.upstream.write(bytes(out))
                await link.upstream.drain()
        link.upstream.close()

    async def _from_server(self, link: _Link, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                await self._thawed.wait()
                if link.cut is None:
                    link.client.write(data)
                    await link.client.drain()
                    continue
                link.dropped += data  # the answer to the commit, lost
                while (message := _take(link.dropped, False)) is not None:
                    if message[:1] == b"Z":  # ReadyForQuery: the commit was answered
                        self._counted()
                        self._end(link, link.cut.reset)
                        return
        self._end(link, reset=False)

    def _commit_cut(self, link: _Link, message: bytes) -> _Cut | None:
        """The armed cut when `message` commits a write that holds its marker, else None;
        what the client said is followed either way."""
        if link.startup:
            (code,) = struct.unpack("!i", message[4:8])
            link.startup = code in _NOT_STARTUP
            return None
        kind, body = message[:1], message[5:]
        marker = self._armed.marker if self._armed is not None else None
        commits, on = False, "Sync"
        if kind == b"P":
            name, sql = body.split(b"\0", 2)[:2]
            link.statements[name.decode()] = sql.decode()
        elif kind == b"B":
            link.bound = link.statements.get(body.split(b"\0", 2)[1].decode(), "")
        elif kind == b"E":
            link.wrote |= marker is not None and marker in link.bound
        elif kind == b"S":
            commits = link.wrote and not link.in_transaction
        elif kind == b"Q":
            sql = body.rstrip(b"\0").decode()
            words = sql.strip().rstrip(";").upper().split()
            if words[:1] == ["BEGIN"] or words[:2] == ["START", "TRANSACTION"]:
                link.in_transaction, link.wrote = True, False
            elif words[:1] in (["COMMIT"], ["END"]):
                commits, on = link.wrote and link.in_transaction, "COMMIT"
                link.in_transaction = False
            elif words[:1] == ["ROLLBACK"]:
                link.in_transaction, link.wrote = False, False
            else:
                link.wrote |= marker is not None and marker in sql
                commits, on = link.wrote and not link.in_transaction, "Query"
        if commits and self._armed is not None:
            cut, self._armed, self.cut_on = self._armed, None, on
            return cut
        if commits or (kind == b"S" and not link.in_transaction):
            link.wrote = False
        return None

    async def _cut(self, link: _Link, cut: _Cut, before: bytes, commit: bytes) -> None:
        if cut.going_down:
            self._go_down(link)
        if cut.delivered:
            link.cut = cut  # the server's answer from here on is dropped, then the cut
            link.upstream.write(before + commit)
            await link.upstream.drain()
            return
        link.upstream.write(before)
        await link.upstream.drain()
        self._counted()
        self._end(link, cut.reset)

    def _counted(self) -> None:
        self.cuts += 1
        self.cut_done.set()

    def _go_down(self, spared: _Link) -> None:
        """Stop taking connections, and end every other one, as a stopped server would."""
        assert self._server is not None
        self._port = self._port or self._server.sockets[0].getsockname()[1]
        self._server.close()
        for link in list(self._links):
            if link is not spared:
                self._end(link, reset=True)

    def _end(self, link: _Link, reset: bool) -> None:
        """Close both sides; the client's with a reset (RST) when `reset`."""
        if link not in self._links:
            return
        self._links.discard(link)
        if reset:
            with contextlib.suppress(OSError):
                sock = link.client.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            link.client.transport.abort()
        else:
            link.client.close()
        link.upstream.close()  # a FIN: the server reads what reached it, then rolls back


def _take(pending: bytearray, startup: bool) -> bytes | None:
    """The first whole protocol message in `pending`, taken off it; None until one is there.
    Startup-phase messages have no type byte."""
    start = 0 if startup else 1
    if len(pending) < start + 4:
        return None
    (length,) = struct.unpack("!i", pending[start : start + 4])
    if len(pending) < start + length:
        return None
    message = bytes(pending[: start + length])
    del pending[: start + length]
    return message
