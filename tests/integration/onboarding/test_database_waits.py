"""A turn or a signal held up by its database ends in time, and records nothing afterwards.

A session holding `LOCK TABLE events` (an operator's maintenance, a migration gone wrong), or
another process holding a SQLite file's write lock, kept a chat turn or a signal waiting past
the gateway's 503, and it was recorded once the lock went: the user, told it had failed, saw
it in the log later. Each statement is now bounded (`BATON_DATABASE_STATEMENT_TIMEOUT_SECONDS`):
the request is answered `unavailable` while the gateway still waits, and nothing of it is
recorded later.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from baton_contracts.agent_api import AgentReply, RunAgent

from ...database_locks import TableLock, file_locked
from ...platform_stack import User, gateway_client, running_stack
from .conftest import agent_answering

STATEMENT_TIMEOUT = 0.5
GATEWAY = {"chat_timeout_seconds": 3.5, "request_timeout_seconds": 2.5}
"""Scaled down from the defaults, in the same order: a statement's bound well inside the
gateway's wait, so the workflow service answers before the gateway gives up."""
DATABASE_UNAVAILABLE = "the workflow service's database is unavailable"


@asynccontextmanager
async def agent(
    nats_url: str, before: Callable[[RunAgent], Awaitable[None]]
) -> AsyncIterator[None]:
    """An `agent.cmd.run` responder that awaits `before(turn)`, then answers."""

    async def answer(turn: RunAgent) -> AgentReply:
        await before(turn)
        return AgentReply(message=f"answer to {turn.message}")

    async with agent_answering(nats_url, answer):
        yield


@asynccontextmanager
async def bounded_platform(
    nats_url: str, folder: Path, name: str, **settings: Any
) -> AsyncIterator[User]:
    """User `name`, started on the platform without an agent-runner, its statements bounded
    (`STATEMENT_TIMEOUT`) well inside the gateway's wait (`GATEWAY`); `settings` add to it."""
    async with (
        running_stack(
            nats_url,
            folder,
            agent_runner=False,
            database_statement_timeout_seconds=STATEMENT_TIMEOUT,
            gateway=GATEWAY,
            **settings,
        ) as stack,
        gateway_client(stack) as http,
    ):
        user = User(http, name)
        await user.start()
        yield user


async def signal(user: User, command_id: str) -> httpx.Response:
    return await user.http.post(
        f"/api/workflows/{user.instance}/signal",
        json={"action": "stay", "command_id": command_id},
        headers=user.headers,
    )


async def signals_recorded(user: User) -> list[str]:
    log = await user.get(f"/api/workflows/{user.instance}/events")
    return [
        e["payload"]["command_id"] for e in log["events"] if e["type"].endswith("signal_received")
    ]


async def signals_around(
    user: User, lock: AbstractAsyncContextManager[None]
) -> tuple[httpx.Response, httpx.Response, list[str]]:
    """The answers to a signal sent while `lock` is held and to one sent once it has gone,
    and the signals recorded then."""
    async with lock:
        held = await signal(user, "held")
    # Taken after whatever is left of the held signal: it holds the instance until it ends.
    after = await signal(user, "after")
    return held, after, await signals_recorded(user)


async def chat(user: User) -> list[str]:
    log = await user.get(f"/api/workflows/{user.instance}/messages")
    return [m["text"] for m in log["messages"]]


def assert_answered_by_the_workflow_service(response: httpx.Response) -> None:
    """A 503 of the workflow service itself, not the gateway's "no reply within": it came
    while the gateway still waited, so nothing of it is carried out after it. It says so, as
    the agent-runner's do: a client knows that sending it again is safe."""
    assert response.status_code == 503, response.text
    message = response.json()["error"]["message"]
    assert DATABASE_UNAVAILABLE in message, response.text
    assert "; nothing was recorded: send it again" in message, response.text


@pytest.mark.postgres
async def test_a_signal_behind_a_locked_table_fails_in_time_and_is_never_recorded(
    nats_url: str, tmp_path: Path, postgres_url: str
) -> None:
    async with bounded_platform(
        nats_url, tmp_path, "locked-signal", database_url=postgres_url
    ) as user:
        held, after, recorded = await signals_around(user, TableLock(postgres_url))

    assert_answered_by_the_workflow_service(held)
    assert after.status_code == 200, after.text
    assert recorded == ["after"]


@pytest.mark.postgres
async def test_a_turn_whose_append_meets_a_locked_table_fails_in_time_and_is_never_recorded(
    nats_url: str, tmp_path: Path, postgres_url: str
) -> None:
    lock = TableLock(postgres_url)

    async def lock_during_the_first_turn(turn: RunAgent) -> None:
        if turn.message == "first":
            await lock.take()  # the agent has answered; the turn's append meets the lock

    async with (
        bounded_platform(
            nats_url,
            tmp_path,
            "locked-turn",
            database_url=postgres_url,
            agent_call_timeout_seconds=2.0,
        ) as user,
        agent(nats_url, lock_during_the_first_turn),
    ):
        try:
            first = await user.send("first", "m1")
        finally:
            await lock.release()
        second = await user.send("second", "m2")
        said = await chat(user)

    assert_answered_by_the_workflow_service(first)
    assert second.status_code == 200, second.text
    assert said == ["second", "answer to second"]


async def test_a_signal_behind_another_processes_sqlite_write_fails_in_time_and_is_never_recorded(
    nats_url: str, tmp_path: Path
) -> None:
    async with bounded_platform(nats_url, tmp_path, "locked-file") as user:
        held, after, recorded = await signals_around(user, file_locked(tmp_path / "workflow.db"))

    assert_answered_by_the_workflow_service(held)
    assert after.status_code == 200, after.text
    assert recorded == ["after"]


async def test_a_signal_queued_behind_a_slow_turn_ends_by_its_own_deadline_recording_nothing(
    nats_url: str, tmp_path: Path
) -> None:
    # A signal sent while a chat turn of the instance waited for its agent waited for the
    # instance however long that took: the gateway answered 503 after its 2.5 s, and the
    # signal was recorded once the turn ended. It now waits until its own deadline, counted
    # from its arrival (`BATON_SIGNAL_TIMEOUT_SECONDS`), and is refused then.
    asked, answer = asyncio.Event(), asyncio.Event()

    async def slow(turn: RunAgent) -> None:
        asked.set()
        await answer.wait()

    async with (
        running_stack(
            nats_url,
            tmp_path,
            agent_runner=False,
            agent_call_timeout_seconds=3.0,
            signal_timeout_seconds=1.0,
            gateway={"chat_timeout_seconds": 5.0, "request_timeout_seconds": 2.5},
        ) as stack,
        gateway_client(stack) as http,
        agent(nats_url, slow),
    ):
        user = User(http, "queued-signal")
        await user.start()
        turn = asyncio.create_task(user.send("first", "m1"))
        await asyncio.wait_for(asked.wait(), 5)
        try:
            held = await signal(user, "held")
        finally:
            answer.set()
        assert (await turn).status_code == 200
        after = await signal(user, "after")
        recorded = await signals_recorded(user)

    assert held.status_code == 503, held.text
    assert held.json()["error"]["message"] == (
        "another message or signal to this instance was still being handled; nothing was "
        "recorded: send it again"
    )
    assert after.status_code == 200, after.text
    assert recorded == ["m1", "after"]  # the turn's own signal, and the later one
