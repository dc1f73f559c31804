"""A service stops itself when the `baton up` that started it is gone (its lifeline pipe ends)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from baton_messaging.lifeline import LIFELINE_ENV, lifeline_fd
from baton_messaging.process import serve


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """(read end, write end); whichever the test left open is closed after it."""
    ends = os.pipe()
    yield ends
    for fd in ends:
        with contextlib.suppress(OSError):
            os.close(fd)


def test_no_variable_means_no_lifeline() -> None:
    assert lifeline_fd({}) is None
    assert lifeline_fd({LIFELINE_ENV: " "}) is None


def test_the_read_end_of_a_pipe_is_the_lifeline(pipe: tuple[int, int]) -> None:
    assert lifeline_fd({LIFELINE_ENV: str(pipe[0])}) == pipe[0]


def test_a_bad_lifeline_is_refused_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"^{LIFELINE_ENV}: expected a file descriptor number"):
        lifeline_fd({LIFELINE_ENV: "stdin"})
    closed = os.open(tmp_path / "f", os.O_CREAT | os.O_RDONLY)
    os.close(closed)
    with pytest.raises(ValueError, match=f"^{LIFELINE_ENV}: descriptor {closed} is not open"):
        lifeline_fd({LIFELINE_ENV: str(closed)})
    with open(tmp_path / "f") as regular:
        fd = regular.fileno()
        with pytest.raises(ValueError, match=f"^{LIFELINE_ENV}: descriptor {fd} is not a pipe"):
            lifeline_fd({LIFELINE_ENV: str(fd)})


class _Service:
    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.stopped = False

    async def start(self) -> None:
        self.started.set()

    async def stop(self) -> None:
        self.stopped = True


async def test_the_end_of_the_lifeline_stops_the_service(
    pipe: tuple[int, int], caplog: pytest.LogCaptureFixture
) -> None:
    read, write = pipe
    service = _Service()
    with caplog.at_level(logging.INFO):
        serving = asyncio.create_task(serve("probe", service, lifeline=read))
        await asyncio.wait_for(service.started.wait(), 10)
        os.write(write, b"noise")  # bytes in the pipe are not its end: it keeps serving
        await asyncio.sleep(0.2)
        assert not serving.done() and not service.stopped
        os.close(write)  # as the kernel does when `baton up` dies, however it dies
        await asyncio.wait_for(serving, 10)
    assert service.stopped
    said = [record.getMessage() for record in caplog.records]
    assert "probe: baton up, which started it, is gone; stopping" in said


async def test_without_a_lifeline_only_a_signal_stops_the_service() -> None:
    service = _Service()
    serving = asyncio.create_task(serve("probe", service))
    await asyncio.wait_for(service.started.wait(), 10)
    await asyncio.sleep(0.1)
    assert not serving.done()
    signal.raise_signal(signal.SIGTERM)
    await asyncio.wait_for(serving, 10)
    assert service.stopped


GATEWAY = [sys.executable, "-m", "baton_notifier"]


def test_the_gateway_refuses_a_bad_lifeline_in_one_line() -> None:
    env = {**os.environ, LIFELINE_ENV: "x", "BATON_JWT_SECRET": "s" * 32}
    run = subprocess.run(GATEWAY, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"baton-notifier: {LIFELINE_ENV}: expected a file descriptor number, got 'x'"
    ]
