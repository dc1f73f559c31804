"""`python -m baton_<service>` says a bad setting before it imports the service: the heavy
libraries (FastAPI, PydanticAI, qdrant-client, SQLAlchemy, FastStream...) took 2-8 s to import
before the one-line error, more on a slow machine."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

# Runs the module as `python -m` does, then says which modules were imported by its end.
RUN = """
import json, runpy, sys
try:
    runpy.run_module(sys.argv[1], run_name="__main__", alter_sys=True)
finally:
    print(json.dumps(sorted(sys.modules)))
"""

HEAVY = (
    "fastapi",
    "uvicorn",
    "faststream",
    "nats",
    "sqlalchemy",
    "pydantic_ai",
    "qdrant_client",
    "mem0",
    "opentelemetry.sdk",
)
"""What a service runs on, each a second or more to import on a slow machine."""


def run(module: str, pass_fds: tuple[int, ...] = (), **env: str) -> tuple[int, str, set[str]]:
    """Exit status, standard error, and the top modules imported by the end; `pass_fds`: the
    descriptors the process inherits."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("BATON_", "OTEL_"))}
    done = subprocess.run(
        [sys.executable, "-c", RUN, module],
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        pass_fds=pass_fds,
    )
    return done.returncode, done.stderr, set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize(
    ("module", "env", "said"),
    [
        (
            "baton_notifier",
            {"BATON_JWT_SECRET": "s" * 32, "BATON_CHAT_TIMEOUT_SECONDS": "abc"},
            "baton-notifier: invalid settings: BATON_CHAT_TIMEOUT_SECONDS: Input should be a "
            "valid number, unable to parse string as a number (got 'abc')",
        ),
        (
            "baton_workflow",
            {"BATON_DATABASE_POOL_SIZE": "many"},
            "workflow: invalid settings: BATON_DATABASE_POOL_SIZE: Input should be a valid "
            "integer, unable to parse string as an integer (got 'many')",
        ),
        (
            "baton_agent_runner",
            {"BATON_MODEL_PRICES": "x"},
            "agent-runner: invalid settings: BATON_MODEL_PRICES: not valid JSON (a list or "
            "mapping is JSON)",
        ),
        (
            "baton_notifier",
            {"BATON_JWT_SECRET": "s" * 32, "BATON_CONNECT_TIMEOUT_SECONDS": "x"},
            "baton-notifier: invalid settings: BATON_CONNECT_TIMEOUT_SECONDS: Input should be "
            "a valid number, unable to parse string as a number (got 'x')",
        ),
    ],
)
def test_a_bad_setting_is_said_before_the_service_is_imported(
    module: str, env: dict[str, str], said: str
) -> None:
    status, stderr, imported = run(module, **env)
    assert (status, stderr.strip()) == (2, said)
    assert not [name for name in HEAVY if name in imported]


@pytest.mark.parametrize(("module", "name"), [("baton_workflow", "workflow"),
                                              ("baton_agent_runner", "agent-runner")])  # fmt: skip
def test_a_database_url_that_is_none_is_said_before_the_service_is_imported(
    module: str, name: str
) -> None:
    # Found when the service built its engine, after importing all of it.
    status, stderr, imported = run(module, BATON_DATABASE_URL="nope")
    assert (status, stderr.strip()) == (
        2,
        f"{name}: BATON_DATABASE_URL: cannot use its value: it is not a database URL "
        "(sqlite+aiosqlite or postgresql+asyncpg)",
    )
    # SQLAlchemy parses the URL; the rest of the service is not imported.
    assert not [n for n in HEAVY if n in imported and n != "sqlalchemy"]
    assert "sqlalchemy.ext.asyncio" not in imported


SERVICES = [("baton_workflow", "workflow"), ("baton_agent_runner", "agent-runner"),
            ("baton_notifier", "baton-notifier")]  # fmt: skip
GATEWAY = {"BATON_JWT_SECRET": "s" * 32}
"""What the gateway needs beside the setting under test (the others need nothing)."""


@pytest.mark.parametrize(("module", "name"), SERVICES)
@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
            "OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL with a host, such "
            "as http://127.0.0.1:4318, got 'collector:4318'",
        ),
        (  # the password in the URL is not said
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:hunter2@collector:99999"},
            "OTEL_EXPORTER_OTLP_ENDPOINT: not a URL (Port out of range 0-65535): "
            "'http://***@collector:99999'",
        ),
        (
            {"BATON_TELEMETRY_ENABLED": "maybe"},
            "BATON_TELEMETRY_ENABLED: Input should be a valid boolean, unable to interpret "
            "input (got 'maybe')",
        ),
        (
            {"BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS": "0"},
            "BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS: Input should be greater than 0 (got '0')",
        ),
        (
            {"BATON_TELEMETRY_MAX_QUEUE": "lots"},
            "BATON_TELEMETRY_MAX_QUEUE: Input should be a valid integer, unable to parse "
            "string as an integer (got 'lots')",
        ),
    ],
)
def test_a_bad_tracing_setting_is_said_before_the_service_is_imported(
    module: str, name: str, env: dict[str, str], said: str
) -> None:
    # Read when tracing started, after the service was imported (3-6 s here).
    status, stderr, imported = run(module, **GATEWAY, **env)
    assert (status, stderr.strip()) == (2, f"{name}: invalid settings: {said}")
    assert not [n for n in HEAVY if n in imported]


@pytest.fixture
def udp() -> Iterator[socket.socket]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        yield sock


def test_an_http_fd_that_is_not_open_is_said_before_the_gateway_is_imported() -> None:
    # No descriptor but 0-2 is inherited: 1000 is open in no child.
    status, stderr, imported = run("baton_notifier", **GATEWAY, BATON_HTTP_FD="1000")
    assert (status, stderr.strip()) == (
        2,
        "baton-notifier: BATON_HTTP_FD: 1000 is not an open socket (Bad file descriptor)",
    )
    assert not [n for n in HEAVY if n in imported]


def test_an_http_fd_that_is_no_tcp_socket_is_said_before_the_gateway_is_imported(
    udp: socket.socket,
) -> None:
    fd = str(udp.fileno())
    status, stderr, imported = run(
        "baton_notifier", pass_fds=(udp.fileno(),), **GATEWAY, BATON_HTTP_FD=fd
    )
    assert (status, stderr.strip()) == (
        2,
        f"baton-notifier: BATON_HTTP_FD: {fd} is not a TCP socket",
    )
    assert not [n for n in HEAVY if n in imported]
