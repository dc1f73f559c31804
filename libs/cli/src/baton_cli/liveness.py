"""The liveness watch of `baton up`: a service that has stopped answering its health check (a
process frozen, an event loop stuck) is killed, so the restart rule starts it again."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from baton_cli.errors import UsageError
from baton_cli.health import Answer

LIVENESS_ENV = "BATON_LIVENESS_TIMEOUT_SECONDS"
DEFAULT_LIVENESS_SECONDS = 30.0
MISSES = 3
"""Unanswered probes in a row, at the least, before a service is killed: one slow answer (a
busy moment, a pause of the garbage collector) never is."""
MAX_INTERVAL = 5.0
PROBE_SECONDS = 5.0
"""How long one probe waits for its answer: a service's health reply takes up to a second when
its database hangs (`database_answers`), which is an outage of the database, not of the service,
and one that is busy may take longer still."""


@dataclass(frozen=True)
class Liveness:
    """Kill a service that answered no probe for `timeout` seconds (and `MISSES` in a row)."""

    timeout: float = DEFAULT_LIVENESS_SECONDS
    probe_timeout: float = PROBE_SECONDS

    @property
    def interval(self) -> float:
        """Seconds between two probes of one service: at least `MISSES` fit in `timeout`."""
        return min(MAX_INTERVAL, self.timeout / MISSES)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Liveness | None:
        """The watch `LIVENESS_ENV` asks for; None when it is 0 (no watch). `UsageError`
        naming the variable for a value that is not a finite number of seconds, 0 or above."""
        raw = env.get(LIVENESS_ENV, "").strip()
        if not raw:
            return cls()
        try:
            seconds = float(raw)
        except ValueError:
            seconds = math.nan
        if not 0 <= seconds < math.inf:
            raise UsageError(
                f"{LIVENESS_ENV}: must be a finite number of seconds above 0 (or 0 to turn the"
                f" liveness watch off), got {raw[:80]!r}"
            )
        return cls(seconds) if seconds > 0 else None


class Silence:
    """How long one healthy run of a service has not answered, probe after probe.

    Only the service's own silence counts: an answer that says unhealthy (its database is down)
    is an answer, and a probe that could not reach NATS tells nothing about the service, so it
    starts the count anew (the embedded NATS has its own supervision; once it is back, the
    services reconnect within a second, far within the timeout)."""

    def __init__(self, liveness: Liveness, now: float) -> None:
        self._liveness = liveness
        self._heard = now  # when it last answered, or could not be asked
        self.misses = 0

    def record(self, answer: Answer, now: float) -> float | None:
        """Count one probe's `answer`; the seconds the service has been silent when that is
        long enough to kill it, else None."""
        if answer is not Answer.SILENT:
            self._heard, self.misses = now, 0
            return None
        self.misses += 1
        silent = now - self._heard
        if self.misses >= MISSES and silent >= self._liveness.timeout:
            return silent
        return None
