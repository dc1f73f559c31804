"""`NatsLink.stop` ends within its bounds even when the NATS connection hangs: `baton up`
SIGKILLs a service 5 s after its stop grace, so an unbounded close lost the gateway's clean
exit (and the log lines saying why)."""

import asyncio
import logging
from typing import Any, cast

import pytest

from baton_notifier.adapters.nats_link import (
    CLOSE_TIMEOUT_SECONDS,
    STOP_TIMEOUT_SECONDS,
    NatsLink,
)
from baton_notifier.entrypoints.server import ANSWER_SECONDS


class Hanging:
    """A broker whose drain and whose close both never return (a link stuck reconnecting)."""

    def __init__(self, close_hangs: bool = True) -> None:
        self.connection = self
        self.close_hangs = close_hangs
        self.closed = False

    async def stop(self) -> None:
        await asyncio.Event().wait()

    async def close(self) -> None:
        if self.close_hangs:
            await asyncio.Event().wait()
        self.closed = True


async def test_a_hanging_drain_and_close_end_within_the_two_timeouts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    link = NatsLink(cast(Any, Hanging()), stop_timeout=0.05, close_timeout=0.05)
    with caplog.at_level(logging.WARNING):
        await asyncio.wait_for(link.stop(), 1.0)
    assert "did not stop cleanly" in caplog.text
    assert "did not close" in caplog.text


async def test_a_connection_that_closes_is_closed_after_a_hanging_drain() -> None:
    broker = Hanging(close_hangs=False)
    await NatsLink(cast(Any, broker), stop_timeout=0.05).stop()
    assert broker.closed


def test_the_stop_fits_in_what_baton_up_allows_past_the_grace() -> None:
    from baton_cli.restarts import KILL_MARGIN_SECONDS

    assert ANSWER_SECONDS + STOP_TIMEOUT_SECONDS + CLOSE_TIMEOUT_SECONDS < KILL_MARGIN_SECONDS
