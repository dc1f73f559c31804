"""The embedded nats-server as the supervisor sees it: when it dies, it is started again on the
same port and store dir, so the services reconnect and JetStream finds its data on disk."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from baton_messaging.embedded import NatsServerError


class NatsServer(Protocol):
    """What `SupervisedNats` needs of `EmbeddedNatsServer`."""

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        ...

    def launch(self) -> None:
        """Start it without waiting for it to be ready."""
        ...

    def wait_ready(self, timeout: float = ...) -> None:
        """Wait until it is ready; `NatsServerError` (and it is stopped) if it is not."""
        ...

    def stop(self, timeout: float = ...) -> None:
        """Stop it (a process that has exited already is only reaped)."""
        ...


async def child_exit(pid: int) -> str:
    """Wait until child `pid` has ended; how it did (`exited with code -9`: killed by signal
    9). It is left unreaped, for the `subprocess.Popen` that started it to collect."""
    loop = asyncio.get_running_loop()
    if not hasattr(os, "pidfd_open"):  # Linux only (macOS has none): look twice a second
        while (how := _how_it_ended(pid)) is None:  # noqa: ASYNC110 (a process, no event)
            await asyncio.sleep(0.5)
        return how
    try:
        fd = os.pidfd_open(pid)  # readable once the process has ended
    except ProcessLookupError:
        return "exited"
    try:
        ended: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not ended.done():
                ended.set_result(None)

        loop.add_reader(fd, readable)
        try:
            await ended
        finally:
            loop.remove_reader(fd)
    finally:
        os.close(fd)
    return _how_it_ended(pid) or "exited"


def _how_it_ended(pid: int) -> str | None:
    """How the child ended, or None while it runs."""
    try:
        # WNOHANG: never waits; WNOWAIT: Popen still collects it.
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return "exited"  # collected already, and its exit code with it
    if info is None:
        return None
    code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
    return f"exited with code {code}"


class SupervisedNats:
    """Adapts an `EmbeddedNatsServer` to `restarts.Supervised`, under the name `nats`."""

    name = "nats"

    def __init__(
        self,
        server: NatsServer,
        log: Path,
        on_change: Callable[[], None] = lambda: None,
        child_exit: Callable[[int], Awaitable[str]] = child_exit,
    ) -> None:
        self._server = server
        self._log = log
        self._on_change = on_change
        self._child_exit = child_exit
        self._started = time.monotonic()
        self._failed_to_start = False

    @property
    def log(self) -> Path:
        """nats-server's own log file."""
        return self._log

    async def ended(self) -> str:
        """Wait until nats-server is gone; how it ended."""
        if self._failed_to_start:
            return "did not start again"
        pid = self._server.pid
        if pid is None:
            return "is not running"
        return await self._child_exit(pid)

    def uptime(self) -> float:
        """Seconds since nats-server was (re)started."""
        return time.monotonic() - self._started

    async def restart(self) -> bool:
        """Start nats-server again, same port and store dir; False if it would not start."""
        self._server.stop()  # reaps the process that died
        self._started = time.monotonic()
        try:
            # Started on the loop's thread, which lives as long as `baton up`: the kernel tells
            # nats-server that its parent is gone when the thread that started it ends.
            self._server.launch()
            # Waited for in a thread: that must not hold up the services' keepers.
            await asyncio.to_thread(self._server.wait_ready)
        except NatsServerError:
            self._failed_to_start = True
            return False
        finally:
            self._on_change()
        self._failed_to_start = False
        return True
