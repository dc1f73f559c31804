"""A query parameter a route reads is given once: `limit=abc&limit=2` is refused, not read
as 2.

Starlette's `query_params[name]` is the last of the values given, so the first was dropped
unseen, even one the route would have refused (`category=bad/x&category=priorities` listed
priorities). Which of two the client meant is not the gateway's to guess, as for an
`Authorization` or `Idempotency-Key` header sent twice. Parameters the route does not read
may still repeat: they are ignored, as HTTP usually has it.
"""

from __future__ import annotations

from collections import Counter

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.datastructures import QueryParams

from baton_contracts import ErrorDetail
from baton_notifier.domain.errors import ApiError

READ_WHOLE = frozenset({"token"})
"""Parameters whose every value their route reads itself: `/api/events` takes one `?token=`
sent twice and refuses two that differ as a 401 (`different tokens sent`), as `/ws` does."""


def query_names(route: APIRoute) -> frozenset[str]:
    """The query parameters `route` reads, as spelled in the URL (its dependencies' too), but
    those it reads every value of (`READ_WHOLE`)."""
    return frozenset(_aliases(route.dependant) - READ_WHOLE)


def _aliases(dependant: Dependant) -> set[str]:
    names = {field.alias for field in dependant.query_params}
    for dependency in dependant.dependencies:
        names |= _aliases(dependency)
    return names


def refuse_repeated(query: QueryParams, names: frozenset[str]) -> None:
    """422 naming each of `names` given more than once in `query`; nothing is sent on."""
    counts = Counter(name for name, _ in query.multi_items() if name in names)
    details = [
        ErrorDetail(field=f"query.{name}", message=f"given {count} times; send it once")
        for name, count in counts.items()
        if count > 1
    ]
    if details:
        said = "; ".join(f"{detail.field}: {detail.message}" for detail in details)
        raise ApiError.invalid(f"request is invalid: {said}", details)
