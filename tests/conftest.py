"""Fixtures every tier shares: a real NATS server on a free port, and PostgreSQL when CI has one;
and the checks after every test: held ports let go, no NATS client left open."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path

import pytest

from baton_messaging.embedded import EmbeddedNatsServer
from tests import open_nats_clients
from tests.held_ports import release_held_ports

POSTGRES_ENV = "BATON_TEST_POSTGRES_URL"


@pytest.fixture(autouse=True)
def _release_held_ports() -> Iterator[None]:
    """The ports the test held (`tests.held_ports.held_port`) go with it."""
    yield
    release_held_ports()


def pytest_configure(config: pytest.Config) -> None:
    open_nats_clients.install()


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[object]) -> Generator[None, object, object]:
    """A client a session's (or a module's) fixture connects outlives each test by design."""
    with open_nats_clients.fixture_setting_up(fixturedef.scope):
        return (yield)


@pytest.fixture(autouse=True)
def _no_nats_client_left_open() -> Iterator[None]:
    """A client left open reconnects, and logs each refusal at ERROR, into the tests after
    this one once its server stops: this test fails instead, saying where it made it. A
    reconnect loop that outlived its client's close (a race in nats-py on Python 3.11, not
    the test's doing) is ended here too, without failing the test."""
    open_nats_clients.forget_noted()
    yield
    leaks = open_nats_clients.left_open()
    open_nats_clients.close_noted()
    open_nats_clients.forget_noted()
    if leaks:
        pytest.fail(open_nats_clients.described(leaks), pytrace=False)


@pytest.fixture(scope="session")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedNatsServer]:
    """One `nats-server -js` for the session, on 127.0.0.1 at a free port."""
    server = EmbeddedNatsServer(store_dir=tmp_path_factory.mktemp("nats"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def nats_url(nats_server: EmbeddedNatsServer) -> str:
    return nats_server.url


def postgres_admin_url() -> str:
    """The CI PostgreSQL URL, or a skip that says why."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(f"PostgreSQL tests need {POSTGRES_ENV} (CI sets it; see .ci/run)")
    return url


def _asyncpg_dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


def _with_database(url: str, name: str) -> str:
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


@pytest.fixture
async def postgres_url() -> AsyncIterator[str]:
    """A fresh, empty PostgreSQL database for one test (SQLAlchemy asyncpg URL); dropped after."""
    import asyncpg

    admin = postgres_admin_url()
    name = f"baton_t_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(_asyncpg_dsn(admin))
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    url = _with_database(admin, name)
    if url.startswith("postgresql://"):
        url = url.replace("postgresql://", "postgresql+asyncpg://", 1)
    yield url
    conn = await asyncpg.connect(_asyncpg_dsn(admin))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite file in the test's own folder (SQLAlchemy aiosqlite URL)."""
    return f"sqlite+aiosqlite:///{tmp_path / 'baton.db'}"
