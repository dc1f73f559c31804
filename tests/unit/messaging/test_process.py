"""A service process: its heap tuned, bad settings refused in one line, tracing around it."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from baton_messaging.process import GC_THRESHOLDS, run_service, serve
from baton_telemetry import start_tracing

PROBE = """
import gc, json
from baton_messaging.process import tune_garbage_collector
before = gc.get_threshold()
kept = [[n] for n in range(1000)]  # long-lived containers built at start-up
tune_garbage_collector()
print(json.dumps({"before": before, "after": gc.get_threshold(),
                  "frozen": gc.get_freeze_count() >= len(kept)}))
"""


def test_tune_garbage_collector_freezes_the_start_up_heap_and_raises_the_thresholds() -> None:
    # In a process of its own: freezing this test process's heap would outlive the test.
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    seen = json.loads(run.stdout)
    # CPython's default (700, 10, 10 on 3.11) is not the tuning, so the change is the tuning's.
    assert tuple(seen["before"]) != GC_THRESHOLDS
    assert tuple(seen["after"]) == GC_THRESHOLDS and GC_THRESHOLDS[0] > seen["before"][0]
    assert seen["frozen"]


class _Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BATON_")

    log_level: str = "INFO"
    event_loop: str = "asyncio"
    grace_seconds: float = Field(default=1.0, ge=0)
    names: list[str] = Field(default_factory=list)


def _never_built(settings: _Settings) -> Any:
    raise AssertionError("a service with bad settings is never built")


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("BATON_GRACE_SECONDS", "-1", "BATON_GRACE_SECONDS: Input should be greater than"),
        ("BATON_NAMES", "HOME", "BATON_NAMES: not valid JSON (a list or mapping is JSON)"),
        ("BATON_LOG_LEVEL", "bogus", "BATON_LOG_LEVEL: unknown level 'bogus'"),
        # `logging` knows these; the gateway refused them while the others started.
        ("BATON_LOG_LEVEL", "WARN", "BATON_LOG_LEVEL: unknown level 'WARN'"),
        ("BATON_LOG_LEVEL", "fatal", "BATON_LOG_LEVEL: unknown level 'fatal'"),
        # The broker's own settings, read when the service builds it, not in `_Settings`.
        ("BATON_CONNECT_TIMEOUT_SECONDS", "soon", "BATON_CONNECT_TIMEOUT_SECONDS: Input should"),
        # Read under their own names (validation aliases), not `BATON_` + the field name.
        ("BATON_TELEMETRY_ENABLED", "maybe", "BATON_TELEMETRY_ENABLED: Input should be a valid"),
        # Taken as it was, and nothing was ever exported (found by a review of the settings).
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "notaurl", "OTEL_EXPORTER_OTLP_ENDPOINT: must be an http"),
        # Its port was not read until the first export, which then failed in the background.
        (
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "http://collector:otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT: not a URL",
        ),
        ("BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS", "0", "BATON_TELEMETRY_EXPORT_TIMEOUT_SECONDS: "),
        # Handed over by `baton up` (`baton_messaging.lifeline`), never by a user, but checked.
        ("BATON_LIFELINE_FD", "one", "BATON_LIFELINE_FD: expected a file descriptor number"),
    ],
)
def test_a_bad_setting_exits_2_with_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    said: str,
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as ended:
        run_service("probe", _Settings, _never_built, tracing=start_tracing)
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"probe: invalid settings: {said}"), line


class _Built:
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    async def start(self) -> None:
        self.seen.append("started")
        signal.raise_signal(signal.SIGTERM)  # as an orchestrator stopping it would

    async def stop(self) -> None:
        self.seen.append("stopped")


@pytest.fixture
def gc_restored() -> Iterator[None]:
    """`run_service` tunes the collector for its process: here, that is pytest's."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("gc_restored")
def test_tracing_starts_before_the_service_is_built_and_is_flushed_after_it_stops() -> None:
    seen: list[str] = []

    def tracing(name: str) -> Any:
        seen.append(f"tracing {name}")
        return lambda: seen.append("flushed")

    def build(settings: _Settings) -> _Built:
        seen.append("built")
        return _Built(seen)

    run_service("probe", _Settings, build, tracing=tracing)
    assert seen == ["tracing probe", "built", "started", "stopped", "flushed"]


@pytest.mark.parametrize(
    "module",
    [
        "baton_workflow.entrypoints.main",
        "baton_agent_runner.entrypoints.main",
        "baton_notifier.entrypoints.main",
    ],
)
def test_a_service_module_imports_whatever_the_environment_says(module: str) -> None:
    # `make docs` imports these for their brokers; a bad setting is `main`'s to report.
    env = {
        **os.environ,
        "BATON_REQUEST_TIMEOUT_SECONDS": "-1",
        "BATON_CONNECT_TIMEOUT_SECONDS": "x",
    }
    run = subprocess.run(
        [sys.executable, "-c", f"import {module}"], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr


class _StuckStarting:
    """A service whose start never ends, as one retrying an unreachable NATS forever."""

    def __init__(self) -> None:
        self.start_cancelled = False
        self.stopped = False

    async def start(self) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.start_cancelled = True
            raise

    async def stop(self) -> None:
        self.stopped = True


async def test_a_stop_signal_during_a_start_that_never_ends_stops_the_service(
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = _StuckStarting()
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, signal.raise_signal, signal.SIGTERM)
    with caplog.at_level(logging.INFO):
        await asyncio.wait_for(
            serve("probe", service, needs="NATS at nats://nowhere:4222", report_every=0.1), 10
        )
    assert service.start_cancelled and service.stopped
    said = [r.getMessage() for r in caplog.records]
    assert "probe stopping before it was ready" in said
    assert "probe ready" not in said
    # While it waited, it said so, naming what it needs, instead of staying silent.
    waiting = "probe is not ready after 0 s: it needs NATS at nats://nowhere:4222; still trying"
    assert waiting in said


async def test_a_start_that_fails_still_raises_once_what_it_opened_is_stopped() -> None:
    class Broken(_StuckStarting):
        async def start(self) -> None:
            raise ValueError("bad checker module")

    broken = Broken()
    with pytest.raises(ValueError, match="bad checker module"):
        await serve("probe", broken, report_every=0.1)
    assert broken.stopped


async def test_a_stop_that_fails_after_a_failed_start_does_not_hide_the_cause(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class BrokenTwice(_StuckStarting):
        async def start(self) -> None:
            raise ValueError("bad checker module")

        async def stop(self) -> None:
            raise RuntimeError("never started")

    with caplog.at_level(logging.WARNING), pytest.raises(ValueError, match="bad checker"):
        await serve("probe", BrokenTwice(), report_every=0.1)
    assert "probe: stopping after an unfinished start failed" in caplog.text
