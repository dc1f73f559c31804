"""Cutting off a client that stopped reading: the write-stall watch of the gateway's protocols."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
from collections.abc import Iterator
from typing import cast

import pytest

from baton_notifier.entrypoints.write_stall import WriteStallWatch


class Transport:
    """Answers each `get_write_buffer_size` with the next of `sizes` (the last one repeats)."""

    def __init__(self, *sizes: int) -> None:
        self.sizes = list(sizes)
        self.looked = 0
        self.aborted = asyncio.Event()

    def get_write_buffer_size(self) -> int:
        self.looked += 1
        return self.sizes[min(self.looked, len(self.sizes)) - 1]

    def get_extra_info(self, name: str, default: object = None) -> object:
        return default  # no socket: its own buffer is all there is

    def abort(self) -> None:
        self.aborted.set()


def watch(transport: Transport) -> WriteStallWatch:
    stall = WriteStallWatch(0.001, logging.getLogger("test"))
    stall.start(cast(asyncio.WriteTransport, transport))
    return stall


async def test_a_client_that_reads_slowly_is_kept_until_it_stops_reading() -> None:
    transport = Transport(300_000, 200_000, 100_000, 100_000)
    watch(transport)
    await asyncio.wait_for(transport.aborted.wait(), 5)
    # Looked at when the watch started, then after each wait: twice the client had taken
    # some, then nothing.
    assert transport.looked == 4


class SocketTransport(Transport):
    """A transport over a real TCP socket whose own buffer stays full (the kernel's queue is
    what moves); after each of the first `reads` looks, its client reads 64 KB."""

    def __init__(self, sock: socket.socket, client: socket.socket, reads: int) -> None:
        super().__init__(100_000)
        self.sock, self.client, self.reads = sock, client, reads

    def get_extra_info(self, name: str, default: object = None) -> object:
        return self.sock if name == "socket" else default

    def get_write_buffer_size(self) -> int:
        size = super().get_write_buffer_size()
        taken = 0
        while self.looked <= self.reads and taken < 65536:
            taken += len(self.client.recv(65536 - taken))
        return size


@pytest.fixture
def connection() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A loopback TCP connection whose server side has sent all its kernel takes (a queue of
    about 1.5 MB) to a client that has read nothing (it holds a few KB at a time)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(listener.getsockname())
        server, _ = listener.accept()
    with server, client:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        server.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            while True:
                server.send(bytes(65536))
        yield server, client


@pytest.mark.skipif(sys.platform != "linux", reason="the kernel's send queue is read on Linux")
async def test_a_client_reading_only_what_the_kernel_holds_for_it_is_kept(
    connection: tuple[socket.socket, socket.socket],
) -> None:
    # The gateway's own buffer does not shrink until the kernel's queue has room for a third
    # of it again; a client reading slowly drains the kernel's queue first.
    server, client = connection
    transport = SocketTransport(server, client, reads=3)
    WriteStallWatch(0.2, logging.getLogger("test")).start(cast(asyncio.WriteTransport, transport))
    await asyncio.wait_for(transport.aborted.wait(), 10)
    # The client read after the first three looks, each seen by the next: then nothing.
    assert transport.looked == 5
