"""HEAD on every GET route: the status and headers of the GET, without its body (RFC 9110
9.3.2), as load balancers and health checks ask. FastAPI, unlike Starlette, answered 405.

Done where the route's methods are set, once as the route is built: a request is matched
against `methods` anyway, so no request pays anything for it (a middleware rewriting HEAD
would cost every request, the hot POSTs too). uvicorn sends no body to a HEAD, only the
headers of the GET's, `Content-Length` with them.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.datastructures import DefaultPlaceholder
from fastapi.routing import APIRoute
from fastapi.utils import generate_unique_id


class GatewayRoute(APIRoute):
    """An `APIRoute` that answers HEAD wherever it answers GET; every gateway route is one."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        methods = self.methods  # always a set on an APIRoute (GET when none was given)
        if methods is not None and "GET" in methods and "HEAD" not in methods:
            methods.add("HEAD")
            if isinstance(self.generate_unique_id_function, DefaultPlaceholder):
                # FastAPI names an operation after the first of its methods in set order,
                # each time the route is included: HEAD, in some processes.
                self.generate_unique_id_function = get_operation_id


def get_operation_id(route: Any) -> str:
    """FastAPI's default operation id (`generate_unique_id`), of the GET of a route that also
    answers HEAD: `me_api_me_get`, as before HEAD was added."""
    if "GET" not in route.methods:
        return generate_unique_id(route)
    return re.sub(r"\W", "_", f"{route.name}{route.path_format}") + "_get"


def openapi_of_gets(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """`app.openapi` without the HEAD operations of GET routes: HTTP's own, documented once in
    docs/gateway.md, not a second operation under the GET's operationId on every path."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            schema = generate()
        heads: Counter[str] = Counter()
        for operations in schema.get("paths", {}).values():
            if "get" in operations and "head" in operations:
                heads[operations.pop("head")["operationId"]] += 1
        for warning in caught:
            # FastAPI's "Duplicate Operation ID" for each HEAD beside its GET goes; any other
            # warning (a duplicate id of two routes among them) is given on as it came.
            duplicate = _DUPLICATE_ID.match(str(warning.message))
            if duplicate is not None and heads[duplicate[1]] > 0:
                heads[duplicate[1]] -= 1
                continue
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
        return schema

    return openapi


_DUPLICATE_ID = re.compile(r"Duplicate Operation ID (\S+) for function ")
