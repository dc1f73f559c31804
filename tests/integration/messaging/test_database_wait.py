"""A service started before its database waits for it, says so, and starts once it is up.

Services and their database may start in any order (an orchestrator starts them together):
the first use of the database is retried while it is unavailable. A stop during the wait ends
the service at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.held_ports import held_port

WAITING = "is unavailable ("


async def _service(database_url: str, nats_url: str, tmp_path: Path) -> asyncio.subprocess.Process:
    env = {**os.environ, "BATON_NATS_URL": nats_url, "BATON_DATABASE_URL": database_url,
           "BATON_QDRANT_PATH": str(tmp_path / "q")}  # fmt: skip
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "baton_workflow", env=env, stderr=asyncio.subprocess.PIPE
    )


async def _line_with(process: asyncio.subprocess.Process, text: str, seen: list[str]) -> str:
    assert process.stderr is not None
    async with asyncio.timeout(60):
        while line := (await process.stderr.readline()).decode():
            seen.append(line)
            if text in line:
                return line
    raise AssertionError(f"the service exited without saying {text!r}: {''.join(seen)}")


@contextlib.asynccontextmanager
async def _forwarding(port: int, to_host: str, to_port: int) -> AsyncIterator[None]:
    """A TCP forwarder on `port`: the database "comes up" when it starts."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(to_host, to_port)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(forward, "127.0.0.1", port)
    try:
        yield
    finally:
        server.close()


async def test_a_stop_while_waiting_for_the_database_ends_the_service_at_once(
    nats_url: str, tmp_path: Path
) -> None:
    port = held_port()
    dead = f"postgresql+asyncpg://baton:secret@127.0.0.1:{port}/baton"
    process = await _service(dead, nats_url, tmp_path)
    seen: list[str] = []
    try:
        line = await _line_with(process, WAITING, seen)
        shown = f"postgresql+asyncpg://baton:***@127.0.0.1:{port}/baton"
        assert f"the database at {shown} (BATON_DATABASE_URL) is unavailable (" in line
        assert line.rstrip().endswith("; still trying")
        # Ten seconds on, the start's own line names the database beside NATS.
        line = await _line_with(process, "is not ready after 10 s", seen)
        assert f"it needs NATS at {nats_url} and the database at {shown}; still trying" in line
        assert "secret" not in "".join(seen)
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(20):
            assert await process.wait() == 0
        assert process.stderr is not None
        rest = (await process.stderr.read()).decode()
        assert "workflow stopping before it was ready" in rest
        assert "Traceback" not in "".join(seen) + rest
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.postgres
async def test_a_service_started_before_its_database_starts_once_it_is_up(
    postgres_url: str, nats_url: str, tmp_path: Path
) -> None:
    real = make_url(postgres_url)
    port = held_port()
    late = real.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
    process = await _service(late, nats_url, tmp_path)
    seen: list[str] = []
    try:
        await _line_with(process, WAITING, seen)
        async with _forwarding(port, real.host or "127.0.0.1", real.port or 5432):
            await _line_with(process, "is available", seen)
            await _line_with(process, "workflow ready", seen)
            process.send_signal(signal.SIGTERM)
            async with asyncio.timeout(20):
                assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
