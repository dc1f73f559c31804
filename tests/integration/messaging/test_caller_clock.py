"""A request's deadline is its sender's clock: each send carries that clock's reading, and the
handler reads the sender's clock from it (`caller_now`), not from its own host's."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import nats
import pytest
from faststream.nats import NatsBroker
from nats.aio.msg import Msg

from baton_contracts import ReplyOk
from baton_contracts.agent_api import RunTask, TaskResult
from baton_messaging import (
    MessagingSettings,
    build_broker,
    caller_clock,
    caller_now,
    request,
    respond,
    start_broker,
)
from baton_messaging.caller_clock import SENT_AT_HEADER

from ...task_requests import research_step


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
        research_step(datetime.now(UTC)).to_bytes(),
        timeout=5,
        headers={SENT_AT_HEADER: repr(sent)},
    )
    reply = ReplyOk.model_validate_json(raw.data)
    seen = datetime.fromisoformat(TaskResult.model_validate(reply.result).output)
    at_send = datetime.fromtimestamp(sent, UTC)
    assert at_send <= seen < at_send + timedelta(minutes=1)


async def test_a_request_with_a_deadline_carries_its_senders_clock(broker: NatsBroker) -> None:
    before = datetime.now(UTC)
    with_deadline = await request(broker, research_step(before + timedelta(seconds=30)), timeout=5)
    assert isinstance(with_deadline, TaskResult)
    assert before <= datetime.fromisoformat(with_deadline.output)
    without = await request(broker, research_step(None), timeout=5)
    assert isinstance(without, TaskResult) and without.output == ""  # none to read


class _Monotonic:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_request_queued_behind_busy_handlers_counts_its_wait(
    nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A replica at its concurrency: the next request waits for a slot, and the sender's clock
    # goes on meanwhile. Reading it from when the handler started left the wait out, so a
    # request queued past its deadline was still worked on (a model called, a turn recorded
    # after its caller had reported it failed).
    monotonic = _Monotonic()
    monkeypatch.setattr(caller_clock, "time", SimpleNamespace(time=time.time, monotonic=monotonic))
    broker = build_broker(MessagingSettings(nats_url=nats_url), "agent-runner")
    first_running, let_first_go = asyncio.Event(), asyncio.Event()

    async def handler(cmd: RunTask) -> TaskResult:
        if cmd.step_id == "first":
            first_running.set()
            await let_first_go.wait()
        seen = caller_now()
        return TaskResult(output="" if seen is None else seen.isoformat(), agent="default")

    respond(broker, RunTask, handler, queue="agent-runner", concurrency=1)
    await start_broker(broker)
    probed = asyncio.Event()

    async def on_probe(_msg: Msg) -> None:
        probed.set()

    await broker.connection.subscribe("test.probe", cb=on_probe)
    sender = await nats.connect(nats_url)
    try:
        replies = await sender.subscribe("test.replies.>")
        first = research_step(datetime.now(UTC)).model_copy(update={"step_id": "first"})
        await sender.publish(RunTask.subject.pattern, first.to_bytes(), reply="test.replies.1")
        await first_running.wait()
        sent = time.time()
        # One waits for the slot in the responder, the other in nats-py's queue behind it.
        for reply in ("test.replies.2", "test.replies.3"):
            await sender.publish(
                RunTask.subject.pattern,
                research_step(datetime.now(UTC)).to_bytes(),
                reply=reply,
                headers={SENT_AT_HEADER: repr(sent)},
            )
        # Published after them on the same connection: once this arrived, so had they.
        await sender.publish("test.probe", b"")
        await probed.wait()
        monotonic.now += 60  # the request waits a minute for the busy slot
        let_first_go.set()
        answers = {}
        while len(answers) < 3:
            msg = await replies.next_msg(timeout=5)
            answers[msg.subject] = TaskResult.model_validate(
                ReplyOk.model_validate_json(msg.data).result
            )
        for queued in ("test.replies.2", "test.replies.3"):
            seen = datetime.fromisoformat(answers[queued].output)
            assert seen >= datetime.fromtimestamp(sent + 60, UTC), queued
    finally:
        await sender.close()
        await broker.stop()
