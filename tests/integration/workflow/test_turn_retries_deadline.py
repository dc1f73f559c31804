"""A chat turn's conflict retries end by the turn's deadline, recording nothing after it.

A turn whose append conflicted (another replica, or a signal, wrote to the instance first)
reloaded and tried again for at least `BATON_CONFLICT_RETRIES` attempts and 2 s, however late
that was: the gateway, which waits the agent call's time and a database statement's, had
answered 503 by then, and the turn was recorded after it. The retries now stop at the deadline
the turn's agent was given (counted from the turn's arrival): the turn is refused 503
`unavailable`, nothing of it recorded, and the next message works. A retry that started in
time but whose read of the log (or whose checkers) took it past the deadline does not append
either, a chat turn's nor a signal's. A signal whose retries reach its own deadline is refused
503 `unavailable` too, as a chat turn is (it answered 409 `busy`).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.workflow_api import (
    SendMessage,
    SignalWorkflow,
    StartWorkflow,
    WorkflowSignal,
)
from baton_workflow.adapters.instances import Change
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.service.conversation import TURN_OUT_OF_TIME, send_message
from baton_workflow.service.handlers import SIGNAL_OUT_OF_TIME, start_workflow, take_turn

from .conftest import FakeAgentRunner, workflow_settings

TURN_SECONDS = 1.0
"""The turn's deadline (`BATON_AGENT_CALL_TIMEOUT_SECONDS`), scaled down."""


class Agents:
    """Answer every turn at once, staying on the step."""

    async def run(self, request: RunAgent) -> AgentReply:
        return AgentReply.model_validate(
            {"message": f"answer to {request.message}", "workflow_signal": {"action": "stay"}}
        )


@dataclass
class Contention:
    """Replica `b`'s appends lose to a write of replica `a` (a signal to the same instance,
    taking `each` seconds to go in) until `until` on the loop's clock."""

    a: WorkflowApp
    user: str
    instance: str
    each: float = 0.1
    until: float = 0.0
    to_lose: int = 0
    """Appends of `b` still to lose, however long they take to come."""
    slow_read: float = 0.0
    """Seconds the next read of replica `b` takes after each lost append (a slowed database)."""
    reads_held: float = 0.0

    def lasting(self, seconds: float) -> None:
        self.until = asyncio.get_running_loop().time() + seconds

    def losing_once(self) -> None:
        self.until, self.to_lose = 0.0, 1

    async def meanwhile(self) -> None:
        if asyncio.get_running_loop().time() >= self.until and not self.to_lose:
            return
        self.to_lose = max(0, self.to_lose - 1)
        await asyncio.sleep(self.each)
        signal = SignalWorkflow(
            user_id=self.user,
            instance_id=self.instance,
            command_id=uuid.uuid4().hex,
            signal=WorkflowSignal(action="stay"),
        )
        await take_turn(self.a.services, signal)
        self.reads_held = self.slow_read

    async def before_read(self) -> None:
        held, self.reads_held = self.reads_held, 0.0
        await asyncio.sleep(held)


@contextlib.asynccontextmanager
async def contended(
    nats_url: str, database_url: str, user: str, agents: Agents
) -> AsyncIterator[tuple[WorkflowApp, Contention]]:
    """Replica `b` (whose turns these are), and the contention replica `a` puts on its
    appends. Conflict retries are many, so the deadline is what ends them."""
    a = build(workflow_settings(nats_url, database_url))
    settings = workflow_settings(
        nats_url,
        database_url,
        agent_call_timeout_seconds=TURN_SECONDS,
        signal_timeout_seconds=TURN_SECONDS,
        conflict_retries=200,
    )
    b = build(settings, agents=agents)
    await a.start()
    await b.start()
    try:
        started = await start_workflow(
            a.services, StartWorkflow(user_id=user, workflow_id="onboarding")
        )
        contention = Contention(a, user, started.instance.instance_id)
        save = b.services.repo.save

        async def contended_save(expected_version: int, change: Change, *args: Any) -> None:
            await contention.meanwhile()
            await save(expected_version, change, *args)

        load = b.services.repo.load

        async def slowed_load(instance_id: str) -> Any:
            await contention.before_read()
            return await load(instance_id)

        b.services.repo.save = contended_save  # type: ignore[method-assign]
        b.services.repo.load = slowed_load  # type: ignore[method-assign]
        yield b, contention
    finally:
        await a.stop()
        await b.stop()


async def recorded_messages(app: WorkflowApp, instance: str) -> list[Any]:
    records = await app.services.repo.records(instance)
    return [r.payload["command_id"] for r in records if r.type == "workflow.exchange_recorded"]


async def _retries_end_by_the_deadline(nats_url: str, database_url: str) -> None:
    agents = Agents()
    async with contended(nats_url, database_url, "retries", agents) as (b, contention):
        said = SendMessage(
            user_id="retries", instance_id=contention.instance, client_message_id="m1", text="hi"
        )
        # Other writes keep winning for twice the turn's time: before, the turn retried
        # through them all and was recorded a second after its deadline.
        contention.lasting(2 * TURN_SECONDS)
        with pytest.raises(RemoteError) as refused:
            await send_message(b.services, said)
        await asyncio.sleep(max(0.0, contention.until - asyncio.get_running_loop().time()))
        after = await send_message(
            b.services, said.model_copy(update={"client_message_id": "m2", "text": "again"})
        )
        recorded = await recorded_messages(b, contention.instance)

    assert refused.value.body.code is ErrorCode.UNAVAILABLE
    assert refused.value.body.message == TURN_OUT_OF_TIME
    assert after.reply.text == "answer to again"
    assert recorded == ["m2"]  # nothing of m1, then or later


async def test_a_turns_conflict_retries_end_by_its_deadline_on_sqlite(
    nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> None:
    await _retries_end_by_the_deadline(nats_url, sqlite_url)


@pytest.mark.postgres
async def test_a_turns_conflict_retries_end_by_its_deadline_on_postgres(
    nats_url: str, postgres_url: str, agent_runner: FakeAgentRunner
) -> None:
    await _retries_end_by_the_deadline(nats_url, postgres_url)


async def _no_append_after_a_retrys_slow_read(nats_url: str, database_url: str) -> None:
    agents = Agents()
    async with contended(nats_url, database_url, "slow-read", agents) as (b, contention):
        said = SendMessage(
            user_id="slow-read", instance_id=contention.instance, client_message_id="m1", text="hi"
        )
        signal = SignalWorkflow(
            user_id="slow-read",
            instance_id=contention.instance,
            command_id="s1",
            signal=WorkflowSignal(action="stay"),
        )
        # One write goes in first; the retry starts in time, but its read of the log takes
        # past the deadline. Before, its append went in then, after the caller had given up.
        contention.slow_read = 1.5 * TURN_SECONDS
        contention.losing_once()
        with pytest.raises(RemoteError) as turn:
            await send_message(b.services, said)
        contention.losing_once()
        with pytest.raises(RemoteError) as signalled:
            await take_turn(b.services, signal)
        contention.slow_read = 0.0
        recorded = await b.services.repo.records(contention.instance)

    assert (turn.value.body.code, turn.value.body.message) == (
        ErrorCode.UNAVAILABLE,
        TURN_OUT_OF_TIME,
    )
    assert (signalled.value.body.code, signalled.value.body.message) == (
        ErrorCode.UNAVAILABLE,
        SIGNAL_OUT_OF_TIME,
    )
    ids = [r.payload.get("command_id") for r in recorded]
    assert "m1" not in ids and "s1" not in ids


async def test_no_append_after_a_retrys_slow_read_on_sqlite(
    nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> None:
    await _no_append_after_a_retrys_slow_read(nats_url, sqlite_url)


@pytest.mark.postgres
async def test_no_append_after_a_retrys_slow_read_on_postgres(
    nats_url: str, postgres_url: str, agent_runner: FakeAgentRunner
) -> None:
    await _no_append_after_a_retrys_slow_read(nats_url, postgres_url)
