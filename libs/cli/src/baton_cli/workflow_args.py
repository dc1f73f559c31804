"""The arguments and options several `baton workflow` commands share, spelled once.

A shared spelling keeps the same flag's help text identical on every command that takes it.
"""

from __future__ import annotations

import re
from typing import Annotated

import typer

from baton_cli.workflow_input import NAME, not_utf8
from baton_contracts.dag_api import RUN_ID_PATTERN
from baton_contracts.ids import RUN_ID_MEANING

# The gateway's own pattern, ended by "\Z": Python's "$" lets a final "\n" in.
_RUN_ID = re.compile(RUN_ID_PATTERN.removesuffix("$") + r"\Z")

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
    """A run id as the gateway's routes take it; a usage error otherwise. An empty one called
    the route above it, and `../workflows/rs` another route altogether (`GET /workflows/rs`,
    or "no such route on the gateway: is --url right?")."""
    checked_text(value)
    if not _RUN_ID.match(value):
        raise typer.BadParameter(f"{RUN_ID_MEANING}, got {value!r}")
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
