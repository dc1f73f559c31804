"""Whether nats-py can send a message now, asked before it is asked to.

nats-py's `request` and JetStream's `publish`/`publish_async` register the reply's future
(and, for `publish_async`, take one of its 4,000 in-flight slots) before `publish` checks
the connection, and never give them back when it raises: one of each kept per refusal, for
the life of the process. A caller that asks here first is refused with nothing kept."""

from __future__ import annotations

from nats.aio.client import DEFAULT_PENDING_SIZE, Client


def pending_limit(nc: Client) -> int:
    """The most `nc` holds of its publishes while reconnecting: the `pending_size` it was
    connected with (nats-py has no public accessor for it; its default otherwise)."""
    limit = getattr(nc, "_max_pending_size", DEFAULT_PENDING_SIZE)
    return limit if isinstance(limit, int) else DEFAULT_PENDING_SIZE


def unsendable(nc: Client, size: int) -> str | None:
    """Why `nc` would refuse a message of `size` bytes now, or None when it would take it
    (sent at once, or held while it reconnects). The too-large case is the caller's own."""
    if nc.is_closed:
        return "the NATS connection is closed"
    if nc.is_draining_pubs:
        return "the NATS connection is draining"
    if not nc.is_connected and size + nc.pending_data_size > pending_limit(nc):
        return (
            f"NATS is reconnecting and the {pending_limit(nc):,} bytes this client holds for "
            "it meanwhile are taken"
        )
    return None
