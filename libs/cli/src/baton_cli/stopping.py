"""Stopping a `baton up`'s services in stages, callers first, each stage given its grace."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterable, Sequence
from typing import Protocol

from baton_cli.services import ServiceSpec


class Stoppable(Protocol):
    """A service's process as `stop_in_stages` stops it."""

    @property
    def returncode(self) -> int | None:
        """Its exit status once it has ended, else None."""
        ...

    def signal(self, sig: signal.Signals) -> None:
        """Send `sig` to it and to whatever it started."""
        ...

    async def wait(self) -> int:
        """Wait until it has ended; its exit status."""
        ...


async def stop_in_stages(stages: Sequence[Sequence[Stoppable]], grace: float) -> None:
    """Stop the processes stage by stage: SIGTERM a stage's processes together, give them
    `grace` seconds, SIGKILL what lingers, and tell the next stage only once they have all
    ended. So a stop takes at most `grace` a stage (and what SIGKILL takes)."""
    for stage in stages:
        for process in stage:
            process.signal(signal.SIGTERM)
        waits = [asyncio.create_task(process.wait()) for process in stage]
        if waits:
            await asyncio.wait(waits, timeout=grace)
        for process in stage:
            if process.returncode is None:
                process.signal(signal.SIGKILL)
        await asyncio.gather(*waits, return_exceptions=True)


def stop_stages(specs: Iterable[ServiceSpec]) -> list[list[ServiceSpec]]:
    """`specs` grouped by `stop_stage`, the first to stop first."""
    listed = list(specs)
    stages = sorted({spec.stop_stage for spec in listed})
    return [[spec for spec in listed if spec.stop_stage == stage] for stage in stages]
