"""`GET /workflow-runs` and `GET /workflows/{name}/runs`: a page holds at most `limit` runs and
about 512 KiB of JSON, so the list fits a NATS reply however long the runs' errors are; the
pages follow one another by `next_after`, through the gateway on a real NATS.

A cancelled run's error is `run cancelled: <reason>`, the reason up to 500 characters: of
control characters, each `\\u0001` (6 bytes) as JSON, about 3.3 KB a listed run, so 340 such
runs listed at once (`?limit=1000`) made a reply over the 1 MiB NATS carries: 500.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from baton_workflow.bootstrap import WorkflowApp, build

from .conftest import FakeAgentRunner, workflow_settings

RUNS = 340
REASON = "x" + "\x01" * 499  # the longest reason, each control character 6 bytes as JSON
WAITING = {"name": "waits", "steps": [{"id": "wait", "type": "delay", "delay": "1h"}]}
NATS_CARRIES = 1024 * 1024


@pytest.fixture
async def workflow(
    nats_url: str, sqlite_url: str, agent_runner: FakeAgentRunner
) -> AsyncIterator[WorkflowApp]:
    app = build(workflow_settings(nats_url, sqlite_url, workflow_max_runs_per_user=1000))
    await app.start()
    yield app
    await app.stop()


def auth(http: Any, user: str) -> dict[str, str]:
    return http.token(user)  # type: ignore[no-any-return]


async def cancelled_runs(http: Any, user: str, count: int) -> list[str]:
    """`count` runs of "waits", each cancelled with the longest reason; newest first."""
    headers = auth(http, user)
    created = await http.post("/workflows", json=WAITING, headers=headers)
    assert created.status_code in (200, 201), created.text

    async def one() -> str:
        started = await http.post("/workflows/waits/run", json={}, headers=headers)
        assert started.status_code == 202, started.text
        run_id = str(started.json()["run_id"])
        cancel = f"/workflow-runs/{run_id}/cancel"
        cancelled = await http.post(cancel, json={"reason": REASON}, headers=headers)
        assert cancelled.status_code == 202, cancelled.text
        return run_id

    ids = [await one() for _ in range(count)]
    for run_id in ids:  # each ends cancelled, its error the reason
        for _ in range(500):
            run = (await http.get(f"/workflow-runs/{run_id}", headers=headers)).json()
            if run["status"] == "cancelled":
                break
            await asyncio.sleep(0.01)
        assert run["error"] == f"run cancelled: {REASON}"
    return ids[::-1]


async def every_page(http: Any, user: str, path: str) -> tuple[list[str], int]:
    """The run ids of every page, following `next_after`; and how many pages there were."""
    ids: list[str] = []
    after = None
    for pages in range(1, 100):
        query = "?limit=1000" + (f"&after={after}" if after else "")
        page = await http.get(f"{path}{query}", headers=auth(http, user))
        assert page.status_code == 200, page.text[:300]
        assert len(page.content) < NATS_CARRIES // 2 + 8192
        ids += [run["run_id"] for run in page.json()["runs"]]
        after = page.json()["next_after"]
        if after is None:
            return ids, pages
    raise AssertionError("the pages did not end")


async def test_runs_with_long_errors_are_listed_a_page_at_a_time(gateway: Any) -> None:
    newest_first = await cancelled_runs(gateway, "rex", RUNS)
    for path in ("/workflow-runs", "/workflows/waits/runs"):
        ids, pages = await every_page(gateway, "rex", path)
        assert ids == newest_first  # each once, in order
        assert pages >= 2
    # The limit still holds, and says so when more follow.
    first = (await gateway.get("/workflow-runs?limit=2", headers=auth(gateway, "rex"))).json()
    assert [run["run_id"] for run in first["runs"]] == newest_first[:2]
    assert first["next_after"] == newest_first[1]
    assert first["runs"][0]["error"] == f"run cancelled: {REASON}"  # whole, not cut


async def test_a_short_list_says_it_is_the_last_page(gateway: Any) -> None:
    newest_first = await cancelled_runs(gateway, "sue", 3)
    listed = (await gateway.get("/workflow-runs", headers=auth(gateway, "sue"))).json()
    assert [run["run_id"] for run in listed["runs"]] == newest_first
    assert listed["next_after"] is None
    rest = await gateway.get(
        f"/workflows/waits/runs?after={newest_first[0]}", headers=auth(gateway, "sue")
    )
    assert rest.status_code == 200, rest.text
    assert [run["run_id"] for run in rest.json()["runs"]] == newest_first[1:]


@pytest.mark.parametrize("path", ["/workflow-runs", "/workflows/waits/runs"])
async def test_an_unknown_or_another_users_run_is_no_place_to_go_on_from(
    gateway: Any, path: str
) -> None:
    [theirs] = await cancelled_runs(gateway, "tom", 1)
    await cancelled_runs(gateway, "ada", 1)
    for after, field in ((theirs, "query.after"), ("nope", "query.after"), ("a.b", "query.after")):
        reply = await gateway.get(f"{path}?after={after}", headers=auth(gateway, "ada"))
        assert reply.status_code == 422, reply.text
        assert [d["field"] for d in reply.json()["error"]["details"]] == [field]


async def test_a_run_of_another_workflow_is_no_place_to_go_on_from(gateway: Any) -> None:
    """`next_after` of one workflow's list names a run of it: a run of another workflow as
    `after` of `?workflow=` (a cursor of another list mixed in) is refused, not read as
    "started before it", which skips or repeats runs of the list being paged."""
    [waits] = await cancelled_runs(gateway, "kim", 1)
    headers = auth(gateway, "kim")
    other = {**WAITING, "name": "other"}
    assert (await gateway.post("/workflows", json=other, headers=headers)).status_code == 201
    for path in ("/workflow-runs?workflow=other", "/workflows/other/runs?x=1"):
        reply = await gateway.get(f"{path}&after={waits}", headers=headers)
        assert reply.status_code == 422, reply.text
        assert [d["field"] for d in reply.json()["error"]["details"]] == ["query.after"]
        assert "of workflow 'other'" in reply.json()["error"]["message"]
    # Every list that holds the run goes on from it.
    for path in ("/workflow-runs?", "/workflow-runs?workflow=waits&", "/workflows/waits/runs?"):
        reply = await gateway.get(f"{path}after={waits}", headers=headers)
        assert reply.status_code == 200, reply.text
