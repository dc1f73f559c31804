"""`baton workflow`: DAG workflows through the gateway's HTTP API (seed 004, "Référence CLI").

Exit codes are set in `workflow_session`: 0 success, 2 usage or validation errors, 1 the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from baton_cli import workflow_render as render
from baton_cli.workflow_definitions import (
    create,
    delete,
    diff,
    history,
    list_workflows,
    rollback,
    show,
    validate,
)
from baton_cli.workflow_runs import cancel, messages, run, runs, status
from baton_cli.workflow_session import (
    DEFAULT_URL,
    Session,
    WorkflowCliDeps,
    default_user,
    local_gateway_url,
)

__all__ = ["WorkflowCliDeps", "workflow_app"]

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


# The commands live in `workflow_definitions` and `workflow_runs`; they are registered here, in
# one place, because Typer lists them in `--help` in the order they were registered.
workflow_app.command("list")(list_workflows)
workflow_app.command("ls", hidden=True)(list_workflows)
workflow_app.command()(show)
workflow_app.command()(validate)
workflow_app.command()(create)
workflow_app.command()(delete)
workflow_app.command("rm", hidden=True)(delete)
workflow_app.command()(run)
workflow_app.command()(cancel)
workflow_app.command()(runs)
workflow_app.command()(status)
workflow_app.command()(messages)
workflow_app.command("msgs", hidden=True)(messages)
workflow_app.command()(history)
workflow_app.command()(rollback)
workflow_app.command()(diff)
