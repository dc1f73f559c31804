"""`baton workflow run --wait`: poll the run until it ends, showing each step's progress.

Each poll reads the run's first page (`steps_after` pages a large run's detail): its status
says whether the run has ended. Every page is read once, then, for the result.

On a terminal a Rich live table redraws in place; otherwise (a pipe, a CI log) one line is
printed each time a step's status or attempt count changes, so logs stay readable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.text import Text

from baton_cli.gateway_client import GatewayClient, GatewayError
from baton_cli.workflow_render import step_line, steps_table

POLL_INTERVAL = 0.3
# How long the gateway may stay away (a restart of `baton up` takes 10 to 20 s, a container's
# about as long) before waiting gives up: counted in the waits between polls plus the polls'
# own time, so a refused connection and a hung gateway are both given up after about a minute.
# Ten polls in a row (3 s of refused connections) gave up on every restart.
UNREACHABLE_GRACE_SECONDS = 60.0
# The wait between polls while the gateway is away (no need to knock three times a second).
UNREACHABLE_INTERVAL = 1.0
# One poll's own limit: a gateway that accepts connections but never answers (hung, paused).
POLL_TIMEOUT_SECONDS = 5.0
FINISHED = frozenset({"success", "error", "timeout", "cancelled"})

Json = dict[str, Any]
Sleep = Callable[[float], None]


class RunPoller:
    """Reads a run every `POLL_INTERVAL`, tolerating a gateway that is briefly unreachable.

    A poll reads the run's first page alone: its summary says whether the run has ended, and
    its steps are what the progress shows. A run too large for one reply is read whole once,
    when it has ended (`whole`), not every page on every poll.
    """

    def __init__(self, client: GatewayClient, run_id: str, sleep: Sleep) -> None:
        self._client = client
        self._run_id = run_id
        self._sleep = sleep
        self._first = True

    def next(self) -> Json:
        """The run's first page now (after waiting one interval, except the first time)."""
        wait = not self._first
        self._first = False
        return self._read(
            lambda: self._client.get_run_page(self._run_id, timeout=POLL_TIMEOUT_SECONDS), wait
        )

    def whole(self, first: Json) -> Json:
        """The run whose first page is `first`, every later page read now and made one."""
        if first.get("next_steps_after") is None:
            return first
        return self._read(
            lambda: self._client.rest_of_run(self._run_id, first, timeout=POLL_TIMEOUT_SECONDS),
            wait=False,
        )

    def _read(self, read: Callable[[], Json], wait: bool) -> Json:
        away, pause = 0.0, POLL_INTERVAL
        while True:
            if wait:
                self._sleep(pause)
            wait = True
            asked = time.monotonic()
            try:
                return read()
            except GatewayError as error:
                if not error.unreachable:
                    raise
                away += pause + (time.monotonic() - asked)
                if away >= UNREACHABLE_GRACE_SECONDS:
                    raise
                pause = UNREACHABLE_INTERVAL


def wait_for_run(client: GatewayClient, run_id: str, console: Console, sleep: Sleep) -> Json:
    """Poll until the run has finished; show progress; return the final run detail."""
    poller = RunPoller(client, run_id, sleep)
    if console.is_terminal:
        return _wait_live(poller, console)
    return _wait_lines(poller, console)


def _wait_live(poller: RunPoller, console: Console) -> Json:
    run = poller.next()
    with Live(steps_table(run, _now()), console=console, auto_refresh=False) as live:
        while run.get("status") not in FINISHED:
            run = poller.next()
            live.update(steps_table(run, _now()), refresh=True)
        if (whole := poller.whole(run)) is not run:
            run = whole
            live.update(steps_table(run, _now()), refresh=True)
    return run


def _wait_lines(poller: RunPoller, console: Console) -> Json:
    seen: dict[str, tuple[Any, Any]] = {}
    while True:
        run = poller.next()
        ended = run.get("status") in FINISHED
        if ended:
            run = poller.whole(run)
        for step in run.get("steps") or []:
            key = (step.get("status"), step.get("attempts"))
            if step.get("status") != "pending" and seen.get(str(step.get("id"))) != key:
                seen[str(step.get("id"))] = key
                console.print(Text(step_line(step)))
        if ended:
            return run


def _now() -> datetime:
    return datetime.now(UTC)
