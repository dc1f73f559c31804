"""The arguments and options several `baton workflow` commands share, spelled once.

A shared spelling keeps the same flag's help text identical on every command that takes it.
"""

from __future__ import annotations

from typing import Annotated

import typer

from baton_cli.workflow_input import NAME, not_utf8

JsonFlag = Annotated[bool, typer.Option("--json", help="Print the gateway's JSON instead.")]
WaitFlag = Annotated[bool, typer.Option("--wait", help="Follow the run's steps until it ends.")]


def checked_name(value: str | None) -> str | None:
    """A workflow name as the gateway's routes accept it; a usage error otherwise."""
    if value is not None and not NAME.match(value):
        raise typer.BadParameter(f"only letters, digits, - and _ are allowed, got {value!r}")
    return value


Name = Annotated[
    str,
    typer.Argument(
        metavar="NAME", help="Workflow name.", show_default=False, callback=checked_name
    ),
]


def checked_run_id(value: str) -> str:
    """A run id that names something: an empty one would call the route above it."""
    if not value.strip():
        raise typer.BadParameter("must not be empty")
    checked_text(value)
    return value


def checked_text(value: str | None) -> str | None:
    """Text the gateway can be sent: a usage error for a byte that is not UTF-8."""
    problem = None if value is None else not_utf8(value)
    if problem:
        raise typer.BadParameter(problem)
    return value


RunId = Annotated[
    str,
    typer.Argument(metavar="RUN_ID", help="Run id.", show_default=False, callback=checked_run_id),
]
