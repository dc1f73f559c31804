"""Request bodies as every route reads them: of a media type the route takes (else 415), and,
as JSON, in UTF-8 with nothing in it that no store can keep (refused by its path).

Python's JSON reader takes a lone surrogate (a `\\ud800` escape, or its bytes in the body)
into a string that nothing can write out again as UTF-8: forwarding such a body failed with
an internal error, or, in a key, reached the owner turned into other characters.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response

from baton_contracts import ErrorDetail
from baton_contracts.documents import read_json
from baton_contracts.storable import Unstorable, all_unstorable
from baton_notifier.domain.errors import UNSUPPORTED_MEDIA_TYPE, ApiError
from baton_notifier.domain.media import DOCUMENT_BODY, JSON_BODY, Accepts, media_type
from baton_notifier.entrypoints.head_requests import GatewayRoute
from baton_notifier.entrypoints.query_once import query_names, refuse_repeated


class UnstorableBody(ValueError):
    """The body holds values that cannot be stored; FastAPI reports it as unparsable (400),
    which the error handlers turn into a 422 naming each of `found`."""

    def __init__(self, found: list[Unstorable]) -> None:
        super().__init__("; ".join(f"{each.path('body')}: {each.problem}" for each in found))
        self.found = found


class CheckedJsonRequest(Request):
    """A request whose JSON body is refused when it holds a lone surrogate."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            # Decoded here: given bytes, `json.loads` guesses UTF-16 or UTF-32 from the first
            # bytes (a BOM, or NULs) and took such a body. A UnicodeDecodeError is FastAPI's
            # 400, which the error handlers turn into a 422 naming `body` ("it is not UTF-8").
            # A UTF-8 byte-order mark is no content, and was taken before. A lone surrogate's
            # bytes pass, as `json.loads` let them: the check below names their field.
            text = body.decode("utf-8-sig", "surrogatepass")
            value = read_json(text)  # a key given twice: RepeatedKey, a 422 naming it
            # A lone surrogate needs a \u escape or a byte past ASCII: only then is it looked for.
            if b"\\u" in body or not body.isascii():
                found = all_unstorable(value, nul=False, numbers=False)
                if found:  # every one at once, as a document's other problems are
                    raise UnstorableBody(found)
            self._json = value
        return self._json


class CheckedJsonRoute(GatewayRoute):
    """A route reading its JSON body through `CheckedJsonRequest`, and refusing a body of a
    media type it does not read (when it reads a body at all), or a query parameter it reads
    given more than once, before anything else."""

    reads_documents = False
    """True on `DocumentRoute`: the body is a workflow document, JSON or YAML."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = self.taking_checked(super().get_route_handler())
        accepts: Accepts | None = JSON_BODY if self.body_field is not None else None
        if self.reads_documents:
            accepts = DOCUMENT_BODY
        once = query_names(self)  # empty on the routes of every turn: nothing to pay there

        async def checked(request: Request) -> Response:
            checked_request = CheckedJsonRequest(request.scope, request.receive)
            if once and request.scope["query_string"]:
                refuse_repeated(checked_request.query_params, once)
            if accepts is not None:
                await refuse_unread_type(checked_request, accepts)
            return await handler(checked_request)

        return checked

    def taking_checked(
        self, handler: Callable[[Request], Coroutine[Any, Any, Response]]
    ) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """What takes the request once its media type passed: FastAPI's `handler` here,
        `LeanRoute`'s own before it."""
        return handler


class DocumentRoute(CheckedJsonRoute):
    """A route whose body is a workflow document: JSON, or YAML with a YAML media type."""

    reads_documents = True


async def refuse_unread_type(request: Request, accepts: Accepts) -> None:
    """415 naming `header.content-type` when a body came as a type the route does not read.

    FastAPI read such a body as bytes and answered 422 "input should be a valid dictionary";
    a document route read it as JSON whatever it was. A request with no body at all passes:
    an optional body may be left out with no `Content-Type`. Only then is the body read here,
    and the request keeps it for the route.
    """
    content_type = request.headers.get("content-type")
    if accepts.format(media_type(content_type)) is not None or not await request.body():
        return
    problem = accepts.refusal(content_type)
    raise ApiError(
        415,
        UNSUPPORTED_MEDIA_TYPE,
        f"unsupported media type: header.content-type: {problem}",
        [ErrorDetail(field="header.content-type", message=problem)],
    )
