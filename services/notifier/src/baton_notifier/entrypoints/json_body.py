"""JSON request bodies as every route reads them: what no store can keep is refused by its path.

Python's JSON reader takes a lone surrogate (a `\\ud800` escape, or its bytes in the body)
into a string that nothing can write out again as UTF-8: forwarding such a body failed with
an internal error, or, in a key, reached the owner turned into other characters.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from baton_contracts.documents import read_json
from baton_contracts.storable import Unstorable, first_unstorable


class UnstorableBody(ValueError):
    """The body holds a value that cannot be stored; FastAPI reports it as unparsable (400),
    which the error handlers turn into a 422 naming `found`."""

    def __init__(self, found: Unstorable) -> None:
        super().__init__(f"{found.path('body')}: {found.problem}")
        self.found = found


class CheckedJsonRequest(Request):
    """A request whose JSON body is refused when it holds a lone surrogate."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            value = read_json(body)  # a key given twice: RepeatedKey, a 422 naming it
            # A lone surrogate needs a \u escape or a byte past ASCII: only then is it looked for.
            if b"\\u" in body or not body.isascii():
                found = first_unstorable(value, nul=False, numbers=False)
                if found is not None:
                    raise UnstorableBody(found)
            self._json = value
        return self._json


class CheckedJsonRoute(APIRoute):
    """A route reading its JSON body through `CheckedJsonRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def checked(request: Request) -> Response:
            return await handler(CheckedJsonRequest(request.scope, request.receive))

        return checked
