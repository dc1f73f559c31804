"""`baton status`: is the `baton up` of a data dir running, and does its gateway answer?"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from baton_cli.errors import CliError
from baton_cli.gateway_bodies import HEALTH, read_body
from baton_cli.state import read_state, still_running
from baton_messaging.nats_url import shown_nats_url


def check_status(data_dir: Path, echo: Callable[[str], None]) -> None:
    """Print what runs; `CliError` when Baton is not running or its gateway is down."""
    state = read_state(data_dir)
    if not still_running(state, state.pid):
        raise CliError(f"Baton is not running: 'baton up' (pid {state.pid}) has exited")
    for name, pid in sorted(state.services.items()):
        echo(
            f"  {name:<10} pid {pid:<8} {'running' if still_running(state, pid) else 'not running'}"
        )
    echo(f"NATS: {shown_nats_url(state.nats_url)}")  # a file an older version wrote
    url = f"{state.gateway_url}/health"
    try:
        response = httpx.get(url, timeout=5.0)
    except httpx.HTTPError as exc:
        raise CliError(f"gateway {url} is down: {exc}") from None
    if response.status_code != 200:
        why = _failing_checks(response, shown_nats_url(state.nats_url))
        raise CliError(f"gateway {url} is unhealthy: HTTP {response.status_code}{why}")
    read_body(response, HEALTH)  # a 200 from something else on the port is no healthy gateway
    echo(f"Baton is up: {state.gateway_url}")


def _failing_checks(response: httpx.Response, nats_url: str) -> str:
    """What the gateway's health body says fails (`; not connected to NATS at ...`), or ""
    when it says nothing readable: a bare 503 left an operator to guess which part was down."""
    try:
        checks = response.json().get("checks")
    except (ValueError, AttributeError):
        return ""
    if not isinstance(checks, dict):
        return ""
    failing = [name for name, ok in checks.items() if ok is False]
    said = [
        f"not connected to NATS at {nats_url}" if n == "nats" else f"{n} failing" for n in failing
    ]
    return "; " + ", ".join(said) if said else ""
