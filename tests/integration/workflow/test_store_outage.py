"""The workflow's database failing under a request: 503 `unavailable`, nothing changed, and the
same request retried takes effect once; any other failure stays a 500 `internal`."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest
from nats.aio.client import Client
from sqlalchemy import exc as sa_exc

from baton_contracts import HEALTH_QUERIES, HealthStatus
from baton_eventstore import SqlEventStore, StoreUnavailable, create_engine
from baton_messaging import request
from baton_workflow.adapters.instances import SqlInstanceRepository
from baton_workflow.bootstrap import WorkflowApp
from tests.held_ports import held_port

from .test_http_api import auth

LOCKED = sa_exc.OperationalError(
    "INSERT INTO events ...", {}, sqlite3.OperationalError("database is locked")
)
FULL = StoreUnavailable("SQLite: OperationalError: database or disk is full")
FULL.__cause__ = sqlite3.OperationalError("database or disk is full")  # as the appender raises it
CONNECTION_LOST = StoreUnavailable("PostgreSQL: ConnectionDoesNotExistError: connection was closed")


def fail_next_append(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """The store's next append raises `error` (having written nothing); later ones work."""
    real = SqlEventStore.append
    pending = [error]

    async def append(self: SqlEventStore, *args: Any, **kwargs: Any) -> Any:
        if pending:
            raise pending.pop()
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(SqlEventStore, "append", append)


async def events(gateway: Any, user: str, instance: str) -> list[str]:
    log = await gateway.get(f"/api/workflows/{instance}/events", headers=auth(gateway, user))
    return [e["type"] for e in log.json()["events"]]


@pytest.mark.parametrize(
    ("error", "said"),
    [
        # Refused by the database: rolled back, so the client is told a retry is safe.
        (LOCKED, "database is unavailable; nothing was recorded: send it again"),
        # Broken mid-statement: it may have committed just before.
        (CONNECTION_LOST, "database is unavailable; try again later"),
        # SQLITE_FULL: rolled back too, and waiting does not help: the answer says what does.
        (
            FULL,
            "the workflow service's storage is full (no space left for its database); "
            "nothing was recorded: send it again once space is freed",
        ),
    ],
    ids=["sqlite-locked", "pg-lost", "sqlite-full"],
)
async def test_a_store_outage_is_503_and_the_retry_counts_once(
    gateway: Any,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    said: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    started = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, "otto")
    )
    instance = started.json()["instance_id"]
    before = await events(gateway, "otto", instance)
    headers = {**auth(gateway, "otto"), "Idempotency-Key": "retry-me"}
    body = {"action": "stay", "data": {"n": 1}}
    fail_next_append(monkeypatch, error)

    failed = await gateway.post(f"/api/workflows/{instance}/signal", json=body, headers=headers)
    assert failed.status_code == 503, failed.text
    assert failed.json()["error"]["code"] == "unavailable"
    assert said in failed.json()["error"]["message"]
    assert await events(gateway, "otto", instance) == before
    # Logged in one line naming the fault, no traceback: an outage repeats it on every request.
    (logged,) = [r for r in caplog.records if "database is unavailable" in r.getMessage()]
    assert logged.levelno == logging.WARNING and logged.exc_info is None
    assert type(error).__name__ in logged.getMessage()

    for _ in range(2):  # the client's retry, and a retry of the retry
        again = await gateway.post(f"/api/workflows/{instance}/signal", json=body, headers=headers)
        assert again.status_code == 200, again.text
        assert again.json()["outcome"] == "stayed"
    assert await events(gateway, "otto", instance) == [*before, "workflow.signal_received"]


async def test_a_failure_that_is_not_the_store_stays_internal(
    gateway: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, "una")
    )
    instance = started.json()["instance_id"]
    fail_next_append(monkeypatch, RuntimeError("a bug"))
    failed = await gateway.post(
        f"/api/workflows/{instance}/signal", json={"action": "stay"}, headers=auth(gateway, "una")
    )
    assert failed.status_code == 500, failed.text
    assert failed.json()["error"]["code"] == "internal"
    assert "a bug" not in failed.text


async def test_health_says_so_while_the_database_does_not_answer(
    workflow: WorkflowApp, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It reported the flag set at start: healthy, with every request answering 503.
    assert (await request(client, HEALTH_QUERIES["workflow"](), timeout=5.0)).healthy
    gone = create_engine(f"postgresql+asyncpg://postgres@127.0.0.1:{held_port()}/gone")
    monkeypatch.setattr(workflow.store, "engine", gone)
    status = await request(client, HEALTH_QUERIES["workflow"](), timeout=5.0)
    await gone.dispose()
    checks = {"database": False, "events_published": True}
    assert status == HealthStatus(service="workflow", healthy=False, checks=checks)


async def test_a_query_during_an_outage_is_told_to_try_again_not_about_command_ids(
    gateway: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = await gateway.post(
        "/api/workflows", json={"workflow_id": "onboarding"}, headers=auth(gateway, "vera")
    )
    instance = started.json()["instance_id"]
    real = SqlInstanceRepository.records
    pending = [CONNECTION_LOST]

    async def records(self: SqlInstanceRepository, *args: Any, **kwargs: Any) -> Any:
        if pending:
            raise pending.pop()
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(SqlInstanceRepository, "records", records)
    path = f"/api/workflows/{instance}/events"
    failed = await gateway.get(path, headers=auth(gateway, "vera"))
    assert failed.status_code == 503, failed.text
    # A read records nothing and has no id to repeat: the advice for commands would mislead.
    assert failed.json()["error"]["message"] == (
        "the workflow service's database is unavailable; try again later"
    )
    again = await gateway.get(path, headers=auth(gateway, "vera"))
    assert again.status_code == 200, again.text
