"""A request's deadline is its sender's clock: each send carries that clock's reading, and the
handler reads the sender's clock from it (`caller_now`), not from its own host's."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from faststream.nats import NatsBroker

from baton_contracts import ReplyOk
from baton_contracts.agent_api import RunTask, TaskResult
from baton_messaging import (
    MessagingSettings,
    build_broker,
    caller_now,
    request,
    respond,
    start_broker,
)
from baton_messaging.caller_clock import SENT_AT_HEADER


def task(deadline: datetime | None) -> RunTask:
    return RunTask(
        user_id="alice",
        agent="default",
        run_id="r-1",
        step_id="s",
        prompt="p",
        idempotency_key="r-1:s:1",
        deadline=deadline,
    )


@pytest.fixture
async def broker(nats_url: str) -> AsyncIterator[NatsBroker]:
    """An agent-runner stand-in that answers with the sender's clock as it reads it."""
    broker = build_broker(MessagingSettings(nats_url=nats_url), "agent-runner")

    async def handler(cmd: RunTask) -> TaskResult:
        seen = caller_now()
        return TaskResult(output="" if seen is None else seen.isoformat(), agent="default")

    respond(broker, RunTask, handler, queue="agent-runner")
    await start_broker(broker)
    yield broker
    await broker.stop()


async def test_the_handler_reads_the_senders_clock_not_its_own(broker: NatsBroker) -> None:
    # The sender's clock is an hour ahead of this host's.
    sent = time.time() + 3600
    raw = await broker.connection.request(
        RunTask.subject.pattern,
        task(datetime.now(UTC)).to_bytes(),
        timeout=5,
        headers={SENT_AT_HEADER: repr(sent)},
    )
    reply = ReplyOk.model_validate_json(raw.data)
    seen = datetime.fromisoformat(TaskResult.model_validate(reply.result).output)
    at_send = datetime.fromtimestamp(sent, UTC)
    assert at_send <= seen < at_send + timedelta(minutes=1)


async def test_a_request_with_a_deadline_carries_its_senders_clock(broker: NatsBroker) -> None:
    before = datetime.now(UTC)
    with_deadline = await request(broker, task(before + timedelta(seconds=30)), timeout=5)
    assert isinstance(with_deadline, TaskResult)
    assert before <= datetime.fromisoformat(with_deadline.output)
    without = await request(broker, task(None), timeout=5)
    assert isinstance(without, TaskResult) and without.output == ""  # none to read
