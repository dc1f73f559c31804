"""Runs each service as its own process, waits for health, restarts crashes (and kills one that
stopped answering, so it is restarted too), stops them all."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from baton_cli.health import HealthProber
from baton_cli.liveness import Liveness, Silence
from baton_cli.log_files import (
    LOG_MAX_MB,
    LogFile,
    OutputCopier,
    last_line,
    log_max_bytes,
    start_logged,
)
from baton_cli.restarts import Ending, RestartPolicy, ServiceFailed, Supervised, keep_alive
from baton_cli.services import Runtime, ServiceSpec, service_env
from baton_cli.stopping import stop_in_stages, stop_stages
from baton_messaging.lifeline import LIFELINE_ENV

SAY_WAITING_SECONDS = 5.0
"""How long a service may take to become healthy before `baton up` says why it waits (the
last line of its log: a database not up yet, say), rather than nothing until its start
timeout (60 s by default)."""


def waiting_line(name: str, waited: float, log: Path) -> str:
    """`workflow is not healthy yet after 5 s; its log says: ...`."""
    last = last_line(log)
    says = f"; its log says: {last}" if last else ""
    return f"{name} is not healthy yet after {waited:.0f} s{says} (see {log})"


@dataclass
class _Running:
    spec: ServiceSpec
    log: Path
    process: asyncio.subprocess.Process
    started: float
    output: OutputCopier
    silence: Silence | None = None
    """Set once it became healthy: from then on the liveness watch counts its silence."""
    answered: float | None = None
    """Set when the liveness watch killed it: seconds from its start until it last answered."""

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def signal(self, sig: signal.Signals) -> None:
        _signal_group(self.process, sig)

    async def wait(self) -> int:
        return await self.process.wait()


class Supervisor:
    """The service processes of one `baton up`, and its embedded NATS server (`nats`), which
    `watch` restarts under the same rule as a service."""

    def __init__(
        self,
        specs: list[ServiceSpec],
        runtime: Runtime,
        policy: RestartPolicy,
        echo: Callable[[str], None],
        on_change: Callable[[], None] = lambda: None,
        nats: Supervised | None = None,
        log_max: int = log_max_bytes(LOG_MAX_MB),
        liveness: Liveness | None = None,
    ) -> None:
        self._specs = specs
        self._runtime = runtime
        self._policy = policy
        self._echo = echo
        self._on_change = on_change
        self._prober = HealthProber(runtime)
        self._running: dict[str, _Running] = {}
        self._nats = nats
        self._log_max = log_max
        self._liveness = liveness
        self._logs: dict[str, LogFile] = {}
        # Every process's, a restarted service's old one too: something it started may still
        # hold its pipe, and what it writes is copied until `stop_all`.
        self._outputs: list[OutputCopier] = []
        # Every service is handed the read end; the write end is this process's alone (neither
        # is inherited unless passed), so when `baton up` ends, even killed, the services see
        # end-of-file and stop themselves (`baton_messaging.lifeline`).
        self._lifeline, self._lifeline_held = os.pipe()

    def pids(self) -> dict[str, int]:
        """Service name -> pid of its current process."""
        return {name: run.process.pid for name, run in self._running.items()}

    def log_file(self, spec: ServiceSpec) -> Path:
        """Where a service's stdout and stderr go."""
        return self._runtime.data_dir / "logs" / f"{spec.name}.log"

    async def start_all(self) -> None:
        """Start every service, then wait until each is healthy (or raise `ServiceFailed`)."""
        for spec in self._specs:
            await self._spawn(spec)
        for spec in self._specs:
            await self._wait_healthy(self._running[spec.name])

    def _log(self, spec: ServiceSpec) -> LogFile:
        """The service's log, one for all its restarts."""
        if spec.name not in self._logs:
            self._logs[spec.name] = LogFile(self.log_file(spec), self._log_max, self._echo)
        return self._logs[spec.name]

    async def _spawn(self, spec: ServiceSpec) -> _Running:
        log = self._log(spec)
        env = {
            **os.environ,
            **service_env(spec, self._runtime),
            LIFELINE_ENV: str(self._lifeline),
        }
        log.mark(f"--- baton up: starting {spec.name} ({spec.module}) ---")
        process, output = await start_logged(
            log, sys.executable, "-m", spec.module,
            env=env,
            pass_fds=(*self._runtime.inherited_fds(spec), self._lifeline),
            # Its own process group: a terminal's Ctrl+C reaches `baton up` only, which then
            # stops services in order; and killpg also reaches anything a service spawns.
            start_new_session=True,
        )  # fmt: skip
        self._outputs = [*(kept for kept in self._outputs if not kept.ended), output]
        run = _Running(spec, log.path, process, time.monotonic(), output)
        self._running[spec.name] = run
        self._on_change()
        return run

    async def _wait_healthy(self, run: _Running) -> None:
        started = time.monotonic()
        deadline = started + self._policy.start_timeout
        name = run.spec.name
        said = False
        while time.monotonic() < deadline:
            if not said and time.monotonic() - started >= SAY_WAITING_SECONDS:
                said = True  # once: the service's own log goes on saying what it waits for
                self._echo(waiting_line(name, time.monotonic() - started, run.log))
            if run.process.returncode is not None:
                run.output.drain()  # its last lines are in the log this points to
                raise ServiceFailed(
                    f"{name} failed to start (exited with code {run.process.returncode});"
                    f" see {run.log}"
                )
            if await self._prober.healthy(run.spec):
                if self._liveness is not None:
                    run.silence = Silence(self._liveness, time.monotonic())
                return
            await asyncio.sleep(0.1)
        raise ServiceFailed(
            f"{name} did not become healthy within {self._policy.start_timeout:g}s; see {run.log}"
        )

    async def watch(self, stop: asyncio.Event) -> None:
        """Keep every service (and NATS, if given) alive until `stop` is set; raise
        `ServiceFailed` on giving up."""
        children: list[Supervised] = [_ServiceChild(self, name) for name in self._running]
        if self._nats is not None:
            children.append(self._nats)
        keepers = [
            asyncio.create_task(keep_alive(child, self._policy, self._echo)) for child in children
        ]
        liveness = self._liveness
        watchers = (
            [asyncio.create_task(self._watch_liveness(name, liveness)) for name in self._running]
            if liveness is not None
            else []
        )
        stopper = asyncio.create_task(stop.wait())
        try:
            # A watcher ends only on a bug: said at once, not a watch silently gone.
            done, _ = await asyncio.wait(
                [*keepers, *watchers, stopper], return_when=asyncio.FIRST_COMPLETED
            )
            for task in done:
                task.result()
        finally:
            for task in [*keepers, *watchers, stopper]:
                task.cancel()
            await asyncio.gather(*keepers, *watchers, stopper, return_exceptions=True)

    async def _watch_liveness(self, name: str, liveness: Liveness) -> None:
        """Probe the service every `liveness.interval` while it runs healthy; kill it (its
        process group, SIGKILL, which ends a stopped process too) once it has answered nothing
        for `liveness.timeout`, so `keep_alive` restarts it. A run still starting is left to
        the start timeout."""
        first = self._running[name]
        if first.silence is not None:  # counted from now: the others' start took a while
            first.silence = Silence(liveness, time.monotonic())
        while True:
            await asyncio.sleep(liveness.interval)
            run = self._running[name]
            if run.silence is None or run.returncode is not None:
                continue
            answer = await self._prober.answer(run.spec, liveness.probe_timeout)
            if self._running[name] is not run or run.returncode is not None:
                continue  # it ended meanwhile: the restart rule's, not this watch's
            now = time.monotonic()
            silent = run.silence.record(answer, now)
            if silent is not None:
                self._kill_silent(run, silent, now)

    def _kill_silent(self, run: _Running, silent: float, now: float) -> None:
        """Kill a run silent for `silent` seconds now, saying so; its end tells `keep_alive`
        that the watch killed it, and when it last answered."""
        assert run.silence is not None
        line = (
            f"{run.spec.name} did not answer its health check for {silent:.0f} s"
            f" ({run.silence.misses} checks in a row); killing it (SIGKILL) to restart it"
        )
        run.output.drain()  # what it wrote before it hung goes before the line
        self._log(run.spec).mark(f"--- baton up: {line} ---")
        self._echo(line)
        run.silence = None  # one kill per run
        run.answered = max(0.0, now - silent - run.started)
        run.signal(signal.SIGKILL)

    async def _restart(self, name: str) -> bool:
        restarted = await self._spawn(self._running[name].spec)
        try:
            await self._wait_healthy(restarted)
        except ServiceFailed:
            # Dead or stuck: either way the next wait for its end counts it as a crash.
            _signal_group(restarted.process, signal.SIGKILL)
            return False
        return True

    async def stop_all(self) -> None:
        """Stop the services in their `stop_stage` order, callers first (`stop_in_stages`):
        all at once, a workflow service finishing a turn asked an agent-runner that was gone."""
        runs = list(self._running.values())
        stages = stop_stages(run.spec for run in runs)
        staged = [[self._running[spec.name] for spec in stage] for stage in stages]
        await stop_in_stages(staged, self._policy.stop_grace)
        # A service's own children may outlive it; its process group still names them.
        for run in runs:
            _signal_group(run.process, signal.SIGKILL)
        for output in self._outputs:
            output.close()
        for log in self._logs.values():
            log.close()
        for fd in (self._lifeline, self._lifeline_held):
            with contextlib.suppress(OSError):  # a second stop_all finds them closed
                os.close(fd)
        await self._prober.close()


@dataclass(frozen=True)
class _ServiceChild:
    """A service as `keep_alive` sees it: whichever process of it runs now."""

    supervisor: Supervisor
    name: str

    @property
    def _run(self) -> _Running:
        return self.supervisor._running[self.name]

    @property
    def log(self) -> Path:
        return self._run.log

    async def ended(self) -> Ending:
        run = self._run
        code = await run.process.wait()
        # Its last lines go before `baton up` says it ended and before the next start's marker.
        run.output.drain()
        # Not the watch's kill if it ended of itself just before (then with a code of its own).
        killed = run.answered is not None and code == -signal.SIGKILL
        return Ending(f"exited with code {code}", run.answered if killed else None)

    def uptime(self) -> float:
        return time.monotonic() - self._run.started

    async def restart(self) -> bool:
        return await self.supervisor._restart(self.name)


def _signal_group(process: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
