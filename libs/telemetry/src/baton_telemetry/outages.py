"""Which failed tries of a retrying loop to say in the log, so that an outage is a few lines.

A loop that retries every few seconds while NATS or the database is away logged every failure:
a ten-minute outage was hundreds of WARNING lines, and nothing said when it ended. With an
`Outage` the loop says the first failure, a reminder at most once every `REPEAT_SECONDS`
(how long it has lasted, how many tries), and one line when it works again; the tries in
between go to DEBUG. Used by the notifier's live feed and the outbox relay.

Pure bookkeeping: the caller gives the time (`time.monotonic()`, the event loop's clock, or a
test's), and words the lines itself.
"""

from __future__ import annotations

from typing import Literal

REPEAT_SECONDS = 60.0
"""While failures go on, how often a loop says so again."""

Say = Literal["first", "again", "quiet"]
"""What to do with a failed try: WARNING as an outage begins, WARNING as a reminder, DEBUG."""


class Outage:
    """The failed tries in a row of one loop, and which of them to say."""

    def __init__(self, repeat_every: float = REPEAT_SECONDS) -> None:
        self.repeat_every = repeat_every
        self.since: float | None = None
        """When the first failed try in a row began; None while the loop works."""
        self.tries = 0
        """Failed tries in a row, this one included."""
        self._said_at = 0.0

    def failed(self, now: float, *, began: float | None = None) -> Say:
        """Count a failed try that ended at `now` (and began at `began`, when it took long:
        the outage is counted from there)."""
        self.tries += 1
        if self.since is None:
            self.since = now if began is None else began
            self._said_at = now
            return "first"
        if now - self._said_at >= self.repeat_every:
            self._said_at = now
            return "again"
        return "quiet"

    def lasted(self, now: float) -> float:
        """Seconds since the outage began; 0 when there is none."""
        return 0.0 if self.since is None else now - self.since

    def ended(self, now: float) -> tuple[float, int] | None:
        """A try worked: how long the outage lasted and how many tries failed, or None when
        there was none; the next failure begins a new one."""
        if self.since is None:
            return None
        over = (self.lasted(now), self.tries)
        self.since, self.tries = None, 0
        return over
