"""At most `BATON_WORKFLOW_MAX_RUNS_PER_USER` runs of one user run at once: a start past it is
429 `too_many` with nothing written, a retry of a start that went in still gets its run, other
users are not held back, and a run that ends makes room."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ON_BOTH_BACKENDS, Author, steps_of

LIMIT = 2
SLOW = {
    "name": "long-research",
    "steps": [{"id": "slow", "agent": "hisui", "prompt": "Research for a long time [[sleep:30]]"}],
}


@pytest.fixture
def workflow_extra() -> dict[str, Any]:
    return {"workflow_max_runs_per_user": LIMIT}


async def _running(author: Author, **headers: str) -> str:
    response = await author.http.post(
        "/workflows/long-research/run", json={}, headers={**author.headers, **headers}
    )
    assert response.status_code == 202, response.text
    run_id: str = response.json()["run_id"]
    await author.wait_until(run_id, lambda run: steps_of(run)["slow"]["status"] == "running")
    return run_id


async def _cancel(author: Author, run_id: str) -> None:
    response = await author.http.post(
        f"/workflow-runs/{run_id}/cancel", json=None, headers=author.headers
    )
    assert response.status_code == 202, response.text
    await author.wait(run_id, timeout=10.0)


@ON_BOTH_BACKENDS
async def test_a_start_past_the_limit_is_429_and_a_run_that_ends_makes_room(
    author: Author, http: Any
) -> None:
    await author.created(SLOW)
    first = await _running(author, **{"Idempotency-Key": "first"})
    second = await _running(author)

    refused = await author.post_run("long-research")
    assert refused.status_code == 429, refused.text
    error = refused.json()["error"]
    assert error["code"] == "too_many"
    assert error["message"] == (
        "you have 2 runs running, and at most 2 may run at once; start this one when another "
        "has ended, or cancel one"
    )
    assert error["details"] == [{"field": "runs", "message": "2 running of at most 2"}]
    listed = await http.get("/workflow-runs", headers=author.headers)
    assert sorted(r["run_id"] for r in listed.json()["runs"]) == sorted([first, second])

    # A retry of a start that went in is answered with its run, as below the limit.
    again = await author.http.post(
        "/workflows/long-research/run",
        json={},
        headers={**author.headers, "Idempotency-Key": "first"},
    )
    assert again.status_code == 202 and again.json()["run_id"] == first, again.text

    other = Author(http, f"{author.name}-other")
    await other.created(SLOW)
    theirs = await _running(other)  # another user is not held back

    await _cancel(author, first)
    third = await _running(author)  # the cancelled run made room
    for user, run_id in ((author, second), (author, third), (other, theirs)):
        await _cancel(user, run_id)  # nothing left sleeping in the agent-runner
