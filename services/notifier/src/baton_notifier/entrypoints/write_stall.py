"""Cutting off a client that stopped reading: its connection's writes stall, and it is aborted.

A server-sent-events response never ends by itself, and a WebSocket whose client reads nothing
is closed only once what is buffered for it has been sent: a client that stopped reading held
its connection (its file descriptor, its buffers and, over SSE, its live session) for ever.

What is pending for a client is asyncio's buffer and, where the kernel tells (Linux), the
socket's send queue. asyncio's buffer alone does not shrink until the kernel's queue (MBs,
autotuned) has room for a third of it again: a client reading 200 KB/s was taken as reading
nothing for 3 s, and at 60 s one reading less than about 20 KB/s was cut off.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import socket
import struct
import termios

WRITE_STALL_SECONDS = 60.0
"""A connection whose client takes none of what the gateway has buffered for it for this long
(its write buffer over the 64 KiB high-water mark, and what is unsent, the kernel's queue
included, not shrinking) is aborted. A client that
reads, however slowly, is not."""

_OUTQ = getattr(termios, "TIOCOUTQ", None)  # SIOCOUTQ on a TCP socket: bytes not yet acked


def give_up_unacknowledged(transport: asyncio.BaseTransport, seconds: float) -> None:
    """Have the kernel abort the connection once what it sent has gone unacknowledged for
    `seconds` (`TCP_USER_TIMEOUT`, Linux), as the write stall does for what is unsent.

    A client that vanished without closing (its network dropped, its laptop slept) still takes
    an SSE stream's keepalives into the kernel's queue: nothing stalls there, and the kernel
    retransmitted them for about 15 minutes (`tcp_retries2`) before giving up, while the
    connection held one of its user's `BATON_LIVE_SESSIONS_PER_USER` places."""
    sock = transport.get_extra_info("socket")
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    if sock is None or option is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    with contextlib.suppress(OSError):  # closed already: nothing to give up on
        sock.setsockopt(socket.IPPROTO_TCP, option, max(1, round(seconds * 1000)))


def unsent_bytes(transport: asyncio.WriteTransport) -> int:
    """What `transport` holds for its client: its kernel send queue (where the kernel says),
    then asyncio's buffer. The kernel's is read first: a client reading between the two
    reads can only make the sum look larger, never smaller than it was."""
    queued = 0
    sock = transport.get_extra_info("socket")
    if sock is not None and _OUTQ is not None:
        with contextlib.suppress(OSError, ValueError):  # not a TCP socket here, or closed
            raw = fcntl.ioctl(sock.fileno(), _OUTQ, bytes(4))
            queued = struct.unpack("i", raw)[0]
    return queued + transport.get_write_buffer_size()


class WriteStallWatch:
    """Aborts a transport whose pending writes do not shrink for `seconds`.

    `start` when the transport pauses writing (its buffer went over the high-water mark),
    `stop` when it resumes, and when the connection is lost.
    """

    def __init__(self, seconds: float, logger: logging.Logger) -> None:
        self.seconds = seconds
        self._logger = logger
        self._timer: asyncio.TimerHandle | None = None

    def start(self, transport: asyncio.WriteTransport) -> None:
        """Watch `transport` from now on."""
        self.stop()
        self._arm(transport, unsent_bytes(transport))

    def stop(self) -> None:
        """Stop watching (the timer held the transport: it is let go)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, transport: asyncio.WriteTransport, pending: int) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.seconds, self._check, transport, pending)

    def _check(self, transport: asyncio.WriteTransport, pending_before: int) -> None:
        self._timer = None
        pending = unsent_bytes(transport)
        if pending < pending_before:
            self._arm(transport, pending)  # the client took some: slow, not stalled
            return
        self._logger.warning(
            "aborted a connection whose client read nothing for %gs (%d bytes unsent)",
            self.seconds,
            pending,
        )
        transport.abort()
