"""A NATS server that stops answering without closing the connection (a hung process, a
host gone without a reset, a network partition) is found out within seconds, not the six
minutes nats-py's defaults take (a ping every 120 s, given up after two unanswered): until
then the service reports itself connected, and in a cluster it would not move to a server
that answers."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path

import pytest

from baton_messaging import MessagingSettings, build_broker, start_broker
from baton_messaging.embedded import EmbeddedNatsServer

LOGGER = "baton.trigger.messaging"


async def wait_for_line(caplog: pytest.LogCaptureFixture, start: str, within: float) -> None:
    async with asyncio.timeout(within):
        while True:
            for record in caplog.records:
                if record.name == LOGGER and record.getMessage().startswith(start):
                    return
            await asyncio.sleep(0.05)


async def test_a_frozen_server_is_found_out_and_reconnected_to_when_it_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    assert server.pid is not None
    broker = build_broker(MessagingSettings(nats_url=server.url), "trigger")
    within = 40.0  # found out in 15 s at most (pings 5 s apart, two unanswered), with slack
    try:
        await start_broker(broker)
        with caplog.at_level(logging.INFO, logger=LOGGER):
            os.kill(server.pid, signal.SIGSTOP)
            try:
                await wait_for_line(caplog, "lost the connection to NATS", within)
                assert not broker.connection.is_connected
            finally:
                os.kill(server.pid, signal.SIGCONT)
            await wait_for_line(caplog, "reconnected to ", within)
        assert broker.connection.is_connected
    finally:
        await broker.stop()
        server.stop()
