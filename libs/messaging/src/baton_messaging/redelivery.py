"""A durable consumer's message whose handler failed comes back later, and later each time.

An event handler fails alone and is retried by redelivery (house style). Redelivered at once,
every try of a store that is down for a minute would fail within seconds, and the message
would be dropped after `max_deliver` of them: a restart of the agent-runner's database lost
the lists its brain dumps had sent. So a failed message is negatively acknowledged with a
delay (JetStream's `nak` with a delay: the message waits on the server, no timer here), one
second after the first failure, twice as long after each next one, at most a minute apart.
With `DEFAULT_MAX_DELIVER` tries that rides out an outage of more than an hour and a half;
the last failure is logged as the message being given up.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from faststream.exceptions import NackMessage
from faststream.nats import NatsBroker

logger = logging.getLogger("baton_messaging.consumers")

FIRST_DELAY_SECONDS = 1.0
LONGEST_DELAY_SECONDS = 60.0
DEFAULT_MAX_DELIVER = 100
"""Tries of one message in all: about 95 minutes of them at the delays above."""

H = TypeVar("H", bound=Callable[..., Awaitable[Any]])


def redelivery_delay(
    delivered: int, first: float = FIRST_DELAY_SECONDS, longest: float = LONGEST_DELAY_SECONDS
) -> float:
    """Seconds to wait before the next delivery of a message delivered `delivered` times."""
    if delivered < 1:
        raise ValueError(
            f"delivered: a failed message was delivered at least once, not {delivered}"
        )
    return float(min(first * 2.0 ** min(delivered - 1, 32), longest))


def retried_later(
    broker: NatsBroker,
    durable: str,
    max_deliver: int,
    handler: H,
    first: float = FIRST_DELAY_SECONDS,
) -> H:
    """`handler`, whose failure asks JetStream to deliver its message again after
    `redelivery_delay` (from `first` seconds), logged with the try it was; the last try's
    failure is logged as given up and lets the message go (JetStream delivers it no more)."""

    @functools.wraps(handler)
    async def handle(*args: Any, **kwargs: Any) -> Any:
        try:
            return await handler(*args, **kwargs)
        except Exception as exc:
            delivered = _delivered(broker)
            subject = _subject(broker)
            if max_deliver > 0 and delivered >= max_deliver:
                logger.error(
                    "durable %s: gave %s up after %d tries; the last failed: %r",
                    durable, subject, delivered, exc, exc_info=exc,
                )  # fmt: skip
                raise
            delay = redelivery_delay(delivered, first)
            logger.warning(
                "durable %s: handling %s failed (try %d of %s); it comes again in %g s: %r",
                durable, subject, delivered, max_deliver if max_deliver > 0 else "unlimited",
                delay, exc, exc_info=exc,
            )  # fmt: skip
            raise NackMessage(delay=delay) from exc

    return handle  # type: ignore[return-value]  # the same call, wrapped


def _raw(broker: NatsBroker) -> Any:
    message = broker.context.get_local("message")
    return getattr(message, "raw_message", None)


def _delivered(broker: NatsBroker) -> int:
    """How many times JetStream has delivered the message being handled (1 on the first try)."""
    raw = _raw(broker)
    try:
        return int(raw.metadata.num_delivered)
    except (AttributeError, ValueError, TypeError):  # not a JetStream message: count it once
        return 1


def _subject(broker: NatsBroker) -> str:
    raw = _raw(broker)
    return str(getattr(raw, "subject", "a message"))
