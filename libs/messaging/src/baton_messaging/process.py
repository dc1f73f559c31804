"""Running a service as a process: build, start, wait for SIGTERM/SIGINT, stop cleanly.

A bad setting or a fatal start-up error ends the process with one line naming the service.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from typing import Protocol, TypeVar

from pydantic import ValidationError


class Service(Protocol):
    """What `bootstrap.build` returns in every service."""

    async def start(self) -> None:
        """Connect and begin serving."""
        ...

    async def stop(self) -> None:
        """Finish in-flight work and disconnect."""
        ...


class HasLogLevel(Protocol):
    """Settings carrying `log_level` (every service's do)."""

    log_level: str


SettingsT = TypeVar("SettingsT", bound=HasLogLevel)
ServiceT = TypeVar("ServiceT", bound=Service)


async def serve(name: str, service: Service, describe: str = "") -> None:
    """Start `service`, wait for a stop signal, stop it."""
    logger = logging.getLogger(f"baton.{name}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await service.start()
    logger.info("%s ready%s", name, f" ({describe})" if describe else "")
    await stop.wait()
    logger.info("%s stopping", name)
    await service.stop()


def run_service(
    name: str,
    load_settings: Callable[[], SettingsT],
    build: Callable[[SettingsT], ServiceT],
    *,
    fatal: tuple[type[Exception], ...] = (ValueError,),
    describe: Callable[[ServiceT], str] = lambda _: "",
) -> None:
    """The body of `python -m baton_<service>`; exits with one line on a bad setting or start."""
    try:
        settings = load_settings()
    except ValidationError as exc:
        sys.exit(f"{name}: invalid settings: {exc}")
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )

    async def main() -> None:
        service = build(settings)
        await serve(name, service, describe(service))

    try:
        asyncio.run(main())
    except fatal as exc:
        sys.exit(f"{name}: {exc}")
