"""`baton workflow run --wait`: poll the run until it ends, showing each step's progress.

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
    """Fetches a run every `POLL_INTERVAL`, tolerating a gateway that is briefly unreachable."""

    def __init__(self, client: GatewayClient, run_id: str, sleep: Sleep) -> None:
        self._client = client
        self._run_id = run_id
        self._sleep = sleep
        self._first = True

    def next(self) -> Json:
        """The run's current state (after waiting one interval, except the first time)."""
        away, pause = 0.0, POLL_INTERVAL
        while True:
            if not self._first:
                self._sleep(pause)
            self._first = False
            asked = time.monotonic()
            try:
                return self._client.get_run(self._run_id, timeout=POLL_TIMEOUT_SECONDS)
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
    return run


def _wait_lines(poller: RunPoller, console: Console) -> Json:
    seen: dict[str, tuple[Any, Any]] = {}
    while True:
        run = poller.next()
        for step in run.get("steps") or []:
            key = (step.get("status"), step.get("attempts"))
            if step.get("status") != "pending" and seen.get(str(step.get("id"))) != key:
                seen[str(step.get("id"))] = key
                console.print(Text(step_line(step)))
        if run.get("status") in FINISHED:
            return run


def _now() -> datetime:
    return datetime.now(UTC)
