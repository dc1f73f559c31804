"""A service's log says when NATS went away and when it is back, each in one line naming the
server: an operator reading it knows whether the service is still cut off."""

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


def broker_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == LOGGER]


async def wait_for_line(
    caplog: pytest.LogCaptureFixture, start: str, within: float = 10.0
) -> logging.LogRecord:
    async with asyncio.timeout(within):
        while True:
            for record in broker_records(caplog):
                if record.getMessage().startswith(start):
                    return record
            await asyncio.sleep(0.02)


async def test_a_lost_and_regained_nats_says_so_in_one_line_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = EmbeddedNatsServer(store_dir=tmp_path / "nats")
    server.start()
    broker = build_broker(MessagingSettings(nats_url=server.url), "trigger")
    try:
        await start_broker(broker)
        with caplog.at_level(logging.INFO, logger=LOGGER):
            server.stop()
            lost = await wait_for_line(caplog, "lost the connection to NATS")
            server.start()
            back = await wait_for_line(caplog, "reconnected to ")
    finally:
        await broker.stop()
        server.stop()
    assert lost.levelno == logging.WARNING
    assert server.url in lost.getMessage()
    assert back.levelno == logging.INFO
    assert back.getMessage().startswith(f"reconnected to {server.url} after ")
    # The server going away is expected: no exception under any line, nor a second line for it.
    assert not [r for r in broker_records(caplog) if r.exc_info], broker_records(caplog)
    assert [r.getMessage() for r in broker_records(caplog) if r.levelno >= logging.WARNING] == [
        lost.getMessage()
    ]


async def test_a_stop_says_no_connection_was_lost(
    nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    broker = build_broker(MessagingSettings(nats_url=nats_url), "trigger")
    await start_broker(broker)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        await broker.stop()
    assert not [r for r in broker_records(caplog) if r.levelno >= logging.WARNING]


async def test_a_frozen_server_is_found_out_and_reconnected_to_when_it_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A server that stops answering without closing the connection (a hung process, a host
    # gone without a reset, a network partition) is found out within seconds, not the six
    # minutes nats-py's defaults take (a ping every 120 s, given up after two unanswered):
    # until then the service reported itself connected, and in a cluster it would not move
    # to a server that answers.
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
