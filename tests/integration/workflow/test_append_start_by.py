"""A chat turn's or a signal's append starts in time or not at all.

Every statement is bounded (`BATON_DATABASE_STATEMENT_TIMEOUT_SECONDS`), but not the wait
before it: on PostgreSQL an append waited in the group-commit queue while every writer's
statement was held up by a locked table, up to a statement's time, and on SQLite for the
process's write lock. A turn whose agent had answered in time, or a signal, was then recorded
after its deadline, when the gateway had answered 503. The append now carries a start-by (a
turn's deadline plus the reply's grace, a signal's deadline): one still waiting then is
dropped, and the request is answered 503 `unavailable`, nothing recorded, while the gateway
still waits; the next one works once the database is free.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import asyncpg
import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent
from baton_contracts.workflow_api import (
    SendMessage,
    SignalWorkflow,
    StartWorkflow,
    WorkflowSignal,
)
from baton_eventstore import NewEvent
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.service.conversation import TURN_NOT_WRITTEN_IN_TIME, send_message
from baton_workflow.service.handlers import SIGNAL_NOT_WRITTEN_IN_TIME, start_workflow, take_turn

from .conftest import FakeAgentRunner, workflow_settings
from .store_writers import writers_held

DEADLINE = 1.0
"""A turn's and a signal's time (`BATON_AGENT_CALL_TIMEOUT_SECONDS`, `..._SIGNAL_...`)."""
HELD = 2.0
"""How long the database's writers are held (on PostgreSQL: the statement timeout), longer
than a turn's deadline and the reply's half second of grace."""

Hold = Callable[[WorkflowApp], Awaitable[asyncio.Task[None]]]
"""Holds every writer of the app's store for `HELD` seconds; the task ends when they are free."""


def postgres_writers_held(postgres_url: str) -> Hold:
    """`LOCK TABLE events` in another session, and one append per writer of the store's
    appender, each in flight behind the lock until the statement timeout fails it."""

    async def hold(app: WorkflowApp) -> asyncio.Task[None]:
        assert app.store.appender is not None
        lock = await asyncpg.connect(postgres_url.replace("+asyncpg", "", 1))
        await lock.execute("BEGIN")
        await lock.execute("LOCK TABLE events")
        blocked = []
        for n in range(app.store.appender.writers):
            event = NewEvent(uuid.uuid4(), "test.blocked", {"n": n})
            blocked.append(asyncio.create_task(app.store.append(f"blocked-{n}", 0, [event])))
            await asyncio.sleep(0.02)  # taken by a writer of its own, alone

        async def release() -> None:
            await asyncio.gather(*blocked, return_exceptions=True)
            await lock.close()  # at once: what a writer sends next goes in

        return asyncio.create_task(release())

    return hold


async def sqlite_writers_held(app: WorkflowApp) -> asyncio.Task[None]:
    """A unit of work of the same process holding the store's write lock."""
    return await writers_held(app, HELD)


class Agents:
    """Answers at once; on the first message, holds the database's writers first."""

    def __init__(self) -> None:
        self.hold: Callable[[], Awaitable[asyncio.Task[None]]] | None = None
        self.held: asyncio.Task[None] | None = None

    async def run(self, request: RunAgent) -> AgentReply:
        if request.message == "first" and self.hold is not None:
            self.held = await self.hold()
        return AgentReply.model_validate(
            {"message": f"answer to {request.message}", "workflow_signal": {"action": "stay"}}
        )


async def _started(nats_url: str, database_url: str, agents: Agents) -> tuple[WorkflowApp, str]:
    settings = workflow_settings(
        nats_url,
        database_url,
        agent_call_timeout_seconds=DEADLINE,
        signal_timeout_seconds=DEADLINE,
        database_statement_timeout_seconds=HELD,
    )
    app = build(settings, agents=agents)
    await app.start()
    started = await start_workflow(
        app.services, StartWorkflow(user_id="u", workflow_id="onboarding")
    )
    return app, started.instance.instance_id


async def _command_ids(app: WorkflowApp, instance: str) -> list[str]:
    """The commands the instance's log holds, in order."""
    ids = [r.payload.get("command_id") for r in await app.services.repo.records(instance)]
    return list(dict.fromkeys(i for i in ids if i is not None))


async def _turn_starts_in_time_or_not_at_all(nats_url: str, database_url: str, hold: Hold) -> None:
    agents = Agents()
    app, instance = await _started(nats_url, database_url, agents)
    try:
        agents.hold = lambda: hold(app)
        said = SendMessage(user_id="u", instance_id=instance, client_message_id="m1", text="first")
        # The agent answers at once, but the turn's append waits for a writer past its deadline
        # and its grace: before, it went in when a writer came free, and the turn was answered.
        with pytest.raises(RemoteError) as refused:
            await send_message(app.services, said)
        assert agents.held is not None
        await agents.held
        again = said.model_copy(update={"client_message_id": "m2", "text": "second"})
        after = await send_message(app.services, again)
        recorded = await _command_ids(app, instance)
    finally:
        await app.stop()

    assert (refused.value.body.code, refused.value.body.message) == (
        ErrorCode.UNAVAILABLE,
        TURN_NOT_WRITTEN_IN_TIME,
    )
    assert after.reply.text == "answer to second"
    assert recorded == ["m2"]  # nothing of m1, then or later


async def _signal_starts_in_time_or_not_at_all(
    nats_url: str, database_url: str, hold: Hold
) -> None:
    app, instance = await _started(nats_url, database_url, Agents())
    try:
        held = await hold(app)

        def signal(command_id: str) -> SignalWorkflow:
            stay = WorkflowSignal(action="stay")
            return SignalWorkflow(
                user_id="u", instance_id=instance, command_id=command_id, signal=stay
            )

        # The instance is free and cached: the signal's only wait is its append's, for a writer.
        with pytest.raises(RemoteError) as refused:
            await take_turn(app.services, signal("s1"))
        await held
        await take_turn(app.services, signal("s2"))
        recorded = await _command_ids(app, instance)
    finally:
        await app.stop()

    assert (refused.value.body.code, refused.value.body.message) == (
        ErrorCode.UNAVAILABLE,
        SIGNAL_NOT_WRITTEN_IN_TIME,
    )
    assert recorded == ["s2"]


@pytest.mark.postgres
async def test_a_turns_append_queued_behind_held_writers_is_refused_on_postgres(
    nats_url: str, postgres_url: str, agent_runner: FakeAgentRunner
) -> None:
    await _turn_starts_in_time_or_not_at_all(
        nats_url, postgres_url, postgres_writers_held(postgres_url)
    )


@pytest.mark.postgres
async def test_a_signals_append_queued_behind_held_writers_is_refused_on_postgres(
    nats_url: str, postgres_url: str, agent_runner: FakeAgentRunner
) -> None:
    await _signal_starts_in_time_or_not_at_all(
        nats_url, postgres_url, postgres_writers_held(postgres_url)
    )


async def test_a_turns_append_behind_the_write_lock_is_refused_on_sqlite(
    nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> None:
    await _turn_starts_in_time_or_not_at_all(nats_url, sqlite_url, sqlite_writers_held)


async def test_a_signals_append_behind_the_write_lock_is_refused_on_sqlite(
    nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> None:
    await _signal_starts_in_time_or_not_at_all(nats_url, sqlite_url, sqlite_writers_held)
