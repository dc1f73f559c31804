"""Cutting off a client that stopped reading: its connection's writes stall, and it is aborted.

A server-sent-events response never ends by itself, and a WebSocket whose client reads nothing
is closed only once what is buffered for it has been sent: a client that stopped reading held
its connection (its file descriptor, its buffers and, over SSE, its live session) for ever.
"""

from __future__ import annotations

import asyncio
import logging

WRITE_STALL_SECONDS = 60.0
"""A connection whose client takes none of what the gateway has buffered for it for this long
(its write buffer over the 64 KiB high-water mark, and not shrinking) is aborted. A client that
reads, however slowly, is not."""


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
        self._arm(transport, transport.get_write_buffer_size())

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
        pending = transport.get_write_buffer_size()
        if pending < pending_before:
            self._arm(transport, pending)  # the client took some: slow, not stalled
            return
        self._logger.warning(
            "aborted a connection whose client read nothing for %gs (%d bytes unsent)",
            self.seconds,
            pending,
        )
        transport.abort()
