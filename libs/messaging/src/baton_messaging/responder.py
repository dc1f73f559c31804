"""The responder side of NATS request/reply: a typed handler becomes a queue-group subscriber.

Two spellings of the same thing:

    respond(broker, GetThing, get_thing, queue="workflow")

    @responder(broker, GetThing, queue="workflow")
    async def get_thing(query: GetThing) -> Thing: ...

The subscriber listens on `GetThing.subject.pattern` in queue group `queue` (so replicas share
the load, each request answered once), decodes the request with the contract model and answers:

- `ReplyOk(result=...)` with the handler's `reply_model` instance as JSON;
- `ReplyError(error=...)` carrying the body of a `RemoteError` the handler raised;
- `ErrorCode.INVALID` when the request does not validate, one `ErrorDetail` per problem;
- `ErrorCode.INTERNAL` with a generic message for anything else (traceback logged, not sent).

FastStream decodes the request against the model (so AsyncAPI documents its schema); the
responder's own router carries `InvalidRequestReply`, which turns that decoding failure into
an `INVALID` reply instead of silence.
"""

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from faststream import BaseMiddleware, StreamMessage
from faststream.nats import NatsBroker, NatsRouter
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
)

RequestT = TypeVar("RequestT", bound=Query | Command)
Handler = Callable[[RequestT], Awaitable[BaseModel]]

logger = logging.getLogger(__name__)


DEFAULT_CONCURRENCY = 32
"""Requests one responder handles at once. FastStream's default is one at a time, which makes
a replica's throughput 1 / latency however many callers wait."""


def respond(
    broker: NatsBroker,
    model: type[RequestT],
    handler: Handler[RequestT],
    *,
    queue: str,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> Any:
    """Serve `model` requests with `handler` in queue group `queue`; returns the subscriber."""
    if not queue:
        raise ValueError("queue must name a queue group, so that replicas share requests")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    router = NatsRouter(middlewares=[InvalidRequestReply])
    subscriber = router.subscriber(
        model.subject.pattern,
        queue=queue,
        max_workers=concurrency,
        title=f"{model.subject.pattern}:{model.__name__}",
        description=f"Request {model.__name__}, reply {model.reply_model.__name__} "
        f"wrapped in ReplyOk, or ReplyError. {model.__doc__ or ''}".strip(),
    )

    async def on_request(request: Any) -> ReplyOk | ReplyError:
        return await run_handler(model, handler, request)

    # FastStream validates the body against this annotation and documents it in AsyncAPI.
    on_request.__annotations__["request"] = model
    on_request.__name__ = getattr(handler, "__name__", model.__name__)
    subscriber(on_request)
    broker.include_router(router)
    return subscriber


class InvalidRequestReply(BaseMiddleware):
    """Answers `INVALID` when FastStream could not decode a request into its model."""

    async def consume_scope(self, call_next: Any, msg: StreamMessage[Any]) -> Any:
        """Run the handler; a `ValidationError` escaping it can only come from decoding."""
        try:
            return await call_next(msg)
        except ValidationError as exc:
            # FastDepends wraps the body as the handler's single `request` argument.
            return ReplyError(error=invalid_request(exc, strip_first=True))


def responder(
    broker: NatsBroker, model: type[RequestT], *, queue: str
) -> Callable[[Handler[RequestT]], Handler[RequestT]]:
    """Decorator form of `respond`; the decorated function stays callable as it was."""

    def register(handler: Handler[RequestT]) -> Handler[RequestT]:
        respond(broker, model, handler, queue=queue)
        return handler

    return register


async def answer(
    model: type[RequestT], handler: Handler[RequestT], body: bytes
) -> ReplyOk | ReplyError:
    """Decode one request, run the handler, and turn the outcome into a reply (never raises)."""
    try:
        request = cast(RequestT, model.model_validate_json(body))
    except ValidationError as exc:
        return ReplyError(error=invalid_request(exc))
    return await run_handler(model, handler, request)


async def run_handler(
    model: type[RequestT], handler: Handler[RequestT], request: RequestT
) -> ReplyOk | ReplyError:
    """Run the handler on a decoded request; its outcome, whatever it is, becomes a reply."""
    try:
        result = await handler(request)
        if not isinstance(result, model.reply_model):
            raise TypeError(
                f"handler returned {type(result).__name__}, expected {model.reply_model.__name__}"
            )
        return ReplyOk(result=result.model_dump(mode="json"))
    except RemoteError as exc:
        return ReplyError(error=exc.body)
    except Exception:
        logger.exception("handler for %s failed", model.subject.pattern)
        return ReplyError(
            error=ErrorBody(code=ErrorCode.INTERNAL, message=f"{model.__name__} failed")
        )


def invalid_request(exc: ValidationError, *, strip_first: bool = False) -> ErrorBody:
    """An `INVALID` error body with one detail per validation problem, each naming its field."""
    details = [
        ErrorDetail(
            field=field_path(err["loc"][1:] if strip_first else err["loc"]), message=err["msg"]
        )
        for err in exc.errors()
    ]
    return ErrorBody(code=ErrorCode.INVALID, message="invalid request", details=details)


def field_path(loc: tuple[int | str, ...]) -> str | None:
    """`("steps", 2, "agent")` -> `steps[2].agent`; an empty location (the whole body) is None."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or None
