"""Cutting off a client that stopped reading: the write-stall watch of the gateway's protocols."""

from __future__ import annotations

import asyncio
import logging
from typing import cast

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
