"""`baton workflow run --wait`: poll the run until it ends, showing each step's progress.

On a terminal a Rich live table redraws in place; otherwise (a pipe, a CI log) one line is
printed each time a step's status or attempt count changes, so logs stay readable.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.text import Text

from baton_cli.gateway_client import GatewayClient, GatewayError
from baton_cli.workflow_render import step_line, steps_table

POLL_INTERVAL = 0.3
# Polls in a row that may fail because the gateway is briefly away (a restart) before giving up.
MAX_UNREACHABLE_POLLS = 10
# One poll's own limit: a gateway that accepts connections but never answers (hung, paused)
# is given up after MAX_UNREACHABLE_POLLS of these, about 50 s, not ten times the client's 30 s.
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
        failures = 0
        while True:
            if not self._first:
                self._sleep(POLL_INTERVAL)
            self._first = False
            try:
                return self._client.get_run(self._run_id, timeout=POLL_TIMEOUT_SECONDS)
            except GatewayError as error:
                failures += 1
                if not error.unreachable or failures >= MAX_UNREACHABLE_POLLS:
                    raise


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
