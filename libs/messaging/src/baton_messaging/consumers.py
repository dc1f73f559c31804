"""Durable JetStream pull consumers for FastStream subscribers, named the way contracts say."""

from __future__ import annotations

from typing import Any

from faststream.nats import JStream, NatsBroker, PullSub
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from baton_contracts import StreamSpec, durable_name, subject_matches

DEFAULT_ACK_WAIT_SECONDS = 30.0
DEFAULT_MAX_DELIVER = 5


def durable_subscriber(
    broker: NatsBroker,
    subject: str,
    *,
    consumer: str,
    stream: StreamSpec,
    batch_size: int = 1,
    fetch_timeout: float = 5.0,
    ack_wait_seconds: float = DEFAULT_ACK_WAIT_SECONDS,
    max_deliver: int = DEFAULT_MAX_DELIVER,
    from_new: bool = False,
) -> Any:
    """A pull subscriber on durable `<consumer>-<stream>`; decorate a handler with the result.

    Replicas of one service share the durable, so each message is handled by one of them, and
    a restarted service resumes after the last acknowledged message. The stream itself is
    declared by `start_broker`/`declare_streams`, not by FastStream.

    A durable created `from_new` starts at messages published after its creation instead of
    the stream's first one: for reactions that only make sense as things happen, a service's
    first start must not replay the stream's whole history.
    """
    if not any(subject_matches(p, subject) or subject_matches(subject, p) for p in stream.subjects):
        raise ValueError(
            f"subject {subject!r} is not captured by stream {stream.name} "
            f"(subjects: {', '.join(stream.subjects)})"
        )
    durable = durable_name(consumer, stream.name)
    return broker.subscriber(
        subject,
        stream=JStream(name=stream.name, declare=False),
        durable=durable,
        config=ConsumerConfig(
            durable_name=durable,
            ack_policy=AckPolicy.EXPLICIT,
            ack_wait=ack_wait_seconds,
            max_deliver=max_deliver,
            deliver_policy=DeliverPolicy.NEW if from_new else DeliverPolicy.ALL,
        ),
        pull_sub=PullSub(batch_size=batch_size, timeout=fetch_timeout),
        title=f"{subject}:{durable}",
    )
