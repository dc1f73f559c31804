"""The restart rule `baton up` applies to every service and to its embedded NATS server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS


class ServiceFailed(Exception):
    """A service that would not start or keeps crashing; the message names it and its log."""


GRACE_ENV = "BATON_STOP_GRACE_SECONDS"
KILL_MARGIN_SECONDS = 5.0
"""How long after a service's own stop grace `baton up` waits before SIGKILL: a service that
cancels the requests still running then still answers them `unavailable` and closes its pools."""


@dataclass(frozen=True)
class RestartPolicy:
    """Backoff between restarts; a service that crashes `max_crashes` times fast is given up."""

    first_delay: float = 0.25
    max_delay: float = 10.0
    stable_after: float = 30.0  # a run this long resets the crash count
    max_crashes: int = 5
    start_timeout: float = 60.0
    stop_grace: float = DEFAULT_STOP_GRACE_SECONDS + KILL_MARGIN_SECONDS

    @classmethod
    def for_services(cls, env: Mapping[str, str], **options: Any) -> RestartPolicy:
        """A policy that kills a service only `KILL_MARGIN_SECONDS` after its own stop grace
        (`BATON_STOP_GRACE_SECONDS` in `env`, which every service is handed) has run out."""
        try:
            grace = max(0.0, float(env.get(GRACE_ENV, DEFAULT_STOP_GRACE_SECONDS)))
        except ValueError:  # the services refuse it themselves, naming the setting
            grace = DEFAULT_STOP_GRACE_SECONDS
        return cls(stop_grace=grace + KILL_MARGIN_SECONDS, **options)

    def delay(self, crashes: int) -> float:
        """Exponential backoff for the n-th fast crash in a row."""
        return float(min(self.max_delay, self.first_delay * 2 ** max(0, crashes - 1)))


@dataclass(frozen=True)
class Ending:
    """How a supervised process ended: `how` (`exited with code 1`), and `answered`, set when
    the liveness watch killed it for its silence, to the seconds from its start until it last
    answered (the time it was of use, which is what a crash's uptime says)."""

    how: str
    answered: float | None = None

    @property
    def stopped_answering(self) -> bool:
        return self.answered is not None

    def __str__(self) -> str:
        if self.stopped_answering:
            return f"was killed by the liveness watch, as it stopped answering ({self.how})"
        return self.how


class Supervised(Protocol):
    """One process kept alive by `keep_alive`: a service, or the embedded NATS server."""

    @property
    def name(self) -> str:
        """How restart lines and errors name it."""
        ...

    @property
    def log(self) -> Path:
        """Where its output goes; the error on giving up points there."""
        ...

    async def ended(self) -> Ending:
        """Wait until its current process is gone; how it ended (`exited with code -9`)."""
        ...

    def uptime(self) -> float:
        """Seconds since its current process was started."""
        ...

    async def restart(self) -> bool:
        """Start it again and wait until it is ready; False when it died or hung meanwhile."""
        ...


async def keep_alive(child: Supervised, policy: RestartPolicy, echo: Callable[[str], None]) -> None:
    """Restart `child` whenever it ends, with backoff; raise `ServiceFailed` once it has failed
    `policy.max_crashes` times in a row, each a crash within `policy.stable_after` of its start
    or without having become healthy (a restart that hung is killed only after `start_timeout`,
    which may be longer than `stable_after`), or a kill by the liveness watch within
    `stable_after` of its start, counting up to its last answer (the watch's timeout, 30 s by
    default, spent on a silent run is no sign that the run was stable)."""
    crashes = hangs = 0
    healthy = True
    while True:
        ending = await child.ended()
        ran = child.uptime() if ending.answered is None else ending.answered
        if not healthy or ran < policy.stable_after:
            crashes += 1
            hangs += int(ending.stopped_answering)
        else:
            crashes, hangs = 1, int(ending.stopped_answering)
        if crashes >= policy.max_crashes:
            raise ServiceFailed(
                f"{child.name} {ending}; it {_failures(crashes, hangs)} in a row,"
                f" giving up; see {child.log}"
            )
        echo(f"{child.name} {ending}; restarting")
        await asyncio.sleep(policy.delay(crashes))
        healthy = await child.restart()
        if healthy:
            echo(f"{child.name} is healthy again")


def _failures(count: int, hangs: int) -> str:
    """`crashed 5 times`, `stopped answering 5 times`, or, when it did both in the run of
    failures, `crashed 2 times and stopped answering 3 times`."""
    if hangs == 0:
        return f"crashed {_times(count)}"
    if hangs == count:
        return f"stopped answering {_times(count)}"
    return f"crashed {_times(count - hangs)} and stopped answering {_times(hangs)}"


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
