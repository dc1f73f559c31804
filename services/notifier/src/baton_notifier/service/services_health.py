"""Ask every owner for its health at once, with one timeout for all."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from baton_contracts import HEALTH_QUERIES, HealthStatus, Query, RemoteError
from baton_notifier.domain.health import ServiceReport, report_of, unreachable
from baton_notifier.service.ports import Requester


async def check_services(
    requester: Requester, timeout: float, owners: Sequence[str] | None = None
) -> dict[str, ServiceReport]:
    """Each owner's report (of `owners`, else every owner), asked concurrently so the whole
    check takes at most `timeout`."""
    owners = sorted(HEALTH_QUERIES if owners is None else owners)
    reports = await asyncio.gather(
        *(_ask(requester, HEALTH_QUERIES[owner].model_validate({}), timeout) for owner in owners)
    )
    return dict(zip(owners, reports, strict=True))


async def _ask(requester: Requester, query: Query, timeout: float) -> ServiceReport:
    try:
        reply = await requester.request(query, timeout=timeout)
    except RemoteError as exc:
        return unreachable(exc.body.message)
    if not isinstance(reply, HealthStatus):
        return unreachable(f"unexpected reply {type(reply).__name__}")
    return report_of(reply)
