"""A page of the user's active instances stays within `PAGE_BYTES`, however many there are."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

from baton_contracts import RemoteError
from baton_contracts.base import ok_reply_json
from baton_contracts.workflow_api import (
    PAGE_BYTES,
    PAGE_LIMIT,
    InstanceSummary,
    ListActiveInstances,
)
from baton_workflow.service.queries import list_active

USER = "u" * 256  # the longest user id the read model holds, each item repeats it


def summary(n: int) -> InstanceSummary:
    at = datetime(2026, 12, 1, tzinfo=UTC) + timedelta(seconds=n)
    return InstanceSummary(
        instance_id=f"{n:064d}",
        workflow_id=f"w{n:063d}",
        user_id=USER,
        status="active",
        current_step="s" * 64,
        progress=0.3333333333333333,
        messages_in_step=2**31,
        created_at=at,
        updated_at=at,
    )


@dataclass
class FakeRepo:
    """`list_active` and `get_summary` of `SqlInstanceRepository`, over a list."""

    listed: list[InstanceSummary]
    asked: list[int | None] = field(default_factory=list)

    async def list_active(
        self, user_id: str, after: InstanceSummary | None = None, limit: int | None = None
    ) -> list[InstanceSummary]:
        self.asked.append(limit)
        start = 0 if after is None else self.listed.index(after) + 1
        return self.listed[start:][:limit]

    async def get_summary(self, instance_id: str) -> InstanceSummary | None:
        return next((s for s in self.listed if s.instance_id == instance_id), None)


@dataclass
class FakeServices:
    repo: FakeRepo


async def test_many_large_rows_are_listed_in_pages_that_fit_a_reply() -> None:
    repo = FakeRepo([summary(n) for n in range(3000)])
    svc = cast(Any, FakeServices(repo))
    seen: list[str] = []
    after = None
    while True:
        page = await list_active(svc, ListActiveInstances(user_id=USER, after=after))
        assert len(ok_reply_json(page)) <= PAGE_BYTES + 2048
        seen += [i.instance_id for i in page.instances]
        after = page.next_after
        if after is None:
            break
    assert seen == [s.instance_id for s in repo.listed]
    assert repo.asked[0] == PAGE_LIMIT + 1  # never the whole table at once


async def test_an_unknown_place_to_go_on_from_is_invalid_naming_after() -> None:
    svc = cast(Any, FakeServices(FakeRepo([summary(1)])))
    with pytest.raises(RemoteError) as refused:
        await list_active(svc, ListActiveInstances(user_id="other", after=summary(1).instance_id))
    assert refused.value.body.code == "invalid"
    assert [d.field for d in refused.value.body.details] == ["after"]
