"""`baton workflow`: DAG workflows through the gateway's HTTP API (seed 004, "Référence CLI").

Exit codes are set in `workflow_session`: 0 success, 2 usage or validation errors, 1 the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from baton_cli import workflow_render as render
from baton_cli.gateway_client import GatewayError
from baton_cli.workflow_input import (
    NAME,
    InputError,
    diff_ids,
    document_name,
    load_document,
    parse_vars,
    version_id_for,
)
from baton_cli.workflow_session import (
    DEFAULT_URL,
    Session,
    WorkflowCliDeps,
    default_user,
    fail,
    local_gateway_url,
    reporting,
    session_of,
)

__all__ = ["WorkflowCliDeps", "workflow_app"]

MODES = {(False, False): "live", (True, False): "dry_run", (False, True): "shadow"}

workflow_app = typer.Typer(
    name="workflow",
    help="Define, run and inspect DAG workflows through the gateway.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@workflow_app.callback()
def workflow_options(
    ctx: typer.Context,
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            envvar="BATON_URL",
            help=f"Gateway URL (default: the one `baton up` runs, else {DEFAULT_URL}).",
        ),
    ] = None,
    token: Annotated[
        str | None, typer.Option("--token", envvar="BATON_TOKEN", help="Bearer token (JWT).")
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(
            "--user",
            envvar="BATON_USER",
            help="User for a token minted for the local `baton up` (default: your login).",
        ),
    ] = None,
    data_dir: Annotated[
        Path, typer.Option("--data-dir", help="Data dir of the local `baton up`.")
    ] = Path(".baton"),
) -> None:
    """Define, run and inspect DAG workflows through the gateway."""
    deps = ctx.obj if isinstance(ctx.obj, WorkflowCliDeps) else WorkflowCliDeps()
    session = Session(
        url=url or local_gateway_url(data_dir) or DEFAULT_URL, token=token,
        user=user or default_user(), data_dir=data_dir, deps=deps,
        console=deps.console or render.make_console(),
    )  # fmt: skip
    ctx.obj = session
    ctx.call_on_close(session.close)


JsonFlag = Annotated[bool, typer.Option("--json", help="Print the gateway's JSON instead.")]
WaitFlag = Annotated[bool, typer.Option("--wait", help="Follow the run's steps until it ends.")]


def _checked_name(value: str | None) -> str | None:
    """A workflow name as the gateway's routes accept it; a usage error otherwise."""
    if value is not None and not NAME.match(value):
        raise typer.BadParameter(f"only letters, digits, - and _ are allowed, got {value!r}")
    return value


Name = Annotated[
    str,
    typer.Argument(
        metavar="NAME", help="Workflow name.", show_default=False, callback=_checked_name
    ),
]
RunId = Annotated[str, typer.Argument(metavar="RUN_ID", help="Run id.", show_default=False)]


@workflow_app.command("list")
def list_workflows(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """List every workflow (alias: ls)."""
    session = session_of(ctx)
    with reporting():
        workflows = session.client().list_workflows()
    if as_json:
        render.print_json(session.console, workflows)
    elif not workflows:
        typer.echo("no workflows yet; add one with `baton workflow create FILE`")
    else:
        session.console.print(render.workflows_table(workflows))


workflow_app.command("ls", hidden=True)(list_workflows)


@workflow_app.command()
def show(ctx: typer.Context, name: Name) -> None:
    """Show a workflow: a summary, then its definition as JSON."""
    session = session_of(ctx)
    with reporting(not_found=f"workflow {name} not found"):
        workflow = session.client().get_workflow(name)
    render.definition_summary(session.console, workflow)
    render.print_json(session.console, workflow.get("definition"))


UNNAMED = "unnamed"
"""The route a document whose name no route can carry is validated at. Its name is a problem
the gateway reports with all the others (it checks the document before the route's name)."""


def _validated(session: Session, document: dict[str, Any]) -> str:
    """The document's name once the gateway found no problem; GatewayError listing them all."""
    name = document_name(document)
    session.client().validate(name or UNNAMED, document)
    return name or UNNAMED


@workflow_app.command()
def validate(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help="A JSON/YAML file, or a stored workflow's name.")],
) -> None:
    """Validate a workflow file (JSON, or YAML by .yaml/.yml) or a stored workflow by name."""
    session = session_of(ctx)
    path = Path(target)
    with reporting(not_found=f"workflow {target} not found", invalid=f"workflow {target}"):
        if path.exists():
            name = _validated(session, load_document(path))
        elif NAME.match(target):
            name = target
            session.client().validate(target)
        else:
            raise InputError(f"{target}: no such file (and not a workflow name)")
    typer.echo(f"workflow {name} is valid" + (f" ({target})" if path.exists() else ""))


@workflow_app.command()
def create(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Workflow definition, JSON or YAML.")],
) -> None:
    """Store a workflow from a file (validated first); a changed document is a new version."""
    session = session_of(ctx)
    with reporting(invalid=f"workflow in {file}"):
        if not file.is_file():
            raise InputError(f"{file}: no such file")
        document = load_document(file)
        try:
            _validated(session, document)
        except GatewayError as error:
            if error.status != 404:  # a gateway that validates only stored names: POST checks
                raise
        saved = session.client().create_workflow(document)
    name = saved.get("name")
    where = f"version {saved.get('version')} ({saved.get('version_id')})"
    if saved.get("changed") is False:
        typer.echo(f"workflow {name} unchanged: still {where}")
    elif (saved.get("action") or ("create" if saved.get("version") == 1 else "update")) == "create":
        typer.echo(f"created workflow {name}: {where}")
    else:
        typer.echo(f"updated workflow {name}: {where}")


@workflow_app.command()
def delete(ctx: typer.Context, name: Name) -> None:
    """Delete a workflow (alias: rm); started runs finish, its history is kept."""
    with reporting(not_found=f"workflow {name} not found"):
        session_of(ctx).client().delete_workflow(name)
    typer.echo(f"deleted workflow {name}")


workflow_app.command("rm", hidden=True)(delete)


@workflow_app.command()
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
    typer.echo(
        f"started run {run_id} of {name} ({started.get('version_id')}, {started.get('mode')})"
    )
    if not wait:
        typer.echo(f"follow it: baton workflow status {run_id}")
        return
    _follow(session, run_id)


def _follow(session: Session, run_id: str, expected: str = "success") -> None:
    """Wait for the run to end, print its outcome, and exit 1 unless it ended `expected`."""
    from baton_cli.workflow_wait import wait_for_run  # Rich's live display: only for --wait

    try:
        with reporting(not_found=f"run {run_id} not found"):
            final = wait_for_run(session.client(), run_id, session.console, session.deps.sleep)
    except KeyboardInterrupt:
        typer.echo(f"\nstopped waiting; the run goes on: baton workflow status {run_id}", err=True)
        raise typer.Exit(130) from None
    render.run_outcome(session.console, final)
    if final.get("status") != expected:
        fail(f"run {run_id} ended with status {final.get('status')}", 1)


@workflow_app.command()
def cancel(
    ctx: typer.Context,
    run_id: RunId,
    reason: Annotated[
        str | None,
        typer.Option("--reason", help='Why, 1..500 characters; default "cancelled by its owner".'),
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
        render.print_json(session.console, reply)
    elif recorded:
        typer.echo(f"cancelling run {run_id} (reason: {reply.get('reason')})")
    else:
        typer.echo(f"run {run_id} was already cancelled")
    if wait:
        _follow(session, run_id, expected="cancelled")


@workflow_app.command()
def runs(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(metavar="NAME", help="Only this workflow's runs.", callback=_checked_name),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="At most N runs.")] = 50,
    as_json: JsonFlag = False,
) -> None:
    """List runs, newest first (optionally of one workflow)."""
    session = session_of(ctx)
    with reporting(not_found=f"workflow {name} not found"):
        found = session.client().list_runs(name, limit)
    if as_json:
        render.print_json(session.console, found)
    elif not found:
        typer.echo("no runs" + (f" of {name}" if name else ""))
    else:
        session.console.print(render.runs_table(found))


@workflow_app.command()
def status(ctx: typer.Context, run_id: RunId) -> None:
    """Print a run's detailed status as JSON (steps, outputs, version, cost)."""
    session = session_of(ctx)
    with reporting(not_found=f"run {run_id} not found"):
        detail = session.client().get_run(run_id)
    render.print_json(session.console, detail)


@workflow_app.command()
def messages(ctx: typer.Context, run_id: RunId, as_json: JsonFlag = False) -> None:
    """Show a run's agent messages and handoffs (alias: msgs)."""
    session = session_of(ctx)
    with reporting(not_found=f"run {run_id} not found"):
        detail = session.client().get_run(run_id)
    if as_json:
        body: dict[str, Any] = {k: detail.get(k) or [] for k in ("handoffs", "messages")}
        render.print_json(session.console, body)
    else:
        render.messages_view(session.console, detail)


workflow_app.command("msgs", hidden=True)(messages)


@workflow_app.command()
def history(ctx: typer.Context, name: Name, as_json: JsonFlag = False) -> None:
    """List a workflow's versions, newest first."""
    session = session_of(ctx)
    with reporting(not_found=f"workflow {name} not found"):
        versions = session.client().versions(name)
    if as_json:
        render.print_json(session.console, versions)
    else:
        session.console.print(render.versions_table(versions))


@workflow_app.command()
def rollback(
    ctx: typer.Context,
    name: Name,
    version_id: Annotated[str, typer.Argument(help="NAME@N or N.", show_default=False)],
) -> None:
    """Make the given old version the latest again (as a new version)."""
    with reporting():
        target = version_id_for(name, version_id)
    with reporting(not_found=f"workflow {name} or its version {target} not found"):
        done = session_of(ctx).client().rollback(name, target)
    typer.echo(
        f"rolled back {name} to {target}: "
        f"now version {done.get('version')} ({done.get('version_id')})"
    )


@workflow_app.command()
def diff(
    ctx: typer.Context,
    version1: Annotated[str, typer.Argument(help="NAME@N.", show_default=False)],
    version2: Annotated[str, typer.Argument(help="NAME@N, or N for the same workflow.")],
) -> None:
    """Show the unified diff between two versions' documents."""
    session = session_of(ctx)
    with reporting():
        first, second = diff_ids(version1, version2)
    with reporting(not_found=f"version {first} or {second} not found"):
        answer = session.client().diff(first, second)
    text = str(answer.get("diff") or "")
    if not text.strip():
        typer.echo(f"no differences between {first} and {second}")
    else:
        render.diff_view(session.console, text)
