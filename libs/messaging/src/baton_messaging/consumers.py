"""Durable JetStream pull consumers for FastStream subscribers, named the way contracts say."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any
from weakref import WeakKeyDictionary

from faststream import AckPolicy as HandlerAckPolicy
from faststream.nats import JStream, NatsBroker, PullSub
from nats.js import JetStreamManager
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import APIError

from baton_contracts import StreamSpec, durable_name, subject_matches
from baton_messaging.redelivery import DEFAULT_MAX_DELIVER, FIRST_DELAY_SECONDS, retried_later

logger = logging.getLogger(__name__)

DEFAULT_ACK_WAIT_SECONDS = 30.0

_DURABLES: WeakKeyDictionary[NatsBroker, dict[str, tuple[str, ConsumerConfig]]] = (
    WeakKeyDictionary()
)
"""Each broker's durables as its code declares them: (stream, configuration) by name."""


class ConsumerDeclarationError(RuntimeError):
    """JetStream refused to create or update a durable; the message names it and the reason."""


def durable_subscriber(
    broker: NatsBroker,
    subject: str | Sequence[str],
    *,
    consumer: str,
    stream: StreamSpec,
    batch_size: int = 1,
    fetch_timeout: float = 5.0,
    ack_wait_seconds: float = DEFAULT_ACK_WAIT_SECONDS,
    max_deliver: int = DEFAULT_MAX_DELIVER,
    from_new: bool = False,
    first_retry_seconds: float = FIRST_DELAY_SECONDS,
) -> Any:
    """A pull subscriber on durable `<consumer>-<stream>`; decorate a handler with the result.

    Replicas of one service share the durable, so each message is handled by one of them, and
    a restarted service resumes after the last acknowledged message. The stream itself is
    declared by `start_broker`/`declare_streams`, not by FastStream.

    A durable created `from_new` starts at messages published after its creation instead of
    the stream's first one: for reactions that only make sense as things happen, a service's
    first start must not replay the stream's whole history.

    `subject` may be several filters (JetStream's `filter_subjects`): one durable, and one
    fetch loop, for messages of several subjects. The durable's settings are those given
    here: `start_broker` creates it, or updates one that exists with other filters or
    limits, before the subscriber binds, so a changed filter takes effect at the next start
    and the durable keeps its place in the stream.

    A handler that raises has its message negatively acknowledged with a delay, so JetStream
    delivers it again later: `first_retry_seconds` after the first failure, twice as long after
    each next one (`redelivery`), up to `max_deliver` times in all (0 or less: no limit). An
    event's handler fails alone and is retried, also past an outage of the store it writes to.
    (FastStream's own default terminates such a message: it was never seen again.)
    """
    subjects = [subject] if isinstance(subject, str) else list(subject)
    if not subjects:
        raise ValueError(f"durable {consumer!r}: give at least one subject")
    for one in subjects:
        if not any(subject_matches(p, one) or subject_matches(one, p) for p in stream.subjects):
            raise ValueError(
                f"subject {one!r} is not captured by stream {stream.name} "
                f"(subjects: {', '.join(stream.subjects)})"
            )
    durable = durable_name(consumer, stream.name)
    config = ConsumerConfig(
        name=durable,
        durable_name=durable,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=ack_wait_seconds,
        max_deliver=max_deliver,
        deliver_policy=DeliverPolicy.NEW if from_new else DeliverPolicy.ALL,
        filter_subject=subjects[0] if len(subjects) == 1 else None,
        filter_subjects=subjects if len(subjects) > 1 else None,
    )
    _DURABLES.setdefault(broker, {})[durable] = (stream.name, config)
    subscriber = broker.subscriber(
        subjects[0] if len(subjects) == 1 else "",
        stream=JStream(name=stream.name, declare=False),
        durable=durable,
        config=config,
        ack_policy=HandlerAckPolicy.NACK_ON_ERROR,
        pull_sub=PullSub(batch_size=batch_size, timeout=fetch_timeout),
        title=f"{', '.join(subjects)}:{durable}",
    )

    def subscribe(handler: Any) -> Any:
        return subscriber(
            retried_later(broker, durable, max_deliver, handler, first=first_retry_seconds)
        )

    return subscribe


async def declare_durables(js: JetStreamManager, broker: NatsBroker) -> None:
    """Create each durable `durable_subscriber` declared on `broker`, or update it to match.

    JetStream updates a durable in place (its filters, `ack_wait`, `max_deliver`...), keeping
    what it has delivered and acknowledged; a setting it cannot change on a durable (its
    deliver policy) is refused, and the error says which durable to look at.
    """
    for durable, (stream, config) in _DURABLES.get(broker, {}).items():
        try:
            info = await js.add_consumer(stream, config)
        except APIError as exc:
            raise ConsumerDeclarationError(
                f"durable consumer {durable} on stream {stream}: {exc.description}. If a "
                "setting JetStream cannot change on an existing durable (its deliver policy) "
                "changed, delete the durable to recreate it; it then starts by that policy"
            ) from exc
        logger.debug(
            "durable %s on %s filters %s", durable, stream,
            info.config.filter_subjects or info.config.filter_subject,
        )  # fmt: skip
