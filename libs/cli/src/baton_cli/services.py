"""The service table: which processes `baton up` starts, how each is checked, what env it gets.

A new service adds one row to `SERVICES`. Rows whose module is not installed are skipped, so
the table may name services that later issues build.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from urllib.parse import quote

MODULE_OVERRIDES_ENV = "BATON_SERVICE_MODULES"
"""`name=module,...`: run another module for a row (a development build, or a test double);
`name=` with no module leaves that row out."""


class Setting(Enum):
    """A group of settings `baton up` can hand a service, as `BATON_*` environment variables."""

    NATS = "nats"
    JWT = "jwt"
    HTTP = "http"
    DATABASE = "database"
    DATA_DIR = "data_dir"
    QDRANT = "qdrant"
    LOG_LEVEL = "log_level"
    DEV_SIGN_IN = "dev_sign_in"


@dataclass(frozen=True)
class HttpHealth:
    """Healthy when `GET <path>` on the service's HTTP port answers 200 with `"status": "ok"`."""

    path: str = "/health"


@dataclass(frozen=True)
class NatsHealth:
    """Healthy when `<owner>.query.health` answers a `HealthStatus` with `healthy: true`."""

    owner: str


@dataclass(frozen=True)
class ServiceSpec:
    """One row: a service name, the module `python -m` runs, its health check, its settings."""

    name: str
    module: str
    health: HttpHealth | NatsHealth
    settings: frozenset[Setting]
    stop_stage: int = 0
    """When `baton up` stops it, lowest first: a service stops only once every service that
    may still send it requests has ended (a workflow finishing a turn asks the agent-runner)."""

    @property
    def is_gateway(self) -> bool:
        """The gateway is the one service that listens on HTTP."""
        return isinstance(self.health, HttpHealth)


_BACKEND = frozenset({Setting.NATS, Setting.DATABASE, Setting.DATA_DIR, Setting.LOG_LEVEL})

# Stop stages: the callers (the gateway, the trigger service) first, then the workflow
# service, then what it calls (the agent-runner, the worker space).
_CALLERS, _WORKFLOW, _CALLED = 0, 1, 2

SERVICES: tuple[ServiceSpec, ...] = (
    ServiceSpec(
        name="notifier",
        module="baton_notifier",
        health=HttpHealth(),
        settings=frozenset(
            {Setting.NATS, Setting.JWT, Setting.HTTP, Setting.LOG_LEVEL, Setting.DEV_SIGN_IN}
        ),
        stop_stage=_CALLERS,
    ),
    ServiceSpec("workflow", "baton_workflow", NatsHealth("workflow"), _BACKEND, _WORKFLOW),
    ServiceSpec(
        "agent", "baton_agent_runner", NatsHealth("agent"), _BACKEND | {Setting.QDRANT}, _CALLED
    ),
    ServiceSpec(
        "space", "baton_worker_space", NatsHealth("space"), _BACKEND | {Setting.QDRANT}, _CALLED
    ),
    ServiceSpec("trigger", "baton_trigger", NatsHealth("trigger"), _BACKEND, _CALLERS),
)


@dataclass(frozen=True)
class Runtime:
    """Everything resolved for one `baton up`: where things listen and where data lives."""

    data_dir: Path
    nats_url: str
    jwt_secret: str
    http_host: str
    http_port: int
    database_url: str | None = None
    log_level: str = "info"
    services: tuple[str, ...] = ()
    """The names of the services this `baton up` starts: what the gateway's `/api/services`
    reports on (`BATON_HEALTH_SERVICES`); empty: the gateway's default, every owner."""
    http_socket: socket.socket | None = field(default=None, compare=False, repr=False)
    """The gateway's listening socket, bound by `baton up` and inherited by each gateway it
    starts (`BATON_HTTP_FD`); None: the gateway binds host and port itself."""

    def inherited_fds(self, spec: ServiceSpec) -> tuple[int, ...]:
        """The descriptors a service is started with: the listening socket, for the gateway."""
        if self.http_socket is None or Setting.HTTP not in spec.settings:
            return ()
        return (self.http_socket.fileno(),)


def parse_module_overrides(value: str) -> dict[str, str]:
    """`notifier=my_pkg,trigger=` -> {"notifier": "my_pkg", "trigger": ""} (trigger left out)."""
    overrides: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in value.split(","))):
        name, sep, module = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"{MODULE_OVERRIDES_ENV}: expected name=module, got {item!r}")
        overrides[name.strip()] = module.strip()
    return overrides


def module_is_runnable(module: str) -> bool:
    """True when `python -m module` would find something to run, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None:
        return False
    locations = spec.submodule_search_locations
    if locations is None:
        return True  # a plain module runs as it is
    return any((Path(location) / "__main__.py").is_file() for location in locations)


def installed_services(
    table: Iterable[ServiceSpec], overrides: Mapping[str, str] | None = None
) -> list[ServiceSpec]:
    """The rows to start: overrides applied, rows with no runnable module left out."""
    overrides = dict(overrides or {})
    specs = list(table)
    unknown = set(overrides) - {spec.name for spec in specs}
    if unknown:
        raise ValueError(f"{MODULE_OVERRIDES_ENV}: unknown service(s) {', '.join(sorted(unknown))}")
    chosen = [replace(spec, module=overrides.get(spec.name, spec.module)) for spec in specs]
    return [spec for spec in chosen if spec.module and module_is_runnable(spec.module)]


def database_url(spec: ServiceSpec, runtime: Runtime) -> str:
    """The service's database: `--database-url` (`{service}` filled in), else a SQLite file."""
    if runtime.database_url:
        return runtime.database_url.replace("{service}", spec.name)
    # Escaped: a "?" or "%41" in the folder's path cut the path short or decoded it, and the
    # services opened one file outside the data dir, shared between them.
    path = quote(str(runtime.data_dir / f"{spec.name}.db"), safe="/")
    return f"sqlite+aiosqlite:///{path}"


def service_env(spec: ServiceSpec, runtime: Runtime) -> dict[str, str]:
    """The `BATON_*` variables one service is started with (only the groups its row names)."""
    groups: dict[Setting, dict[str, str]] = {
        Setting.NATS: {"BATON_NATS_URL": runtime.nats_url},
        Setting.JWT: {"BATON_JWT_SECRET": runtime.jwt_secret},
        Setting.HTTP: {
            "BATON_HTTP_HOST": runtime.http_host,
            "BATON_HTTP_PORT": str(runtime.http_port),
            **(
                {"BATON_HTTP_FD": str(runtime.http_socket.fileno())}
                if runtime.http_socket is not None
                else {}
            ),
            **(
                {"BATON_HEALTH_SERVICES": json.dumps(sorted(runtime.services))}
                if runtime.services
                else {}
            ),
        },
        Setting.DATABASE: {"BATON_DATABASE_URL": database_url(spec, runtime)},
        Setting.DATA_DIR: {"BATON_DATA_DIR": str(runtime.data_dir)},
        # Local-mode Qdrant locks its folder, so two services cannot share one.
        Setting.QDRANT: {"BATON_QDRANT_PATH": str(runtime.data_dir / "qdrant" / spec.name)},
        Setting.LOG_LEVEL: {"BATON_LOG_LEVEL": runtime.log_level},
        # `baton up` is the embedded dev runtime: the web console signs in with a user name.
        # Only on loopback: on a reachable address that would hand anyone any user's token.
        Setting.DEV_SIGN_IN: {"BATON_DEV_SIGN_IN": _loopback(runtime.http_host)},
    }
    env: dict[str, str] = {}
    for setting in Setting:
        if setting in spec.settings:
            env.update(groups[setting])
    return env


def _loopback(host: str) -> str:
    """ "true" when `host` is a loopback address or name, else "false"."""
    if host == "localhost":
        return "true"
    try:
        return "true" if ipaddress.ip_address(host).is_loopback else "false"
    except ValueError:
        return "false"
