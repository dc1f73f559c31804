"""A busy responder shares its slots between users: one user's burst (a DAG run fanning out
thousands of steps, many chat conversations) does not make everyone else's requests wait
behind all of it, and a lone user still gets every slot."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from baton_contracts import ReplyError, ReplyOk
from baton_contracts.agent_api import RunTask, TaskResult
from baton_messaging import (
    MessagingSettings,
    build_broker,
    caller_clock,
    caller_now,
    respond,
    start_broker,
)
from baton_messaging.caller_clock import SENT_AT_HEADER
from baton_messaging.requests import REPLY_ENVELOPE

from ...task_requests import research_step


def step(user: str, name: str) -> RunTask:
    """A DAG step of `user`'s, named `name` (its answer comes to `test.replies.<name>`)."""
    return research_step().model_copy(update={"user_id": user, "step_id": name})


@dataclass
class Handlers:
    """Handlers that note the order they start in and wait until a test lets each one go."""

    started: list[str] = field(default_factory=list)
    gates: defaultdict[str, asyncio.Event] = field(
        default_factory=lambda: defaultdict(asyncio.Event)
    )
    counted: dict[int, asyncio.Event] = field(default_factory=dict)

    async def handle(self, cmd: RunTask) -> TaskResult:
        self.started.append(cmd.step_id)
        if len(self.started) in self.counted:
            self.counted[len(self.started)].set()
        await self.gates[cmd.step_id].wait()
        seen = caller_now()
        return TaskResult(output="" if seen is None else seen.isoformat(), agent="default")

    async def until_started(self, count: int) -> None:
        if len(self.started) < count:
            self.counted.setdefault(count, asyncio.Event())
            await self.counted[count].wait()

    def go(self, *names: str) -> None:
        for name in names:
            self.gates[name].set()


@dataclass
class Sender:
    """One connection that sends steps and reads their answers; `arrived` waits until the
    responder's connection got everything sent so far."""

    client: Client
    replies: Subscription
    probed: asyncio.Event = field(default_factory=asyncio.Event)

    async def send(self, cmd: RunTask, headers: dict[str, str] | None = None) -> None:
        reply = f"test.replies.{cmd.step_id}"
        await self.client.publish(RunTask.subject.pattern, cmd.to_bytes(), reply, headers)

    async def on_probe(self, _: Msg) -> None:
        self.probed.set()

    async def arrived(self) -> None:
        # Published after the steps on the same connection: once it arrived, so had they,
        # and the responder's callback, which never waits with room in the lines, took them.
        self.probed.clear()
        await self.client.publish("test.probe", b"")
        await self.probed.wait()
        await asyncio.sleep(0)  # the responder's callback runs before the probe's next turn

    async def answers(self, count: int) -> dict[str, ReplyOk | ReplyError]:
        found: dict[str, ReplyOk | ReplyError] = {}
        while len(found) < count:
            msg = await self.replies.next_msg(timeout=10)
            found[msg.subject.removeprefix("test.replies.")] = REPLY_ENVELOPE.validate_json(
                msg.data
            )
        return found


@pytest.fixture
async def serve(nats_url: str) -> AsyncIterator[Any]:
    """`serve(**respond_options)`: a responder of `Handlers`, and a `Sender` to it."""
    brokers: list[Any] = []
    clients: list[Client] = []

    async def start(**options: Any) -> tuple[Handlers, Sender, Any]:
        broker = build_broker(MessagingSettings(nats_url=nats_url), "agent-runner")
        handlers = Handlers()
        respond(broker, RunTask, handlers.handle, queue="agent-runner", **options)
        await start_broker(broker)
        brokers.append(broker)
        client = await nats.connect(nats_url)
        clients.append(client)
        sender = Sender(client, await client.subscribe("test.replies.>"))
        await broker.connection.subscribe("test.probe", cb=sender.on_probe)
        # Twice: nats-py's first PING may pass the SUB it holds (see `start_broker`).
        for nc in (client, broker.connection, client, broker.connection):
            await nc.flush()
        return handlers, sender, broker

    yield start
    for client in clients:
        await client.close()
    for broker in brokers:
        await broker.stop()


async def test_a_users_request_starts_before_another_users_burst_queued_ahead_of_it(
    serve: Any,
) -> None:
    handlers, sender, _ = await serve(concurrency=2)
    burst = [f"a{i}" for i in range(6)]
    for name in burst:
        await sender.send(step("alice", name))
    await handlers.until_started(2)  # a0 and a1 hold both slots; a2..a5 wait
    await sender.send(step("bob", "b0"))
    await sender.arrived()
    handlers.go("a0")  # the first free slot: bob's, not the next of alice's four
    await handlers.until_started(3)
    assert handlers.started == ["a0", "a1", "b0"]
    handlers.go(*burst, "b0")
    answers = await sender.answers(7)
    assert sorted(answers) == sorted([*burst, "b0"])
    assert handlers.started[3:] == ["a2", "a3", "a4", "a5"]  # alice's in her own order


async def test_a_lone_user_gets_every_slot(serve: Any) -> None:
    handlers, sender, _ = await serve(concurrency=3)
    for i in range(3):
        await sender.send(step("alice", f"a{i}"))
    await handlers.until_started(3)  # a fair share never holds back a user alone
    handlers.go("a0", "a1", "a2")
    assert len(await sender.answers(3)) == 3


async def test_one_users_share_leaves_slots_for_the_next_user(serve: Any) -> None:
    handlers, sender, _ = await serve(concurrency=4, max_user_share=0.5)
    for i in range(4):
        await sender.send(step("alice", f"a{i}"))
    await sender.arrived()
    await sender.send(step("bob", "b0"))
    # bob's starts at once, while alice's two wait for her own to finish
    await handlers.until_started(3)
    assert handlers.started == ["a0", "a1", "b0"]
    handlers.go("a0")
    await handlers.until_started(4)
    assert handlers.started[3] == "a2"
    handlers.go("a1", "a2", "a3", "b0")
    assert len(await sender.answers(5)) == 5


async def test_past_max_waiting_requests_stay_in_arrival_order_in_nats_pys_queue(
    serve: Any,
) -> None:
    # The lines are bounded: past `max_waiting` the responder takes nothing more off the
    # connection, and what waits there is served first come, first served, as before.
    handlers, sender, _ = await serve(concurrency=1, max_waiting=2)
    burst = [f"a{i}" for i in range(5)]
    for name in burst:
        await sender.send(step("alice", name))
    await sender.send(step("bob", "b0"))
    await sender.arrived()
    assert handlers.started == ["a0"]  # a1 and a2 in alice's line; a3, a4, b0 behind them
    handlers.go(*burst, "b0")
    assert len(await sender.answers(6)) == 6
    assert handlers.started.index("b0") > handlers.started.index("a3")


class _Monotonic:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_request_waiting_in_its_users_line_counts_its_wait_against_its_deadline(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The handler reads the sender's clock from the request's arrival, its wait in the line
    # included: one queued past its deadline is refused by the handler, as before.
    monotonic = _Monotonic()
    monkeypatch.setattr(caller_clock, "time", SimpleNamespace(time=time.time, monotonic=monotonic))
    handlers, sender, _ = await serve(concurrency=1)
    await sender.send(step("alice", "a0"))
    await handlers.until_started(1)
    sent = time.time()
    for cmd in (step("alice", "a1"), step("bob", "b0")):
        await sender.send(cmd.model_copy(update={"deadline": datetime.now(UTC)}),
                          {SENT_AT_HEADER: repr(sent)})  # fmt: skip
    await sender.arrived()
    monotonic.now += 60  # they wait a minute for the busy slot
    handlers.go("a0", "a1", "b0")
    answers = await sender.answers(3)
    for queued in ("a1", "b0"):
        reply = answers[queued]
        assert isinstance(reply, ReplyOk)
        result = TaskResult.model_validate(reply.result)
        assert datetime.fromisoformat(result.output) >= datetime.fromtimestamp(sent + 60, UTC)


async def test_stopping_answers_every_request_waiting_in_the_lines(serve: Any) -> None:
    handlers, sender, broker = await serve(concurrency=1, stop_grace_seconds=0.1)
    for cmd in (step("alice", "a0"), step("alice", "a1"), step("bob", "b0"), step("bob", "b1")):
        await sender.send(cmd)
    await handlers.until_started(1)
    await sender.arrived()
    await broker.stop()
    answers = await sender.answers(4)
    for name, reply in answers.items():
        assert isinstance(reply, ReplyError), name
        assert "stopped before answering" in reply.error.message, name
    assert handlers.started == ["a0"]


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ({"max_waiting": 0}, "max_waiting must be at least 1, got 0"),
        ({"max_user_share": 0}, "max_user_share must be above 0 and at most 1, got 0"),
        ({"max_user_share": 2}, "max_user_share must be above 0 and at most 1, got 2"),
    ],
)
def test_bad_limits_are_refused_naming_them(option: dict[str, float], said: str) -> None:
    broker = build_broker(MessagingSettings(), "agent-runner")
    with pytest.raises(ValueError, match=said):
        respond(broker, RunTask, Handlers().handle, queue="agent-runner", **option)  # type: ignore[arg-type]
