"""A page of a user's runs: newest first, at most `limit` and about `PAGE_BYTES` of JSON, never
ending between two runs started at the same instant (the list has no order among them, so the
next page, the runs started before the page's last, would skip one)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baton_contracts import RemoteError
from baton_contracts.dag_api import ListDagRuns
from baton_contracts.workflow_api import PAGE_BYTES
from baton_workflow.service.dag_run_list import LONGEST_ERROR, run_page

T0 = datetime(2026, 12, 1, tzinfo=UTC)


def row(n: int, at: datetime, error: str | None = None) -> dict[str, Any]:
    return {
        "run_id": f"r{n:03}",
        "workflow": "wf",
        "version": 1,
        "mode": "live",
        "status": "cancelled",
        "started_at": at,
        "finished_at": at,
        "cost_usd": 0.0,
        "error": error,
    }


class Runs:
    """The listing part of a run store: `rows` newest first, as the index reads them."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    async def listed(
        self,
        owner: str,
        workflow: str | None,
        limit: int | None,
        before: datetime | None = None,
        at: datetime | None = None,
    ) -> list[dict[str, Any]]:
        found = [
            r
            for r in self.rows
            if (before is None or r["started_at"] < before)
            and (at is None or r["started_at"] == at)
        ]
        return found if limit is None else found[:limit]

    async def started_at(
        self, owner: str, run_id: str, workflow: str | None = None
    ) -> datetime | None:
        found = (r for r in self.rows if r["run_id"] == run_id)
        return next((r["started_at"] for r in found if workflow in (None, r["workflow"])), None)


async def pages(runs: Runs, limit: int) -> list[list[str]]:
    listed: list[list[str]] = []
    after = None
    while True:
        query = ListDagRuns(user_id="u", limit=limit, after=after)
        page = await run_page(runs, query)  # type: ignore[arg-type]
        listed.append([run.run_id for run in page.runs])
        after = page.next_after
        if after is None:
            return listed


async def test_a_page_ends_before_runs_started_at_one_instant() -> None:
    times = [T0 - timedelta(seconds=s) for s in (0, 1, 2, 2, 2, 3)]
    runs = Runs([row(n, at) for n, at in enumerate(times)])
    assert await pages(runs, limit=3) == [["r000", "r001"], ["r002", "r003", "r004"], ["r005"]]


async def test_a_page_all_of_one_instant_lists_the_instant_whole() -> None:
    times = [T0] * 4 + [T0 - timedelta(seconds=1)]
    runs = Runs([row(n, at) for n, at in enumerate(times)])
    assert await pages(runs, limit=2) == [["r000", "r001", "r002", "r003"], ["r004"]]


async def test_a_page_holds_about_page_bytes() -> None:
    error = "e" * 20_000
    runs = Runs([row(n, T0 - timedelta(seconds=n), error) for n in range(100)])
    listed = await pages(runs, limit=1000)
    assert sum(len(p) for p in listed) == 100 and len(listed) >= 4
    first = await run_page(runs, ListDagRuns(user_id="u", limit=1000))  # type: ignore[arg-type]
    assert PAGE_BYTES // 2 < len(first.model_dump_json()) <= PAGE_BYTES


async def test_a_run_too_large_for_a_page_alone_has_its_error_cut() -> None:
    runs = Runs([row(0, T0, "\x01" * 200_000), row(1, T0 - timedelta(seconds=1), "short")])
    first = await run_page(runs, ListDagRuns(user_id="u", limit=10))  # type: ignore[arg-type]
    [run] = first.runs
    assert run.error is not None and run.error.startswith("\x01" * LONGEST_ERROR)
    assert "more characters cut" in run.error
    assert len(first.model_dump_json()) < 1024 * 1024 // 2
    assert first.next_after == "r000"


async def test_an_unknown_run_is_no_place_to_go_on_from() -> None:
    with pytest.raises(RemoteError) as refused:
        await run_page(Runs([]), ListDagRuns(user_id="u", after="ghost"))  # type: ignore[arg-type]
    assert [d.field for d in refused.value.body.details] == ["after"]


async def test_a_long_error_that_fits_a_page_is_listed_whole() -> None:
    runs = Runs([row(0, T0, "e" * 100_000)])
    first = await run_page(runs, ListDagRuns(user_id="u"))  # type: ignore[arg-type]
    assert first.runs[0].error == "e" * 100_000
