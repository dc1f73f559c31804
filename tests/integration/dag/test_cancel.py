"""Cancelling a run over HTTP: it ends `cancelled`, the agent-runner stops its model call, and
asking again, another user's run, an ended run and a bad reason each get their clear answer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ...platform_stack import Stack
from .conftest import Author, steps_of

SLOW = {
    "name": "long-research",
    "steps": [
        {"id": "slow", "agent": "hisui", "prompt": "Research for a long time [[sleep:30]]"},
        {"id": "after", "prompt": "Never", "dependsOn": ["slow"]},
    ],
}


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    """Every test here shares one platform (each has its own user)."""
    return module_stack


async def _running_slow_step(author: Author) -> str:
    await author.created(SLOW)
    run_id = (await author.run("long-research"))["run_id"]
    await author.wait_until(run_id, lambda run: steps_of(run)["slow"]["status"] == "running")
    return run_id


async def _cancel(author: Author, run_id: str, **body: Any) -> Any:
    return await author.http.post(
        f"/workflow-runs/{run_id}/cancel", json=body or None, headers=author.headers
    )


async def _stopped(cut_off: list[tuple[str, str]], run_id: str) -> None:
    """Once the run has ended, the agent-runner hears the notice and cuts its call off."""
    async with asyncio.timeout(5.0):
        while (run_id, "slow") not in cut_off:  # noqa: ASYNC110 (a list a wrapper appends to)
            await asyncio.sleep(0.02)


async def _cancel_and_stop(author: Author, cut_off: list[tuple[str, str]], run_id: str) -> None:
    """Leave nothing sleeping on the shared platform (its agent-runner would wait for it)."""
    await _cancel(author, run_id)
    await author.wait(run_id, timeout=10.0)
    await _stopped(cut_off, run_id)


async def test_a_cancelled_run_ends_cancelled_and_its_model_call_is_stopped(
    author: Author, cut_off: list[tuple[str, str]]
) -> None:
    run_id = await _running_slow_step(author)

    response = await _cancel(author, run_id, reason="wrong topic")

    assert response.status_code == 202, response.text
    assert response.json() == {
        "run_id": run_id,
        "status": "running",
        "reason": "wrong topic",
        "recorded": True,
    }
    run = await author.wait(run_id, timeout=10.0)  # long before the step's 30 s sleep ends
    assert run["status"] == "cancelled", run
    assert run["error"] == "run cancelled: wrong topic"
    steps = steps_of(run)
    assert steps["slow"]["status"] == "error" and steps["slow"]["error"] == run["error"]
    assert steps["after"]["status"] == "skipped"
    await _stopped(cut_off, run_id)

    again = await _cancel(author, run_id, reason="changed my mind")
    assert again.status_code == 200, again.text
    assert again.json() == {
        "run_id": run_id,
        "status": "cancelled",
        "reason": "wrong topic",  # the first reason stays
        "recorded": False,
    }


async def test_without_a_body_the_reason_says_who_cancelled(
    author: Author, cut_off: list[tuple[str, str]]
) -> None:
    run_id = await _running_slow_step(author)

    response = await _cancel(author, run_id)

    assert response.status_code == 202, response.text
    assert response.json()["reason"] == "cancelled by its owner"
    run = await author.wait(run_id, timeout=10.0)
    assert run["error"] == "run cancelled: cancelled by its owner"
    await _stopped(cut_off, run_id)


async def test_an_ended_run_cannot_be_cancelled(author: Author) -> None:
    run = await author.run_to_end({"name": "quick", "steps": [{"id": "a", "prompt": "Hello"}]})
    assert run["status"] == "success"

    response = await _cancel(author, run["run_id"])

    assert response.status_code == 409, response.text
    assert response.json()["error"]["message"] == (
        f"run {run['run_id']} already ended with status success; "
        "only a running run can be cancelled"
    )
    # Named as an ended instance's 409 names `path.instance_id` (it had no detail at all).
    assert response.json()["error"]["details"] == [
        {"field": "path.run_id", "message": "the run has ended (success)"}
    ]
    assert (await author.detail(run["run_id"])).json()["status"] == "success"


async def test_another_users_run_and_an_unknown_one_are_not_found(
    author: Author, http: Any, cut_off: list[tuple[str, str]]
) -> None:
    run_id = await _running_slow_step(author)
    mallory = Author(http, "mallory")

    assert (await _cancel(mallory, run_id)).status_code == 404
    assert (await _cancel(author, "no-such-run")).status_code == 404
    assert (await author.detail(run_id)).json()["status"] == "running"  # untouched
    await _cancel_and_stop(author, cut_off, run_id)


@pytest.mark.parametrize("reason", ["", "x" * 501])
async def test_a_bad_reason_is_refused_naming_the_field(
    author: Author, cut_off: list[tuple[str, str]], reason: str
) -> None:
    run_id = await _running_slow_step(author)

    response = await _cancel(author, run_id, reason=reason)

    assert response.status_code == 422, response.text
    assert "reason" in response.text
    assert (await author.detail(run_id)).json()["status"] == "running"  # nothing recorded
    await _cancel_and_stop(author, cut_off, run_id)
