"""What the workflow service's log says of a DAG run at INFO: one line when it starts (run id,
workflow and version, user, mode), one when it ends (completed; failed or timed out with the
failing step and why; cancelled). A prompt or a cancel reason, text the user wrote, is not in
them."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from ...platform_stack import Stack
from .conftest import Author, steps_of

LOGGER = "baton_workflow.service.dag_runs"
SECRET_WORDS = "the-users-own-words"


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    """Every test here shares one platform (each has its own user)."""
    return module_stack


def lines(caplog: pytest.LogCaptureFixture, run_id: str) -> list[str]:
    """The service's INFO lines about one run."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == LOGGER and r.levelno == logging.INFO and run_id in r.getMessage()
    ]


def document(name: str, prompt: str, **step: Any) -> dict[str, Any]:
    return {"name": name, "steps": [{"id": "research", "agent": "hisui", "prompt": prompt, **step}]}


async def test_a_run_that_completes_is_logged_when_it_starts_and_ends(
    author: Author, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    run = await author.run_to_end(document("logged-ok", f"Research {SECRET_WORDS}"))
    assert run["status"] == "success", run

    run_id = run["run_id"]
    assert lines(caplog, run_id) == [
        f"run {run_id} of logged-ok@1 started for user {author.name} (live)",
        f"run {run_id} of logged-ok@1 completed",
    ]
    assert not any(SECRET_WORDS in r.getMessage() for r in caplog.records)


async def test_a_failed_run_names_its_failing_step_and_why(
    author: Author, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    run = await author.run_to_end(document("logged-failure", f"{SECRET_WORDS} [[fail]]"))
    assert run["status"] == "error", run

    run_id = run["run_id"]
    started, ended = lines(caplog, run_id)
    assert started == f"run {run_id} of logged-failure@1 started for user {author.name} (live)"
    assert ended == f"run {run_id} of logged-failure@1 failed: {run['error']}"
    assert ended.startswith(f'run {run_id} of logged-failure@1 failed: step "research" failed')
    assert "scripted failure" in ended
    assert SECRET_WORDS not in ended


async def test_a_run_that_times_out_says_so(
    author: Author, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    slow = {**document("logged-timeout", "Think [[sleep:30]]"), "timeout": "200ms"}
    run = await author.run_to_end(slow)
    assert run["status"] == "timeout", run

    run_id = run["run_id"]
    assert lines(caplog, run_id)[1:] == [
        f"run {run_id} of logged-timeout@1 timed out: workflow timed out after 200ms"
    ]


async def test_a_cancelled_run_is_logged_without_its_reason(
    author: Author, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    await author.created(document("logged-cancel", "Think [[sleep:30]]"))
    run_id = (await author.run("logged-cancel"))["run_id"]
    await author.wait_until(run_id, lambda run: steps_of(run)["research"]["status"] == "running")
    cancel = await author.http.post(
        f"/workflow-runs/{run_id}/cancel", json={"reason": SECRET_WORDS}, headers=author.headers
    )
    assert cancel.status_code == 202, cancel.text
    run = await author.wait(run_id)
    assert run["status"] == "cancelled", run

    assert lines(caplog, run_id)[1:] == [f"run {run_id} of logged-cancel@1 cancelled"]
    assert not any(
        SECRET_WORDS in r.getMessage() for r in caplog.records if r.name.startswith("baton_work")
    )
