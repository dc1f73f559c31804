"""A step that sets no timeout is held to the default of its type, even in a run that has a
long timeout of its own, and ends `timeout` when that default passes."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from .conftest import Author, steps_of

DEFAULT = "step timed out after 1s (the default timeout: the step sets none)"


@pytest.fixture
def workflow_extra() -> dict[str, Any]:
    return {"workflow_agent_step_timeout_seconds": 1.0, "workflow_tool_timeout_seconds": 1.0}


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that takes connections and never answers (a hung server)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


async def test_an_agent_step_gets_the_default_timeout_not_the_run_one(
    author: Author, task_calls: list[dict[str, Any]]
) -> None:
    document = {
        "name": "slow-agent",
        "timeout": "1h",
        "steps": [{"id": "slow", "agent": "kohaku", "prompt": "Think long [[sleep:5]]"}],
    }
    run = await author.run_to_end(document)

    assert run["status"] == "error", run
    slow = steps_of(run)["slow"]
    assert (slow["status"], slow["error"]) == ("timeout", DEFAULT)
    asked = task_calls[0]  # the agent-runner was told the default's time, not the run's hour
    assert asked["timeout_seconds"] <= 1.0
    started = datetime.fromisoformat(slow["started_at"])
    assert datetime.fromisoformat(asked["deadline"]) == started + timedelta(seconds=1)


async def test_a_hung_tool_step_ends_timeout_at_the_default(
    author: Author, silent_port: int
) -> None:
    document = {
        "name": "hung-tool",
        "timeout": "1h",
        "steps": [
            {"id": "fetch", "type": "tool_call", "toolName": "http-get",
             "toolInput": {"url": f"http://127.0.0.1:{silent_port}/data"}},
        ],
    }  # fmt: skip
    run = await author.run_to_end(document)

    assert run["status"] == "error", run
    fetch = steps_of(run)["fetch"]
    assert fetch["status"] == "timeout", fetch
