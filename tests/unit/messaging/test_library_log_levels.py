"""What a service process logs of the libraries it calls: httpx's line per request (every model
call, every tool fetch) only when the operator asks for DEBUG."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A request through a transport that answers in process: httpx logs it as it logs a real one.
SCRIPT = """
import httpx
from baton_messaging.log_lines import configure_logging
configure_logging({level!r})
transport = httpx.MockTransport(lambda request: httpx.Response(200, json={{}}))
with httpx.Client(transport=transport) as client:
    client.post("http://model.example/v1/chat/completions", json={{}})
"""


def logged(level: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(level=level)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return run.stderr


@pytest.mark.parametrize("level", ["INFO", "WARNING"])
def test_httpx_says_nothing_of_each_request_below_debug(level: str) -> None:
    assert "HTTP Request" not in logged(level)


def test_httpx_logs_each_request_when_the_operator_asks_for_debug() -> None:
    stderr = logged("DEBUG")
    assert "INFO httpx: HTTP Request: POST http://model.example/v1/chat/completions" in stderr


def test_a_level_above_warning_still_holds_for_httpx() -> None:
    script = (
        "import logging; from baton_messaging.log_lines import configure_logging; "
        "configure_logging('ERROR'); logging.getLogger('httpx').warning('a retried request')"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "a retried request" not in run.stderr
