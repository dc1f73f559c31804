"""What the outbox relay's log says while it cannot publish: an outage in a few lines.

Retried every few seconds (up to `max_backoff`), a failure said at every try was hundreds of
WARNING lines in a ten-minute outage of NATS or the database, some with a traceback. Now the
first failure of an outage is one WARNING naming its cause, a reminder follows at most once a
minute while it lasts (how long, how many tries: `baton_telemetry.outages`), the tries between
go to DEBUG with their traceback, and one INFO line says when the events flow again.
"""

from __future__ import annotations

import logging

from baton_eventstore.unavailable import is_unavailable
from baton_telemetry.outages import Say

log = logging.getLogger("baton_eventstore.relay")


def say_failure(
    exc: Exception, backoff: float, say: Say, lasted: float, tries: int, *, publishing: bool
) -> None:
    """Log a failed try of the relay's loop as `say` tells (`Outage.failed`); `lasted`
    seconds and `tries` so far. A failure that is no outage (a bug) keeps its traceback on
    its first line: there it is the only clue."""
    cause = _cause(exc, publishing=publishing)
    bug = not publishing and not is_unavailable(exc)
    if say == "first":
        log.warning("outbox relay: %s; retrying in %.1fs", cause, backoff, exc_info=bug)
        if bug:
            return
    elif say == "again":
        log.warning(
            "outbox relay: still failing after %.0f s and %d tries: %s; retrying in %.1fs",
            lasted,
            tries,
            cause,
            backoff,
        )
    log.debug("outbox relay: try %d failed: %s", tries, cause, exc_info=True)


def say_recovery(lasted: float, tries: int) -> None:
    """The relay published again after `tries` failed tries over `lasted` seconds."""
    log.info("outbox relay: publishing again after %d failed tries (%.1f s)", tries, lasted)


def _cause(exc: Exception, *, publishing: bool) -> str:
    """A database outage naming it (the outbox is read and deleted there), not as a failed
    publish; a broker that did not take the events (JetStream full, no stream, no
    acknowledgement in time) saying why; anything else as a failed publish.

    A publish that timed out is no database outage, though its TimeoutError is an OSError."""
    what = f"({type(exc).__name__}: {exc})"
    if publishing:
        return f"the broker did not take the events {what}; they stay in the outbox"
    if is_unavailable(exc):
        return f"the database is unavailable {what}"
    return f"publish failed {what}"
