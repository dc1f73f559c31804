"""`POST /workflows/{name}/run` under an `Idempotency-Key`: a retry, and what is not one."""

from __future__ import annotations

from typing import Any

import pytest

from ...platform_stack import Stack
from .conftest import Author


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    """Every test here shares one platform (each has its own user)."""
    return module_stack


def notify(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "variables": {"topic": "durable runs"},
        "steps": [{"id": "tell", "type": "notify", "notifyMsg": "{{topic}}"}],
    }


async def test_a_key_reused_for_another_start_is_refused_and_starts_nothing(
    author: Author,
) -> None:
    for name in ("first", "second"):
        await author.created(notify(name))
    headers = {**author.headers, "Idempotency-Key": "nightly-1"}

    async def start(name: str, **body: Any) -> Any:
        return await author.http.post(f"/workflows/{name}/run", json=body, headers=headers)

    first = await start("first", variables={"topic": "A"})
    assert first.status_code == 202, first.text
    run_id = first.json()["run_id"]
    # A true retry, also one that leaves out nothing it gave; the default is the same too.
    assert (await start("first", variables={"topic": "A"})).json()["run_id"] == run_id
    for name, body in [
        ("second", {"variables": {"topic": "A"}}),  # another workflow
        ("first", {"variables": {"topic": "B"}}),  # other variables
        ("first", {}),  # the default, not what the first start gave
        ("first", {"variables": {"topic": "A"}, "mode": "dry_run"}),  # another mode
    ]:
        again = await start(name, **body)
        assert again.status_code == 409, (name, body, again.text)
        error = again.json()["error"]
        assert error["code"] == "conflict"
        assert f"already started run {run_id} of 'first' (live)" in error["message"]
        assert error["details"] == [  # the request's `request_id`, sent as the header
            {"field": "header.idempotency-key", "message": "already used for a different start"}
        ]
    await author.wait(run_id)
    runs = await author.http.get("/workflow-runs", headers=author.headers)
    assert [r["run_id"] for r in runs.json()["runs"]] == [run_id]


async def test_a_key_that_only_leaves_out_a_default_is_the_same_start(author: Author) -> None:
    await author.created(notify("defaults"))
    headers = {**author.headers, "Idempotency-Key": "defaults-1"}
    url = "/workflows/defaults/run"
    first = await author.http.post(url, json={}, headers=headers)
    spelled = await author.http.post(
        url, json={"variables": {"topic": "durable runs"}, "mode": "live"}, headers=headers
    )
    assert (first.status_code, spelled.status_code) == (202, 202), spelled.text
    assert spelled.json()["run_id"] == first.json()["run_id"]


async def test_an_empty_key_is_refused_naming_the_header(author: Author) -> None:
    await author.created(notify("empty-key"))
    headers = {**author.headers, "Idempotency-Key": ""}
    answer = await author.http.post("/workflows/empty-key/run", json={}, headers=headers)
    assert answer.status_code == 422
    assert answer.json()["error"]["details"] == [
        {
            "field": "header.idempotency-key",
            "message": "string should have at least 1 character",
        }
    ]
    runs = await author.http.get("/workflow-runs", headers=author.headers)
    assert runs.json()["runs"] == []
