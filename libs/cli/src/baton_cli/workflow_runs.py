"""`baton workflow` commands on runs: run, cancel, runs, status, messages.

Plain functions: `workflows` registers them on `workflow_app`, in the order `--help` lists them.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from baton_cli import workflow_render as render
from baton_cli.gateway_client import GatewayError
from baton_cli.printable import say
from baton_cli.workflow_args import JsonFlag, Name, RunId, WaitFlag, checked_name, checked_text
from baton_cli.workflow_input import InputError, parse_vars
from baton_cli.workflow_json import print_json
from baton_cli.workflow_session import Session, fail, reporting, session_of

MODES = {(False, False): "live", (True, False): "dry_run", (False, True): "shadow"}


def run(
    ctx: typer.Context,
    name: Name,
    var: Annotated[
        list[str] | None,
        typer.Option("--var", metavar="KEY=VALUE", help="A workflow variable (repeatable)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="No agent or tool calls; estimate the cost.")
    ] = False,
    shadow: Annotated[
        bool, typer.Option("--shadow", help="Run for real, record nothing in history.")
    ] = False,
    wait: WaitFlag = False,
) -> None:
    """Start a run; with --wait, show progress and exit 1 unless it succeeds."""
    session = session_of(ctx)
    with reporting(not_found=f"workflow {name} not found", invalid=f"run of {name}"):
        if dry_run and shadow:
            raise InputError("--dry-run and --shadow cannot be used together")
        variables = parse_vars(var or [])
        started = session.client().start_run(name, variables, MODES[(dry_run, shadow)])
    run_id = str(started.get("run_id"))
    say(f"started run {run_id} of {name} ({started.get('version_id')}, {started.get('mode')})")
    if not wait:
        say(f"follow it: baton workflow status {run_id}")
        return
    _follow(session, run_id)


def _follow(session: Session, run_id: str, expected: str = "success") -> None:
    """Wait for the run to end, print its outcome, and exit 1 unless it ended `expected`."""
    from baton_cli.workflow_wait import wait_for_run  # Rich's live display: only for --wait

    try:
        with reporting(not_found=f"run {run_id} not found"):
            final = wait_for_run(session.client(), run_id, session.console, session.deps.sleep)
    except KeyboardInterrupt:
        say(f"\nstopped waiting; the run goes on: baton workflow status {run_id}", err=True)
        raise typer.Exit(130) from None
    render.run_outcome(session.console, final)
    if final.get("status") != expected:
        fail(f"run {run_id} ended with status {final.get('status')}", 1)


def cancel(
    ctx: typer.Context,
    run_id: RunId,
    reason: Annotated[
        str | None,
        typer.Option(
            "--reason",
            help='Why, 1..500 characters; default "cancelled by its owner".',
            callback=checked_text,
        ),
    ] = None,
    wait: WaitFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Cancel a running run; with --wait, show it wind down and exit 1 unless it ends cancelled."""
    session = session_of(ctx)
    with reporting(not_found=f"run {run_id} not found", invalid=f"cancel of run {run_id}"):
        try:
            recorded, reply = session.client().cancel_run(run_id, reason)
        except GatewayError as error:
            if error.status != 409:  # 409: the run already ended some other way
                raise
            fail(error.detail, 1)
    if as_json:
        print_json(session.console, reply)
    elif recorded:
        say(f"cancelling run {run_id} (reason: {reply.get('reason')})")
    else:
        say(f"run {run_id} was already cancelled")
    if wait:
        _follow(session, run_id, expected="cancelled")


def runs(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(metavar="NAME", help="Only this workflow's runs.", callback=checked_name),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="At most N runs.")] = 50,
    as_json: JsonFlag = False,
) -> None:
    """List runs, newest first (optionally of one workflow)."""
    session = session_of(ctx)
    with reporting(not_found=f"workflow {name} not found"):
        found = session.client().list_runs(name, limit)
    if as_json:
        print_json(session.console, found)
    elif not found:
        say("no runs" + (f" of {name}" if name else ""))
    else:
        session.console.print(render.runs_table(found))


def status(ctx: typer.Context, run_id: RunId) -> None:
    """Print a run's detailed status as JSON (steps, outputs, version, cost)."""
    session = session_of(ctx)
    with reporting(not_found=f"run {run_id} not found"):
        detail = session.client().get_run(run_id)
    print_json(session.console, detail)


def messages(ctx: typer.Context, run_id: RunId, as_json: JsonFlag = False) -> None:
    """Show a run's agent messages and handoffs (alias: msgs)."""
    session = session_of(ctx)
    with reporting(not_found=f"run {run_id} not found"):
        detail = session.client().get_run(run_id)
    if as_json:
        body: dict[str, Any] = {k: detail.get(k) or [] for k in ("handoffs", "messages")}
        print_json(session.console, body)
    else:
        render.messages_view(session.console, detail)
