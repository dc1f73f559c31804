"""An append cut off as PostgreSQL shuts down is looked up at once (`asyncpg_recovery.recover`),
while the server still refuses connections or says it is shutting down or starting up: the
look-up is tried again for a moment, so a quick restart is ridden out instead of answered
with a 503.
And `prune_leases`, an idempotent DELETE, runs again when a restart cuts it off."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from baton_eventstore import NewEvent, SqlEventStore
from baton_eventstore.asyncpg_recovery import FIRST_LOOKUP_PAUSE, LOOKUP_PATIENCE
from baton_eventstore.unavailable import StoreUnavailable

from ...postgres_sessions import PoolConnects, cut_after, fail_first

pytestmark = pytest.mark.postgres

INSERT = "INSERT INTO events"


def cut_off() -> asyncpg.ConnectionDoesNotExistError:
    """What asyncpg raises when the server goes away while a statement is in flight."""
    return asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")


def shutting_down() -> Exception:
    return asyncpg.CannotConnectNowError("the database system is shutting down")


def starting_up() -> Exception:
    return asyncpg.CannotConnectNowError("the database system is starting up")


def refused() -> Exception:
    return ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[SqlEventStore]:
    store = await SqlEventStore.from_url(postgres_url, pool_size=2, max_overflow=0)
    yield store
    await store.close()


def event() -> NewEvent:
    return NewEvent(uuid.uuid4(), "test.a", {})


async def test_an_append_cut_as_the_server_shuts_down_waits_for_it_to_answer_again(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The append committed and its connection was cut; the server then refused the
    look-up's connections for a moment (a 503 before), and answers once restarted."""
    connects = PoolConnects(monkeypatch)

    async def restart() -> None:  # the server goes down as the statement's answer is lost
        connects.refusals += [shutting_down(), refused(), starting_up()]

    calls = cut_after(monkeypatch, "fetch", INSERT, cut_off(), meanwhile=restart)
    stream, first = f"cut-{uuid.uuid4()}", event()
    with caplog.at_level("WARNING", logger="baton_eventstore.asyncpg_append"):
        recorded = await store.append(stream, 0, [first])
    assert connects.refusals == []  # every refusal met, then a connection made
    assert "the database could not be reached to look a cut-off append up" in caplog.text
    assert "the database system is starting up" in caplog.text
    assert "the append had been committed: answered as committed" in caplog.text
    assert sum(INSERT in query for query in calls) == 1  # not written again
    monkeypatch.undo()
    loaded = await store.load(stream)
    assert [(e.event_id, e.position) for e in loaded] == [(first.event_id, recorded[0].position)]


async def test_an_append_cut_before_it_committed_is_written_once_the_server_is_back(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut off uncommitted as the server went down: looked up once it answers again, found
    missing, and written once more (after a restart that committed nothing of it)."""
    connects = PoolConnects(monkeypatch)
    real = asyncpg.Connection.fetch
    inserts: list[str] = []

    async def cut_unsent(self: asyncpg.Connection, query: str, *args: object) -> object:
        if INSERT in query:
            inserts.append(query)
            if len(inserts) == 1:
                connects.refusals += [shutting_down(), starting_up()]
                raise cut_off()
        return await real(self, query, *args)

    monkeypatch.setattr(asyncpg.Connection, "fetch", cut_unsent)
    stream, first = f"cut-{uuid.uuid4()}", event()
    recorded = await store.append(stream, 0, [first])
    assert connects.refusals == [] and len(inserts) == 2
    monkeypatch.undo()
    assert [(e.event_id, e.version) for e in await store.load(stream)] == [(first.event_id, 1)]
    assert recorded[0].version == 1


async def test_a_lookup_that_never_reaches_the_database_fails_after_a_few_tries(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A longer outage still fails the append, `unavailable`, within `LOOKUP_PATIENCE`."""
    connects = PoolConnects(monkeypatch)

    async def down_for_good() -> None:
        connects.refusals += [refused() for _ in range(100)]
        connects.tries = 0

    cut_after(monkeypatch, "fetch", INSERT, cut_off(), meanwhile=down_for_good)
    with pytest.raises(StoreUnavailable, match="ConnectionRefusedError"):
        await store.append(f"cut-{uuid.uuid4()}", 0, [event()])
    # Pauses of 0.1, 0.2, 0.4, 0.8 s fit in `LOOKUP_PATIENCE` (2 s): five tries at most.
    assert LOOKUP_PATIENCE == 2.0 and FIRST_LOOKUP_PAUSE == 0.1
    assert 2 <= connects.tries <= 5


async def test_a_lookup_is_not_tried_again_past_the_appends_start_by(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its caller has answered by then: the append fails at once, as before."""
    assert store.appender is not None
    connects = PoolConnects(monkeypatch)
    start_by = datetime.now(UTC) + timedelta(seconds=0.2)

    async def down_past_the_start_by() -> None:
        while datetime.now(UTC) < start_by:  # noqa: ASYNC110 (a clock, no event)
            await asyncio.sleep(0.05)
        connects.refusals += [shutting_down() for _ in range(100)]
        connects.tries = 0

    cut_after(monkeypatch, "fetch", INSERT, cut_off(), meanwhile=down_past_the_start_by)
    with pytest.raises(StoreUnavailable, match="shutting down"):
        await store.appender.append(
            f"cut-{uuid.uuid4()}", 0, [event()], datetime.now(UTC), start_by=start_by
        )
    assert connects.tries == 1


async def test_a_prune_of_leases_cut_off_runs_again(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A restart cut the DELETE off: it may have run, and a second run deletes only what is
    still expired, so it runs again on a new connection (before: `unavailable`)."""
    for n in range(3):
        assert await store.outbox.acquire_lease(f"dagrun:{n}", "gone", -60.0)
    assert await store.outbox.acquire_lease("dagrun:live", "me", 60.0)
    calls = fail_first(monkeypatch, "fetch", cut_off(), marker="DELETE FROM outbox_lease")
    with caplog.at_level("WARNING", logger="baton_eventstore.asyncpg_append"):
        assert await store.outbox.prune_leases("dagrun:", 0) == 3
    assert sum("DELETE FROM outbox_lease" in query for query in calls) == 2
    assert "retried on a new connection" in caplog.text
    monkeypatch.undo()
    assert await store.outbox.prune_leases("dagrun:", 0) == 0
    assert not await store.outbox.acquire_lease("dagrun:live", "other", 60.0)


async def test_a_prune_of_leases_cut_off_after_it_ran_is_not_an_outage(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        assert await store.outbox.acquire_lease(f"dagrun:{n}", "gone", -60.0)
    calls = cut_after(monkeypatch, "fetch", "DELETE FROM outbox_lease", cut_off())
    assert await store.outbox.prune_leases("dagrun:", 0) == 0  # the first run deleted them
    assert sum("DELETE FROM outbox_lease" in query for query in calls) == 2
