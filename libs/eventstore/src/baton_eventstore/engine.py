"""Async engines tuned per backend: SQLite (aiosqlite, WAL) and PostgreSQL (asyncpg)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import Engine, Executable, Result, event, text
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from baton_eventstore.pool import DEFAULT_POOL_SIZE
from baton_eventstore.unavailable import (
    CONNECTION_LOST_SAYS,
    READ_ONLY_SQLSTATE,
    NoAnswer,
    connection_lost,
)

log = logging.getLogger(__name__)

SQLITE_BUSY_TIMEOUT_MS = 30_000

_WRITE_LOCKS: weakref.WeakKeyDictionary[Engine, asyncio.Lock] = weakref.WeakKeyDictionary()


OLTP_SESSION = {"jit": "off"}
"""Session settings of every PostgreSQL connection Baton opens. Its statements are short and
touch a few rows by key, and PostgreSQL's JIT compiler (on by default since 13) compiles a
statement whose estimated cost passes `jit_above_cost`: asyncpg's type introspection on each
new connection, the relay's lease, any generic plan estimated high. One compilation costs
10-200 ms of CPU for a statement that runs in well under a millisecond. Measured on the
benchmark's platform, the idle workflow service's relay connection spent 23-31 ms of CPU per
second compiling (`docs/performance-history.md`)."""


_SESSIONS: weakref.WeakKeyDictionary[Engine, dict[str, str]] = weakref.WeakKeyDictionary()

CLIENT_MARGIN_SECONDS = 1.0
"""How long past the statement timeout the client itself waits for a statement's answer, on
PostgreSQL. The server ends a statement at its `statement_timeout`; one that says nothing at
all (stopped, wedged, cut off by the network without a reset) ends none, and every statement
sent to it waited until it came back, or until TCP gave up, many minutes later: a request to
the workflow service was never answered by it, and its callers gave up first."""
NO_ANSWER = "PostgreSQL: no answer in time: the server, or the network to it, hangs"
"""What a statement the client stopped waiting for (`CLIENT_MARGIN_SECONDS`) is told."""

_CLIENT_BOUNDS: weakref.WeakKeyDictionary[Engine, dict[str, float]] = weakref.WeakKeyDictionary()


def create_engine(
    url: str,
    *,
    pool_size: int | None = None,
    statement_timeout: float | None = None,
    **kwargs: Any,
) -> AsyncEngine:
    """An AsyncEngine for `sqlite+aiosqlite://` or `postgresql+asyncpg://` URLs.

    `pool_size` (PostgreSQL; SQLite ignores it) is the most connections the engine's pool
    opens, 20 when not given; a store's append pool opens as many again (`AsyncpgAppender`).

    `statement_timeout` (seconds) bounds every statement of the engine's sessions, and of its
    store's append pool: PostgreSQL's `statement_timeout` (a wait for a lock included), on
    SQLite the busy timeout (the wait for another process's write lock). A statement that
    cannot finish within it fails, having written nothing, and is `unavailable`
    (`is_unavailable`); without it, a session holding `LOCK TABLE events` kept requests
    waiting, and recorded, after their callers had given up on them. Set once per
    connection, it costs no round trip. Migrations are exempt (`without_statement_timeout`).
    On PostgreSQL the client also stops waiting `CLIENT_MARGIN_SECONDS` later, for a server
    that answers nothing (asyncpg's `command_timeout`: `NoAnswer(NO_ANSWER)`,
    whether the statement ran not known), and gives a new connection as long to be made
    (asyncpg's own 60 s held a request as long on a server that took the connection and said
    nothing).
    """
    if statement_timeout is not None and statement_timeout <= 0:
        raise ValueError(f"statement_timeout: must be above 0, not {statement_timeout}")
    if url.startswith("sqlite"):
        busy_ms = SQLITE_BUSY_TIMEOUT_MS if statement_timeout is None else _ms(statement_timeout)
        return _sqlite_engine(url, busy_ms, **kwargs)
    if url.startswith("postgresql"):
        if url.startswith(("postgresql://", "postgres://")):
            url = "postgresql+asyncpg://" + url.split("://", 1)[1]
        if pool_size is not None and pool_size < 1:
            raise ValueError(f"pool_size: must be at least 1, not {pool_size}")
        # No overflow: an overflow connection is closed when returned, so a burst above the
        # pool size reconnects on every checkout (3x slower appends with 50 writers, measured).
        # Callers beyond the pool wait for a connection instead.
        options: dict[str, Any] = {
            "pool_size": DEFAULT_POOL_SIZE if pool_size is None else pool_size,
            "max_overflow": 0,
            "pool_recycle": 1800,
        }
        connect_args = dict(kwargs.pop("connect_args", None) or {})
        bound = (
            {} if statement_timeout is None else {"statement_timeout": str(_ms(statement_timeout))}
        )
        client = {} if statement_timeout is None else client_bounds(statement_timeout)
        connect_args = {**client, **connect_args}
        connect_args["server_settings"] = session = {
            **OLTP_SESSION,
            **bound,
            **(connect_args.get("server_settings") or {}),
        }
        engine = create_async_engine(url, connect_args=connect_args, **{**options, **kwargs})
        event.listen(engine.sync_engine, "do_connect", _connect_or_say_why)
        event.listen(engine.sync_engine, "checkout", _replace_if_closed)
        event.listen(engine.sync_engine, "handle_error", _drop_if_lost_or_read_only)
        event.listen(engine.sync_engine, "invalidate", _close_at_once)
        _SESSIONS[engine.sync_engine] = session
        _CLIENT_BOUNDS[engine.sync_engine] = {
            key: connect_args[key] for key in client if connect_args[key] is not None
        }
        return engine
    raise ValueError(f"url: unsupported database {url.split(':', 1)[0]!r} (sqlite or postgresql)")


def session_settings(engine: AsyncEngine) -> dict[str, str]:
    """The PostgreSQL session settings the engine's connections open with (`OLTP_SESSION`,
    the statement timeout, a caller's own), for another pool on its database to take too."""
    return dict(_SESSIONS.get(engine.sync_engine, OLTP_SESSION))


def client_bounds(statement_timeout: float) -> dict[str, float]:
    """asyncpg's own bounds for a statement (`command_timeout`) and a new connection
    (`timeout`) on a server whose statements end at `statement_timeout` seconds."""
    command = statement_timeout + CLIENT_MARGIN_SECONDS
    return {"command_timeout": command, "timeout": command}


def connection_bounds(engine: AsyncEngine) -> dict[str, float]:
    """The client bounds the engine's connections open with (`client_bounds`, or a caller's
    own `connect_args`), for another pool on its database to take too."""
    return dict(_CLIENT_BOUNDS.get(engine.sync_engine, {}))


def _ms(seconds: float) -> int:
    return max(round(seconds * 1000), 1)  # 0 would mean no bound at all


@asynccontextmanager
async def without_statement_timeout(conn: AsyncConnection) -> AsyncIterator[None]:
    """No statement timeout on `conn` while the block runs, for work that may rightly take
    long: a migration waiting for another replica's, an index built on a large table, a
    start-up check reading a whole table. On PostgreSQL until `conn`'s transaction ends (it
    begins here if it has not); on SQLite the busy timeout is `SQLITE_BUSY_TIMEOUT_MS` until
    the block ends."""
    if conn.dialect.name == "postgresql":
        await conn.exec_driver_sql("SET LOCAL statement_timeout = 0")
        # The client's own bound (`CLIENT_MARGIN_SECONDS`) goes too, until the block ends.
        driver: Any = (await conn.get_raw_connection()).driver_connection
        config = driver._config  # asyncpg's: it has no public way to change it
        driver._config = config._replace(command_timeout=None)
        try:
            yield
        finally:
            driver._config = config
        return
    busy = int((await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() or 0)
    if busy >= SQLITE_BUSY_TIMEOUT_MS:
        yield
        return
    await conn.exec_driver_sql(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    try:
        yield
    finally:
        if not conn.invalidated:  # pooled again with the engine's own bound
            await conn.exec_driver_sql(f"PRAGMA busy_timeout={busy}")


def _connect_or_say_why(dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
    """A new connection; one the server took and then said nothing on, past the client's
    bound, is `NoAnswer(NO_ANSWER)`: asyncpg's `TimeoutError` says nothing, and is
    raised past `handle_error` when it comes from a connect."""
    try:
        return dialect.connect(*cargs, **cparams)
    except TimeoutError as exc:
        raise NoAnswer(NO_ANSWER) from exc


def _replace_if_closed(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A pooled connection the server has ended is replaced as it is checked out.

    asyncpg learns that the server ended a connection (`pg_terminate_backend`, a restart, a
    failover) when its socket closes, also while it sits idle in the pool; a statement on it
    then fails at once (`connection is closed`), so a pool of them failed that many statements
    after every cut. The pool opens a new connection instead when told so here. Unlike
    `pool_pre_ping` this costs no round trip: it asks asyncpg what it already knows."""
    if dbapi_connection.driver_connection.is_closed():
        raise DisconnectionError("the server ended this pooled connection")


def _drop_if_lost_or_read_only(context: Any) -> None:
    """A connection the server closed drops the pool's connections, as SQLAlchemy does for
    the disconnects it recognises itself: a restart or failover ended them all. SQLAlchemy
    takes asyncpg's word (`is_closed()`) only, and a session the server ended a moment ago
    is not closed yet there (`InternalClientError: cannot switch to state N; another
    operation (2) is in progress`): that connection went back to the pool, and every other
    one failed a statement of its own, one 503 each (`connection_lost`).

    So does a statement the client stopped waiting for (`CLIENT_MARGIN_SECONDS`).

    A write the server refused because it takes none (SQLSTATE 25006: the old primary after
    a failover, demoted to a standby) drops them too: kept, every write on it failed until
    `pool_recycle`, while a new connection may reach the new primary. The write is then
    `unavailable`, not a bug."""
    original = context.original_exception
    if getattr(original, "sqlstate", None) == READ_ONLY_SQLSTATE or connection_lost(original):
        context.is_disconnect = True
    elif isinstance(original, TimeoutError):
        # The client's own bound (`CLIENT_MARGIN_SECONDS`): the server answers nothing, and a
        # rollback on this connection would wait for that bound once more before the pool
        # dropped it. The pool's other connections are kept: each is given up on at its own
        # statement's bound, and works again once the server answers. Dropped with it, each
        # was closed at its next checkout with a goodbye the server never answered (2 s),
        # and a new connection then waited out its own bound: a read took the gateway's whole
        # wait. asyncpg's error says nothing.
        context.is_disconnect = True
        context.invalidate_pool_on_disconnect = False
        raise NoAnswer(NO_ANSWER) from original


def _close_at_once(dbapi_connection: Any, _record: Any, _exception: Any) -> None:
    """An invalidated connection is closed at once, its socket dropped. SQLAlchemy would first
    say goodbye to the server and wait up to 2 s for it to close its end: on a server that
    answers nothing (frozen, cut off by the network), every statement given up on
    (`CLIENT_MARGIN_SECONDS`) or cut off by its caller's deadline failed 2 s later. A
    statement still running on a server that does answer ends at its `statement_timeout`
    either way."""
    dbapi_connection.driver_connection.terminate()


async def read(engine: AsyncEngine, statement: Executable) -> Result[Any]:
    """The rows of the read `statement` on a pooled connection of `engine`, buffered; run
    once more, on a new connection, when the server had closed the first (a restart, a
    failover: each pooled connection it ended failed one read, a 503, until it was
    replaced). Only for statements that change nothing: it may run twice. Nothing is checked
    before the statement, so it costs no round trip when nothing failed."""
    try:
        async with engine.connect() as conn:
            return await conn.execute(statement)
    except DBAPIError as exc:
        if not connection_lost(exc):
            raise
        cause = (exc.orig.__cause__ if exc.orig is not None else None) or exc.orig or exc
        log.warning(
            "%s; retried on a new connection (%s: %s)",
            CONNECTION_LOST_SAYS,
            type(cause).__name__,
            cause,
        )
    async with engine.connect() as conn:
        return await conn.execute(statement)


def autocommit(engine: AsyncEngine) -> AsyncEngine:
    """On PostgreSQL, the same pool with each statement its own transaction: one read or one
    self-contained write costs one round trip, not BEGIN, the statement and COMMIT/ROLLBACK
    (`begin()` then sends nothing). For callers that run one statement per connection; a
    SQLAlchemy read through it costs about two thirds of the CPU (measured: 0.31 ms against
    0.45 per `SELECT 1`). SQLite is returned as it is."""
    if engine.dialect.name != "postgresql":
        return engine
    return engine.execution_options(isolation_level="AUTOCOMMIT")


def _sqlite_engine(url: str, busy_ms: int, **kwargs: Any) -> AsyncEngine:
    engine = create_async_engine(url, **kwargs)

    @event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
        cursor.close()
        dbapi_connection.run_async(_use_wal)
        cursor = dbapi_connection.cursor()
        # NORMAL under WAL loses at most the last commits on power loss, never corrupts.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "handle_error")
    def _drop_read_only(context: Any) -> None:
        # SQLite opens a file it may not write (a read-only disk or folder at that moment)
        # read-only without a word, and the connection stays so once the disk is writable
        # again: every write on it failed until the service restarted. Drop it from the pool.
        original = context.original_exception
        if isinstance(original, sqlite3.OperationalError) and "readonly database" in str(original):
            context.is_disconnect = True

    return engine


async def _use_wal(conn: Any) -> None:
    """Put the database in WAL mode (the file keeps it), waiting out another writer.

    Switching a file to WAL takes its write lock, and while another connection holds that
    lock SQLite answers "database is locked" at once, without calling the busy handler: a
    fresh database's first connections (components migrating it together) met that and
    failed to connect. They retry here, as the busy handler would, up to the busy timeout,
    sleeping on the event loop; a file already in WAL mode answers at once.
    """
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    pause = 0.001
    while True:
        try:
            await (await conn.execute("PRAGMA journal_mode=WAL")).close()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.1)


def write_lock(engine: AsyncEngine) -> asyncio.Lock:
    """The lock this process's writers to the engine's SQLite database queue on."""
    lock = _WRITE_LOCKS.get(engine.sync_engine)
    if lock is None:
        lock = _WRITE_LOCKS[engine.sync_engine] = asyncio.Lock()
    return lock


@asynccontextmanager
async def write_transaction(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """`engine.begin()`, and on SQLite one such write transaction of this process at a time.

    SQLite lets one connection write at a time and does not queue the others: a transaction
    that finds the database locked sleeps in SQLite's busy handler, in steps of 1 to 100 ms,
    until the lock is free. Two of a process's own writers (an append and the relay's delete)
    meeting there cost 50-100 ms at p99 (measured); an asyncio lock queues them instead, and
    the busy timeout is left for writers in other processes. PostgreSQL takes no lock here.
    """
    if engine.dialect.name != "sqlite":
        async with engine.begin() as conn:
            yield conn
        return
    async with write_lock(engine), engine.begin() as conn:
        yield conn


async def database_answers(engine: AsyncEngine, within: float = 1.0) -> bool:
    """Whether the database answers within `within` seconds and takes writes: what a
    service's health reports, so an orchestrator sees the outage its requests answer 503 for.
    PostgreSQL is asked in one statement whether its transactions are read-only (a hot
    standby, the old primary after a failover, `default_transaction_read_only`); SQLite must
    take a write (`_sqlite_takes_writes`)."""
    try:
        async with asyncio.timeout(within), engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                await _sqlite_takes_writes(conn, write_lock(engine))
                return True
            read_only = await conn.scalar(text("SELECT current_setting('transaction_read_only')"))
    except Exception:
        return False
    return bool(read_only == "off")


async def _sqlite_takes_writes(conn: AsyncConnection, lock: asyncio.Lock) -> None:
    """Raise unless `conn` can write: SQLite opens a file it may not write read-only without
    a word, and a read-only connection passes `SELECT 1` and even `BEGIN IMMEDIATE`, while
    every write on it fails. A write rolled back (`user_version` set to itself) does fail, and
    the failure drops the connection from the pool (`_drop_read_only`).

    A write lock held by a writer is no outage: one of this process (its `lock` taken) is not
    waited for, one of another process answers `locked` at once (busy timeout 0 for the
    probe), and either way the answer is only `SELECT 1`'s. The probe holds the lock for three
    statements; this process's writers queue behind it on `lock`."""
    if lock.locked():
        await conn.execute(text("SELECT 1"))
        return
    async with lock:
        busy = int((await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() or 0)
        await conn.exec_driver_sql("PRAGMA busy_timeout=0")
        restored = False
        try:
            await _write_rolled_back(conn)
            await conn.exec_driver_sql(f"PRAGMA busy_timeout={busy}")
            restored = True
        finally:
            if not restored and not conn.invalidated:
                await conn.invalidate()  # never pooled again with no busy timeout


async def _write_rolled_back(conn: AsyncConnection) -> None:
    try:
        await conn.exec_driver_sql("BEGIN IMMEDIATE")
    except OperationalError as exc:
        if "database is locked" in str(exc.orig):  # another process is writing
            return
        raise
    try:
        version = int((await conn.exec_driver_sql("PRAGMA user_version")).scalar() or 0)
        await conn.exec_driver_sql(f"PRAGMA user_version={version}")
    finally:
        await conn.rollback()
