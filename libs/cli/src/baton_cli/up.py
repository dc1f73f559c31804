"""`baton up`: NATS (embedded unless given), every installed service, supervised until a signal."""

from __future__ import annotations

import asyncio
import math
import os
import signal
import socket
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from baton_cli.datadir import load_or_create_secret, prepare_data_dir
from baton_cli.errors import CliError, UsageError
from baton_cli.health import http_base_url
from baton_cli.leftovers import LeftoverStopper
from baton_cli.liveness import Liveness
from baton_cli.log_files import LOG_MAX_MB, log_max_bytes
from baton_cli.ports import PortChoice, check_host, check_port, hold_port, listen_on
from baton_cli.processes import ProcProcessTable, process_start
from baton_cli.restarts import RestartPolicy, ServiceFailed
from baton_cli.services import (
    MODULE_OVERRIDES_ENV,
    SERVICES,
    Runtime,
    ServiceSpec,
    installed_services,
    parse_module_overrides,
)
from baton_cli.state import UpState, holding_data_dir, publish_state, remove_state, write_state
from baton_cli.supervised_nats import SupervisedNats
from baton_cli.supervisor import Supervisor
from baton_contracts import RemoteError
from baton_messaging.embedded import EmbeddedNatsServer, NatsServerError
from baton_messaging.health import connect_once
from baton_messaging.log_lines import KNOWN_LEVELS, LEVELS
from baton_messaging.nats_url import check_nats_url, shown_nats_url

DEFAULT_HTTP_PORT = 8080
DEFAULT_NATS_PORT = 4222
NATS_HOST = "127.0.0.1"

Echo = Callable[[str], None]


@dataclass(frozen=True)
class UpOptions:
    """The flags of `baton up`."""

    data_dir: Path
    host: str = "127.0.0.1"
    port: int | None = None
    nats_url: str | None = None
    nats_port: int | None = None
    database_url: str | None = None
    log_level: str = "info"
    start_timeout: float = 60.0
    log_max_mb: float = LOG_MAX_MB


def select_services(env: Mapping[str, str]) -> list[ServiceSpec]:
    """The installed rows of the service table (with `BATON_SERVICE_MODULES` applied)."""
    try:
        specs = installed_services(
            SERVICES, parse_module_overrides(env.get(MODULE_OVERRIDES_ENV, ""))
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if not any(spec.is_gateway for spec in specs):
        raise CliError("the gateway (baton_notifier) is not installed; run 'make install'")
    return specs


def stop_signals() -> list[signal.Signals]:
    """SIGINT, SIGTERM, and SIGHUP (its terminal closed) unless it runs under `nohup`: the
    services and NATS run in sessions of their own, and would be left running without it."""
    hangup = [] if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN else [signal.SIGHUP]
    return [signal.SIGINT, signal.SIGTERM, *hangup]


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """Until the event loop takes over, SIGTERM (and SIGHUP) unwind like Ctrl+C so cleanup
    still runs."""

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    unwinding = [sig for sig in stop_signals() if sig != signal.SIGINT]
    previous = {sig: signal.signal(sig, interrupt) for sig in unwinding}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _pick_ports(options: UpOptions, echo: Echo) -> tuple[socket.socket, int, socket.socket | None]:
    """The gateway's listening socket and port, and a socket holding the embedded NATS
    server's port (`hold_port`), before anything starts."""
    listener, http = listen_on(
        options.host, default=DEFAULT_HTTP_PORT, requested=options.port, what="--port"
    )
    nats: PortChoice | None = None
    held: socket.socket | None = None
    if not options.nats_url:
        try:
            held, nats = hold_port(
                NATS_HOST, default=DEFAULT_NATS_PORT, requested=options.nats_port,
                what="--nats-port",
            )  # fmt: skip
        except BaseException:
            listener.close()
            raise
    for choice in (http, nats):
        if choice is not None and choice.note:
            echo(choice.note)
    return listener, http.port, held


NATS_CHECK_SECONDS = 5.0


def _check_nats_url(url: str) -> None:
    """A `--nats-url` every service can use, reachable now: else the services waited for it
    until the start timeout, and `baton up` then blamed the gateway, not NATS."""
    try:
        check_nats_url(url)
    except ValueError as exc:
        raise UsageError(f"--nats-url: {exc}") from None

    async def reach() -> None:
        connection = await connect_once(url, NATS_CHECK_SECONDS)
        await connection.close()

    try:
        asyncio.run(reach())
    except RemoteError as exc:
        raise CliError(f"--nats-url: {exc.body.message}") from None


NATS_LOG_FILES = 2
"""`nats.log` and the one it was renamed from last, as a service's `<name>.log` and `.log.1`."""


def nats_log(data_dir: Path) -> Path:
    """Where the embedded nats-server logs."""
    return data_dir / "logs" / "nats.log"


def _start_nats(
    data_dir: Path, held: socket.socket | None, log_max: int, grace: float
) -> EmbeddedNatsServer | None:
    if held is None:
        return None
    # nats-server rotates its own log: a full one is renamed `nats.log.<YYYY.MM.DD.hh.mm.ss.
    # nanoseconds>` between two lines, and the oldest renamed one deleted. If `baton up` is
    # killed, it serves the services' turns in flight for their grace, then exits: the services
    # stop themselves too (their lifeline), so nothing is left running.
    server = EmbeddedNatsServer(
        store_dir=data_dir / "nats", host=NATS_HOST, port=held.getsockname()[1],
        log_file=nats_log(data_dir), log_size_limit=log_max, log_files_kept=NATS_LOG_FILES,
        parent_exit_grace=grace,
    )  # fmt: skip
    server.hold(held)  # let go once nats-server listens on it
    try:
        server.start()
    except NatsServerError as exc:
        raise CliError(str(exc)) from None
    return server


def run_up(options: UpOptions, echo: Echo) -> None:
    """Start Baton and supervise it until SIGINT/SIGTERM/SIGHUP; `CliError` if it cannot run."""
    _check_options(options)
    liveness = Liveness.from_env(os.environ)  # refused before anything is created, as an option
    data_dir = prepare_data_dir(options.data_dir)
    with holding_data_dir(data_dir):
        _run_up(options, data_dir, liveness, echo)


def _check_options(options: UpOptions) -> None:
    """Every option that is wrong whatever else runs, refused before anything is created: a
    new data dir was made, with a JWT secret in it, before `--port -1` was refused. (Whether
    a port is taken is known only once a leftover of an earlier run has been stopped.)

    A wrong value is a `UsageError` (exit 2, as the parser's own); a `--nats-url` that is
    well-formed but cannot be reached now is not: like a taken port, it fails as the run would
    (exit 1)."""
    # `inf` (read as "no limit") would pass a check for > 0, then fail converting to bytes
    # after the services began to start, leaving `baton up` hung and NATS running.
    if not 0 < options.log_max_mb < math.inf:
        raise UsageError(
            f"--log-max-mb: must be a finite number above 0, got {options.log_max_mb:g}"
        )
    # Each service would refuse an unknown level itself, after NATS and the data dir were set
    # up, one error per service; a start timeout of 0, below it or NaN gave no service time.
    if options.log_level.upper() not in KNOWN_LEVELS:
        raise UsageError(f"--log-level: unknown level {options.log_level!r} ({LEVELS})")
    if not 0 < options.start_timeout < math.inf:
        raise UsageError(
            f"--start-timeout: must be a finite number of seconds above 0, "
            f"got {options.start_timeout:g}"
        )
    if options.nats_url and options.nats_port is not None:
        raise UsageError("--nats-port: cannot be used with --nats-url (that server has its port)")
    for port, what in ((options.port, "--port"), (options.nats_port, "--nats-port")):
        if port is not None:
            check_port(port, what)
    check_host(options.host)
    if options.nats_url:
        _check_nats_url(options.nats_url)


def _run_up(options: UpOptions, data_dir: Path, liveness: Liveness | None, echo: Echo) -> None:
    grace = RestartPolicy.for_services(os.environ).stop_grace
    LeftoverStopper(ProcProcessTable(), grace=grace, echo=echo).clear(data_dir)
    secret = load_or_create_secret(data_dir, os.environ)
    specs = select_services(os.environ)
    listener, http_port, nats_held = _pick_ports(options, echo)
    nats: EmbeddedNatsServer | None = None
    with listener, nats_held or nullcontext(), _sigterm_interrupts():
        try:
            log_max = log_max_bytes(options.log_max_mb)
            nats = _start_nats(data_dir, nats_held, log_max, grace)
            runtime = Runtime(
                data_dir=data_dir, nats_url=nats.url if nats else str(options.nats_url),
                jwt_secret=secret, http_host=options.host, http_port=http_port,
                database_url=options.database_url, log_level=options.log_level,
                services=tuple(spec.name for spec in specs), http_socket=listener,
            )  # fmt: skip
            asyncio.run(_supervise(specs, runtime, options, nats, liveness, echo))
        except KeyboardInterrupt:
            pass  # interrupted while starting: the cleanup below is all there is to do
        except ServiceFailed as exc:
            raise CliError(str(exc)) from None
        finally:
            if nats is not None:
                nats.stop()
            remove_state(data_dir)
    echo("Baton stopped")


async def _supervise(
    specs: list[ServiceSpec],
    runtime: Runtime,
    options: UpOptions,
    nats: EmbeddedNatsServer | None,
    liveness: Liveness | None,
    echo: Echo,
) -> None:
    gateway_url = http_base_url(runtime.http_host, runtime.http_port)
    supervisor: Supervisor

    def state_now() -> UpState:
        nats_pid = nats.pid if nats else None
        services = supervisor.pids()
        pids = [os.getpid(), *([nats_pid] if nats_pid else []), *services.values()]
        started = {str(pid): start for pid in pids if (start := process_start(pid)) is not None}
        return UpState(
            pid=os.getpid(), gateway_url=gateway_url, nats_url=shown_nats_url(runtime.nats_url),
            nats_pid=nats_pid, services=services, started=started,
        )  # fmt: skip

    def publish() -> None:  # a later change: a disk that cannot take it stops nothing
        publish_state(runtime.data_dir, state_now(), echo)

    policy = RestartPolicy.for_services(os.environ, start_timeout=options.start_timeout)
    watched = (
        SupervisedNats(nats, nats_log(runtime.data_dir), publish, echo=echo, liveness=liveness)
        if nats
        else None
    )
    supervisor = Supervisor(
        specs, runtime, policy, echo, on_change=publish, nats=watched,
        log_max=log_max_bytes(options.log_max_mb), liveness=liveness,
    )  # fmt: skip
    # NATS runs already: a `baton up` killed from here on has it recorded
    write_state(runtime.data_dir, state_now())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in stop_signals():
        loop.add_signal_handler(sig, stop.set)
    starting = asyncio.create_task(supervisor.start_all())
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if starting.done():
            starting.result()
            _announce(echo, supervisor, runtime, gateway_url)
            await supervisor.watch(stop)
        echo("stopping Baton...")
    finally:
        for task in (starting, stopping):
            task.cancel()
        await asyncio.gather(starting, stopping, return_exceptions=True)
        await supervisor.stop_all()


def _announce(echo: Echo, supervisor: Supervisor, runtime: Runtime, gateway_url: str) -> None:
    for name, pid in supervisor.pids().items():
        echo(f"  {name:<10} pid {pid:<8} log {runtime.data_dir / 'logs' / f'{name}.log'}")
    echo(f"NATS: {shown_nats_url(runtime.nats_url)}")
    echo(f"Gateway: {gateway_url}")
    echo(f"Baton is ready: {gateway_url}")
