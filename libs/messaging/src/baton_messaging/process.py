"""Running a service as a process: build, start, wait for SIGTERM/SIGINT, stop cleanly.

A bad setting or a fatal start-up error ends the process with one line naming the service (a
bad setting's line: `setting_problems.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, Literal, Protocol, TypeVar

from baton_messaging.cancelling import cancel_and_wait
from baton_messaging.lifeline import lifeline_fd, watch_lifeline
from baton_messaging.log_lines import KNOWN_LEVELS, LEVELS, configure_logging
from baton_messaging.nats_url import shown_nats_url
from baton_messaging.setting_problems import ENV_PREFIX, refuse, settled
from baton_messaging.settings import MessagingSettings, ServerUnfit


class Service(Protocol):
    """What `bootstrap.build` returns in every service."""

    async def start(self) -> None:
        """Connect and begin serving."""
        ...

    async def stop(self) -> None:
        """Finish in-flight work and disconnect."""
        ...


EventLoop = Literal["uvloop", "asyncio"]
"""`BATON_EVENT_LOOP`: uvloop (the default) spends fewer microseconds per socket read and
message than the standard loop; `asyncio` is there for debugging and for platforms without it."""

ResultT = TypeVar("ResultT")


class HasLogLevel(Protocol):
    """Settings carrying `log_level` and `event_loop` (every service's do)."""

    log_level: str
    event_loop: EventLoop


SettingsT = TypeVar("SettingsT", bound=HasLogLevel)
ServiceT = TypeVar("ServiceT", bound=Service)


STILL_STARTING_EVERY = 10.0
"""Seconds between the warnings of a service that is not ready yet (NATS unreachable...)."""
STOP_TIMEOUT = 15.0
"""Seconds a service stopped during its start has to release what it had opened."""


async def serve(
    name: str,
    service: Service,
    describe: str = "",
    *,
    needs: str = "",
    report_every: float = STILL_STARTING_EVERY,
    lifeline: int | None = None,
) -> None:
    """Start `service`, wait for a stop signal, stop it.

    A start that takes long (the service keeps trying to reach NATS) says so every
    `report_every` seconds, naming what it `needs`; a stop signal during the start ends it
    there, instead of being ignored until the start completes. The end of the `lifeline` pipe
    (`baton_messaging.lifeline`: `baton up` is gone) stops it as a signal does.
    """
    logger = logging.getLogger(f"baton.{name}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if lifeline is not None:

        def gone() -> None:
            logger.warning("%s: baton up, which started it, is gone; stopping", name)
            stop.set()

        watch_lifeline(loop, lifeline, gone)
    if not await _started(name, service, stop, needs, report_every, logger):
        return
    logger.info("%s ready%s", name, f" ({describe})" if describe else "")
    await stop.wait()
    logger.info("%s stopping", name)
    await service.stop()


async def _started(
    name: str,
    service: Service,
    stop: asyncio.Event,
    needs: str,
    report_every: float,
    logger: logging.Logger,
) -> bool:
    """Whether the service started; False when a stop signal came first (it is then stopped)."""
    starting = asyncio.ensure_future(service.start())
    stopping = asyncio.ensure_future(stop.wait())
    waited = 0.0
    try:
        while True:
            done, _ = await asyncio.wait(
                {starting, stopping}, timeout=report_every, return_when=asyncio.FIRST_COMPLETED
            )
            if starting in done:
                if (failure := starting.exception()) is not None:
                    # What the start had opened (a database pool, a connection) is released
                    # before the failure ends the process with its one line.
                    await _stop_unfinished(name, service, logger)
                    raise failure
                return True
            if stopping in done:
                break
            waited += report_every
            logger.warning(
                "%s is not ready after %.0f s%s; still trying",
                name,
                waited,
                f": it needs {needs}" if needs else "",
            )
    finally:
        stopping.cancel()
    logger.info("%s stopping before it was ready", name)
    await cancel_and_wait([starting])  # it retries in a loop: a lost cancel is repeated
    with contextlib.suppress(asyncio.CancelledError):
        await starting
    await _stop_unfinished(name, service, logger)
    return False


async def _stop_unfinished(name: str, service: Service, logger: logging.Logger) -> None:
    """Release what an unfinished start had opened (a database engine, a half-made
    connection); a stop that fails in turn is logged, never raised over the first cause."""
    try:
        await asyncio.wait_for(service.stop(), STOP_TIMEOUT)
    except Exception:
        logger.warning("%s: stopping after an unfinished start failed", name, exc_info=True)


class SettingUnusable(ValueError):
    """A setting read well but naming what cannot be used (a module that does not import, a
    network that is none): the message starts with the variable's `BATON_` name, and the
    service stops with status 2, as for a bad setting."""


def run_service(
    name: str,
    load_settings: Callable[[], SettingsT],
    build: Callable[[SettingsT], ServiceT],
    *,
    fatal: tuple[type[Exception], ...] = (ValueError,),
    misconfigured: tuple[type[Exception], ...] = (),
    describe: Callable[[ServiceT], str] = lambda _: "",
    tracing: Callable[[str], Callable[[], None]] | None = None,
    also_needs: Callable[[SettingsT], str] | None = None,
) -> None:
    """The body of `python -m baton_<service>`; exits with one line on a bad setting (status 2,
    naming each variable) or a failed start.

    A `fatal` error ends it with status 1, a `misconfigured` one (a setting naming what cannot
    be used, as `DatabaseUnusable` of `baton_eventstore`) with status 2, as a bad setting.

    `also_needs(settings)` names what the start waits for beside NATS (its database), in the
    line a slow start logs every 10 s.

    `tracing(name)` (`baton_telemetry.start_tracing`) turns tracing on before the service is
    built, so its broker and responders trace through the provider it sets, and returns what
    flushes the spans on the way out.
    """
    settings, nats_url, lifeline = check_settings(name, load_settings)
    configure_logging(settings.log_level.upper())

    async def main() -> None:
        service = build(settings)
        tune_garbage_collector()
        also = also_needs(settings) if also_needs is not None else None
        needs = waiting_for(nats_url, also)
        await serve(name, service, describe(service), needs=needs, lifeline=lifeline)

    stop_tracing = settled(name, lambda: tracing(name)) if tracing is not None else None
    stops_as_bad_setting: tuple[type[Exception], ...] = (
        *misconfigured,
        SettingUnusable,
        ServerUnfit,
    )
    try:
        run_on(settings.event_loop, main())
    except stops_as_bad_setting as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        sys.exit(2)
    except fatal as exc:
        sys.exit(f"{name}: {exc}")
    finally:
        if stop_tracing is not None:
            stop_tracing()


def check_settings(
    name: str,
    load_settings: Callable[[], SettingsT],
    also: Callable[[SettingsT], str | None] | None = None,
    *,
    also_read: Iterable[Callable[[], object]] = (),
) -> tuple[SettingsT, str, int | None]:
    """The service's settings, its NATS URL and its lifeline (`BATON_LIFELINE_FD`), each
    checked, or exit with status 2 and one line naming each bad variable; `also(settings)`
    names one more problem (a database URL that is none), said the same way. `also_read`:
    more settings the service reads as it starts (`baton_telemetry.TelemetrySettings`: the
    tracing's, read by `run_service`'s `tracing` after the heavy imports), read here first.

    What `run_service` does first; a service's `__main__` calls it before importing the
    service itself (FastStream, SQLAlchemy, PydanticAI...: seconds), so a bad setting is said
    at once. Only light modules may be imported on the way here (`baton_messaging.settings`).
    """
    settings = settled(name, load_settings)
    # Read again when the service builds its broker (`BATON_CONNECT_TIMEOUT_SECONDS`...):
    # checked here, so a bad one is one line, not a traceback from inside the start.
    nats_url = settled(name, MessagingSettings).nats_url
    for read in also_read:
        settled(name, read)
    # The five the docs name: `logging` also takes WARN and FATAL, which the gateway refuses.
    if settings.log_level.upper() not in KNOWN_LEVELS:
        refuse(name, f"{ENV_PREFIX}LOG_LEVEL: unknown level {settings.log_level!r} ({LEVELS})")
    try:
        lifeline = lifeline_fd(os.environ)
    except ValueError as exc:
        refuse(name, str(exc))
    if also is not None and (problem := also(settings)) is not None:
        print(f"{name}: {problem}", file=sys.stderr)
        sys.exit(2)
    return settings, nats_url, lifeline


def waiting_for(nats_url: str, also: str | None = None) -> str:
    """What a slow start says it needs: NATS, its user and password (or token) hidden, and
    `also` (the database, its password hidden by `baton_eventstore.unusable.the_database`)."""
    needs = f"NATS at {shown_nats_url(nats_url)}"
    return needs if also is None else f"{needs} and {also}"


GC_THRESHOLDS = (50_000, 20, 100)
"""The cyclic garbage collector's thresholds in a service process (CPython 3.11's: 700, 10, 10).

A youngest-generation collection walks every young container object still alive, and a busy
service always holds many: each request in flight keeps its own (a PydanticAI agent run, a
step's state, a pending reply). Every 700 allocations was about 9% of the agent-runner's CPU
with 100 DAG runs in flight (measured with `perf`); every 50,000 took the agent-runner's CPU
per step from 2.27 to 2.05 ms (`dag.run.postgres`, linear, interleaved runs). Nearly all
garbage is freed by reference counting anyway; what waits for a collection is the rare cycle,
a few megabytes at most."""


def tune_garbage_collector() -> None:
    """Leave the objects built so far out of the cyclic garbage collector's walks, and collect
    less often than CPython's default (`GC_THRESHOLDS`).

    A built service holds a few hundred thousand long-lived objects (pydantic models and
    schemas, SQLAlchemy, FastStream, PydanticAI, Mem0). Every full collection walked them all
    (about 150 ms with the event loop stopped, measured in the agent-runner), and right after
    start-up full collections come often. Frozen, they are never walked again; they live as
    long as the process anyway. Only a service's process does this, not tests that build a
    service inside their own process.
    """
    gc.collect()  # the start-up's garbage is freed, not frozen
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def run_on(event_loop: EventLoop, main: Coroutine[Any, Any, ResultT]) -> ResultT:
    """Run `main` to its end on a new event loop of the kind `event_loop` names."""
    if event_loop == "asyncio":
        return asyncio.run(main)
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
