"""A responder's handling of one request, apart from NATS: decode it with its contract model, run
the handler, and turn what happened into the reply's bytes.

- the handler's `reply_model` instance becomes `ReplyOk(result=...)`;
- a `RemoteError` it raised becomes `ReplyError` with that error's body;
- a request that does not validate is `ErrorCode.INVALID`, one `ErrorDetail` per problem;
- anything else is `ErrorCode.INTERNAL` with a generic message (traceback logged, not sent).
"""

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar, cast

from pydantic import BaseModel, ValidationError

from baton_contracts import (
    Command,
    ErrorBody,
    ErrorCode,
    ErrorDetail,
    Query,
    RemoteError,
    ReplyError,
    ReplyOk,
    ok_reply_json,
)
from baton_contracts.storable import format_path
from baton_messaging.requests import REPLY_ENVELOPE, STOPPED_BEFORE_ANSWERING

RequestT = TypeVar("RequestT", bound=Query | Command)
Handler = Callable[[RequestT], Awaitable[BaseModel]]

logger = logging.getLogger(__name__)


async def answer(
    model: type[RequestT], handler: Handler[RequestT], body: bytes
) -> ReplyOk | ReplyError:
    """Decode one request, run the handler, and turn the outcome into a reply (never raises)."""
    return as_reply(model, await outcome(model, handler, body))


async def outcome(
    model: type[RequestT], handler: Handler[RequestT], body: bytes
) -> BaseModel | ReplyError:
    """What answering the request `body` came to: the handler's result or the error reply."""
    request = decode(model, body)
    if isinstance(request, ReplyError):
        return request
    return await run_handler(model, handler, request)


def decode(model: type[RequestT], body: bytes) -> RequestT | ReplyError:
    """The request `body` holds, or the `invalid` reply saying what is wrong with it."""
    try:
        return cast(RequestT, model.model_validate_json(body))
    except ValidationError as exc:
        return ReplyError(error=invalid_request(exc))


async def run_handler(
    model: type[RequestT], handler: Handler[RequestT], request: RequestT
) -> BaseModel | ReplyError:
    """Run the handler on a decoded request: its result (a `model.reply_model`), or the
    `ReplyError` its failure, whatever it is, becomes."""
    try:
        result = await handler(request)
        if not isinstance(result, model.reply_model):
            raise TypeError(
                f"handler returned {type(result).__name__}, expected {model.reply_model.__name__}"
            )
        return result
    except RemoteError as exc:
        return ReplyError(error=exc.body)
    except Exception:
        logger.exception("handler for %s failed", model.subject.pattern)
        return _internal(model)


def stopped_reply(model: type[RequestT]) -> ReplyError:
    """The answer to a request this responder stopped before answering: ask again elsewhere."""
    return ReplyError(
        error=ErrorBody(
            code=ErrorCode.UNAVAILABLE,
            message=f"{model.__name__}: {STOPPED_BEFORE_ANSWERING}; try again",
        )
    )


def _internal(model: type[RequestT]) -> ReplyError:
    return ReplyError(error=ErrorBody(code=ErrorCode.INTERNAL, message=f"{model.__name__} failed"))


def as_reply(model: type[RequestT], result: BaseModel | ReplyError) -> ReplyOk | ReplyError:
    """The reply as the wire carries it (not on the hot path: tests, the AsyncAPI handler)."""
    return REPLY_ENVELOPE.validate_json(reply_json(model, result))


def reply_json(
    model: type[RequestT], result: BaseModel | ReplyError, max_bytes: int | None = None
) -> bytes:
    """The reply's bytes; a result that cannot be encoded, or whose reply is over `max_bytes`
    (the server's `max_payload`: NATS would not carry it, and the caller waited out its
    timeout for an answer that never came), is an `INTERNAL` error, at once."""
    if isinstance(result, ReplyError):
        data = result.model_dump_json().encode()
        if max_bytes is not None and len(data) > max_bytes:
            # A refusal that quotes a huge input (an id of 600 KB) would never arrive: the
            # caller would wait out its timeout and say `unavailable` instead of the reason.
            data = _shortened(result.error).model_dump_json().encode()
        return data
    try:
        data = ok_reply_json(result)
    except Exception:
        logger.exception("the reply to %s could not be encoded", model.subject.pattern)
        return _internal(model).model_dump_json().encode()
    if max_bytes is not None and len(data) > max_bytes:
        message = f"the reply to {model.__name__} is {len(data)} bytes; NATS carries {max_bytes}"
        logger.error("%s: %s", model.subject.pattern, message)
        body = ErrorBody(code=ErrorCode.INTERNAL, message=message)
        return ReplyError(error=body).model_dump_json().encode()
    return data


_SHORT = 500
"""Characters of an error's message, and of each detail's field and message, when shortened."""
_SHORT_DETAILS = 20


def _shortened(error: ErrorBody) -> ReplyError:
    """The error with its message and details cut to a size any NATS server carries."""

    def cut(text: str) -> str:
        return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."

    details = [
        ErrorDetail(field=None if d.field is None else cut(d.field), message=cut(d.message))
        for d in error.details[:_SHORT_DETAILS]
    ]
    return ReplyError(error=ErrorBody(code=error.code, message=cut(error.message), details=details))


def invalid_request(exc: ValidationError) -> ErrorBody:
    """An `INVALID` error body with one detail per validation problem, each naming its field."""
    details = [
        ErrorDetail(field=field_path(err["loc"]), message=err["msg"]) for err in exc.errors()
    ]
    return ErrorBody(code=ErrorCode.INVALID, message="invalid request", details=details)


def field_path(loc: tuple[int | str, ...]) -> str | None:
    """`("steps", 2, "agent")` -> `steps[2].agent`; an empty location (the whole body) is None."""
    return format_path(loc) or None
