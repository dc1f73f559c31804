"""A service process's heap: start-up objects frozen, collections less often than CPython's."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from baton_messaging.process import GC_THRESHOLDS, run_service

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
        run_service("probe", _Settings, _never_built)
    assert ended.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"probe: invalid settings: {said}"), line
