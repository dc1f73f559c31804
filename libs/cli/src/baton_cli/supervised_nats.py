"""The embedded nats-server as the supervisor sees it: when it dies, it is started again on the
same port and store dir, so the services reconnect and JetStream finds its data on disk.

It is restarted so too when its JetStream could not write its store (a full disk) and the disk
has room again: nats-server keeps such a write error, and the stream takes no message until a
restart, so events stayed in the workflow's outbox and nothing live reached anyone.

And it is killed, so restarted, when it stops answering (a frozen process): it does not exit
then, and every service waited on it for good, answering 503, while the liveness watch spares
the services themselves for as long as NATS is silent."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from baton_cli.health import Answer
from baton_cli.liveness import Liveness, Silence
from baton_cli.restarts import Ending
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

    @property
    def store_dir(self) -> Path:
        """Where JetStream keeps its data."""
        ...

    def store_write_error(self) -> str | None:
        """A stream or consumer that could not write its store, as its health check says."""
        ...

    def answers(self, timeout: float) -> bool:
        """Whether it answers a client's PING within `timeout` seconds."""
        ...


STORE_CHECK_SECONDS = 5.0
"""How often `baton up` asks nats-server whether JetStream could write its store."""
ROOM_BYTES = 1024 * 1024
"""Free space on the store's disk past which a restart lets JetStream write again."""


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


def _sigkill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
        os.kill(pid, signal.SIGKILL)


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
        echo: Callable[[str], None] = lambda _: None,
        check_every: float = STORE_CHECK_SECONDS,
        free_bytes: Callable[[], int] | None = None,
        liveness: Liveness | None = None,
        kill: Callable[[int], None] | None = None,
    ) -> None:
        self._server = server
        self._log = log
        self._on_change = on_change
        self._child_exit = child_exit
        self._echo = echo
        self._check_every = check_every
        self._free_bytes = free_bytes or (lambda: shutil.disk_usage(server.store_dir).free)
        self._liveness = liveness
        self._kill = kill or _sigkill
        self._started = time.monotonic()
        self._failed_to_start = False

    @property
    def log(self) -> Path:
        """nats-server's own log file."""
        return self._log

    async def ended(self) -> Ending:
        """Wait until nats-server is gone; how it ended. One whose JetStream store could not be
        written is restarted meanwhile, once the disk has room: no crash, so not counted as one.
        One that answers nothing for the liveness timeout is killed: it ends so."""
        while True:
            if self._failed_to_start:
                return Ending("did not start again")
            pid = self._server.pid
            if pid is None:
                return Ending("is not running")
            exited = asyncio.ensure_future(self._child_exit(pid))
            stuck = asyncio.ensure_future(self._store_stuck())
            silent = asyncio.ensure_future(self._silent(pid))
            watches = (exited, stuck, silent)
            try:
                await asyncio.wait(watches, return_when=asyncio.FIRST_COMPLETED)
                if silent.done() and not exited.done():
                    await exited  # killed with SIGKILL: at once
            finally:
                for watch in watches:
                    watch.cancel()  # no effect on one that is done
            if exited.done() and not exited.cancelled():
                answered = silent.result() if silent.done() else None
                return Ending(exited.result(), answered)
            if await self.restart():
                self._echo("nats restarted: JetStream writes its store again")

    async def _store_stuck(self) -> None:
        """Return once JetStream could not write its store and the disk has room again."""
        # ASYNC110: another process's state and a disk's room, no event to wait on
        while (error := await asyncio.to_thread(self._server.store_write_error)) is None:  # noqa: ASYNC110
            await asyncio.sleep(self._check_every)
        self._echo(f"nats: {error}; restarting it once the disk has room again")
        while self._free_bytes() < ROOM_BYTES:  # noqa: ASYNC110
            await asyncio.sleep(self._check_every)

    async def _silent(self, pid: int) -> float:
        """Kill nats-server (SIGKILL, which ends a stopped process too) once it has answered
        no PING for the liveness timeout, `MISSES` in a row; the seconds from its start until
        it last answered. Runs on for good without a liveness watch."""
        liveness = self._liveness
        if liveness is None:
            await asyncio.Event().wait()
            raise AssertionError("unreachable")
        silence = Silence(liveness, time.monotonic())
        while True:
            await asyncio.sleep(liveness.interval)
            answers = await asyncio.to_thread(self._server.answers, liveness.probe_timeout)
            now = time.monotonic()
            silent = silence.record(Answer.HEALTHY if answers else Answer.SILENT, now)
            if silent is not None:
                break
        self._echo(
            f"nats did not answer its health check for {silent:.0f} s"
            f" ({silence.misses} checks in a row); killing it (SIGKILL) to restart it"
        )
        self._kill(pid)
        return max(0.0, now - silent - self._started)

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
