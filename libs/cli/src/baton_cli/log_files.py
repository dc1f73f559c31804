"""`baton up`'s log files kept to a size: each service's, and the embedded NATS server's.

Each process writes its log itself, through a descriptor opened for appending (the services'
stdout and stderr, nats-server's own log file), and never reopens it. So a log is emptied in
place: its lines are first copied to `<name>.log.1`, then the file is cut to nothing, and the
writer's next line lands at its start. Without this, the gateway's access lines (one a
request) and every service's lines grew the files for as long as `baton up` ran.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable
from pathlib import Path

LOG_MAX_MB = 64.0
"""The default of `--log-max-mb`: a log over it moves to `<name>.log.1`."""
CHECK_EVERY_SECONDS = 60.0
"""How often the logs' sizes are looked at."""


def trim(path: Path, max_bytes: int) -> bool:
    """When `path` is over `max_bytes`: its lines move to `<name>.1` (replacing the previous
    one) and it is emptied; whether it was. Lines written while it is copied are lost."""
    try:
        if path.stat().st_size <= max_bytes:
            return False
    except FileNotFoundError:
        return False
    kept = path.with_name(f"{path.name}.1")
    partial = path.with_name(f"{path.name}.1.partial")
    try:
        with path.open("rb") as source, partial.open("wb") as copy:
            shutil.copyfileobj(source, copy)
        os.replace(partial, kept)
    except OSError:
        # A copy cut off (a full disk, say) goes: it would take the space the log needs, and
        # the log stays as it was, for the next try.
        partial.unlink(missing_ok=True)
        raise
    os.truncate(path, 0)
    return True


def trim_all(folder: Path, max_bytes: int) -> list[str]:
    """`trim` each `*.log` in `folder`; what could not be moved aside (a full disk, say)."""
    problems = []
    for path in sorted(folder.glob("*.log")):
        try:
            trim(path, max_bytes)
        except OSError as exc:
            problems.append(f"could not move {path} aside: {exc}")
    return problems


async def keep_logs_small(
    folder: Path,
    max_bytes: int,
    echo: Callable[[str], None],
    every: float = CHECK_EVERY_SECONDS,
) -> None:
    """Every `every` seconds, `trim_all` the logs of `folder`, until cancelled; the services
    go on whatever it meets, and so does this."""
    while True:
        await asyncio.sleep(every)
        for problem in await asyncio.to_thread(trim_all, folder, max_bytes):
            echo(problem)
