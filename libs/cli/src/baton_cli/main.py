"""The `baton` command: one Typer app; each subcommand lives in its own module."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from baton_cli.errors import CliError, UsageError
from baton_cli.printable import say
from baton_cli.workflows import workflow_app

# Subcommand modules are imported inside each command: `baton token` should not pay for
# importing the NATS stack that only `baton up` needs.

app = typer.Typer(
    name="baton",
    help="Run Baton locally and talk to it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

app.add_typer(workflow_app, name="workflow")

DataDir = Annotated[
    Path, typer.Option("--data-dir", help="Where Baton keeps its data, logs and secret.")
]


def _echo(line: str) -> None:
    say(line)


def _fail(error: CliError) -> typer.Exit:
    say(f"error: {error}", err=True)
    return typer.Exit(2 if isinstance(error, UsageError) else 1)


@app.command()
def up(
    data_dir: DataDir = Path(".baton"),
    nats_url: Annotated[
        str | None, typer.Option(help="Use this NATS server instead of starting one.")
    ] = None,
    nats_port: Annotated[
        int | None, typer.Option(help="Port for the embedded NATS (default 4222, or a free one).")
    ] = None,
    database_url: Annotated[
        str | None,
        typer.Option(help="SQLAlchemy URL for every service; '{service}' becomes its name."),
    ] = None,
    host: Annotated[str, typer.Option(help="Address the gateway listens on.")] = "127.0.0.1",
    port: Annotated[
        int | None, typer.Option(help="Gateway port (default 8080, or a free one).")
    ] = None,
    log_level: Annotated[str, typer.Option(help="Log level of every service.")] = "info",
    start_timeout: Annotated[
        float, typer.Option(help="Seconds each service has to become healthy.")
    ] = 60.0,
    log_max_mb: Annotated[
        float, typer.Option(help="A log over this many MB is renamed aside and a new one begun.")
    ] = 64.0,
) -> None:
    """Start NATS and every installed service; stop them all on Ctrl+C."""
    from baton_cli.up import UpOptions, run_up

    options = UpOptions(
        data_dir=data_dir, host=host, port=port, nats_url=nats_url, nats_port=nats_port,
        database_url=database_url, log_level=log_level, start_timeout=start_timeout,
        log_max_mb=log_max_mb,
    )  # fmt: skip
    try:
        run_up(options, _echo)
    except CliError as error:
        raise _fail(error) from None


@app.command()
def token(
    user: Annotated[str, typer.Option("--user", help="User id the token names.")],
    project: Annotated[str | None, typer.Option("--project", help="Project id.")] = None,
    ttl: Annotated[str, typer.Option("--ttl", help="Lifetime: 90s, 30m, 12h, 7d.")] = "12h",
    data_dir: DataDir = Path(".baton"),
) -> None:
    """Print a bearer token the running gateway accepts."""
    from baton_cli.tokens import make_token

    try:
        typer.echo(make_token(data_dir, user, project, ttl))
    except CliError as error:
        raise _fail(error) from None


@app.command()
def status(data_dir: DataDir = Path(".baton")) -> None:
    """Say whether Baton runs from this data dir and its gateway is healthy."""
    from baton_cli.status import check_status

    try:
        check_status(data_dir, _echo)
    except CliError as error:
        raise _fail(error) from None
