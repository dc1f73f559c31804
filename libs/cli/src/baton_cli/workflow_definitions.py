"""`baton workflow` commands on stored workflows and their versions: list, show, validate,
create, delete, history, rollback, diff.

Plain functions: `workflows` registers them on `workflow_app`, in the order `--help` lists them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from baton_cli import workflow_render as render
from baton_cli.gateway_client import GatewayError
from baton_cli.printable import say
from baton_cli.workflow_args import JsonFlag, Name
from baton_cli.workflow_input import (
    NAME,
    InputError,
    diff_ids,
    document_name,
    load_document,
    version_id_for,
)
from baton_cli.workflow_json import print_json
from baton_cli.workflow_session import Session, missing_by_field, reporting, session_of


def list_workflows(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """List every workflow (alias: ls)."""
    session = session_of(ctx)
    with reporting():
        workflows = session.client().list_workflows()
    if as_json:
        print_json(session.console, workflows)
    elif not workflows:
        say("no workflows yet; add one with `baton workflow create FILE`")
    else:
        session.console.print(render.workflows_table(workflows))


def show(ctx: typer.Context, name: Name) -> None:
    """Show a workflow: a summary, then its definition as JSON."""
    session = session_of(ctx)
    with reporting(not_found=f"workflow {name} not found"):
        workflow = session.client().get_workflow(name)
    render.definition_summary(session.console, workflow)
    print_json(session.console, workflow.get("definition"))


UNNAMED = "unnamed"
"""The route a document whose name no route can carry is validated at. Its name is a problem
the gateway reports with all the others (it checks the document before the route's name)."""


def _validated(session: Session, document: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The document's name and the gateway's answer once it found no problem; GatewayError
    listing them all."""
    name = document_name(document)
    return name or UNNAMED, session.client().validate(name or UNNAMED, document)


def _warn(answer: dict[str, Any]) -> None:
    """The gateway's warnings, one line each on stderr: what it could not check (the agents,
    when the agent-runner did not answer) and what it kept as written but may be a slip (a
    "{{" that opens no template)."""
    for warning in answer.get("warnings") or []:
        say(f"warning: {warning}", err=True)


def validate(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help="A JSON/YAML file, or a stored workflow's name.")],
) -> None:
    """Validate a workflow file (JSON, or YAML by .yaml/.yml) or a stored workflow by name."""
    session = session_of(ctx)
    path = Path(target)
    # A directory named like the workflow (`docs`, `tests`) must not hide it: only a file
    # is read, and a path that is not a name is read anyway so its problem is reported.
    is_file = path.is_file() or (path.exists() and not NAME.match(target))
    with reporting(not_found=f"workflow {target} not found", invalid=f"workflow {target}"):
        if is_file:
            name, answer = _validated(session, load_document(path))
        elif NAME.match(target):
            name, answer = target, session.client().validate(target)
        else:
            raise InputError(f"{target}: no such file (and not a workflow name)")
    say(f"workflow {name} is valid" + (f" ({target})" if is_file else ""))
    _warn(answer)


def create(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Workflow definition, JSON or YAML.")],
) -> None:
    """Store a workflow from a file (validated first); a changed document is a new version."""
    session = session_of(ctx)
    with reporting(invalid=f"workflow in {file}"):
        if not file.is_file():
            raise InputError(
                f"{file}: " + ("a folder, not a file" if file.is_dir() else "no such file")
            )
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
        say(f"workflow {name} unchanged: still {where}")
    elif (saved.get("action") or ("create" if saved.get("version") == 1 else "update")) == "create":
        say(f"created workflow {name}: {where}")
    else:
        say(f"updated workflow {name}: {where}")
    _warn(saved)  # the validation's first answer said the same: once is enough


def delete(ctx: typer.Context, name: Name) -> None:
    """Delete a workflow (alias: rm); started runs finish, its history is kept."""
    with reporting(not_found=f"workflow {name} not found"):
        session_of(ctx).client().delete_workflow(name)
    say(f"deleted workflow {name}")


def history(ctx: typer.Context, name: Name, as_json: JsonFlag = False) -> None:
    """List a workflow's versions, newest first."""
    session = session_of(ctx)
    with reporting(not_found=f"workflow {name} not found"):
        versions = session.client().versions(name)
    if as_json:
        print_json(session.console, versions)
    else:
        session.console.print(render.versions_table(versions))


def rollback(
    ctx: typer.Context,
    name: Name,
    version_id: Annotated[str, typer.Argument(help="NAME@N or N.", show_default=False)],
) -> None:
    """Make the given old version the latest again (as a new version)."""
    with reporting():
        target = version_id_for(name, version_id)
    missing = missing_by_field(
        {
            "path.name": f"workflow {name} not found",
            "body.version_id": f"version {target} not found",
        },
        f"workflow {name} or its version {target} not found",
    )
    with reporting(not_found=missing):
        done = session_of(ctx).client().rollback(name, target)
    say(
        f"rolled back {name} to {target}: "
        f"now version {done.get('version')} ({done.get('version_id')})"
    )


def diff(
    ctx: typer.Context,
    version1: Annotated[str, typer.Argument(help="NAME@N.", show_default=False)],
    version2: Annotated[str, typer.Argument(help="NAME@N, or N for the same workflow.")],
) -> None:
    """Show the unified diff between two versions' documents."""
    session = session_of(ctx)
    with reporting():
        first, second = diff_ids(version1, version2)
    missing = missing_by_field(
        {"path.from_id": f"version {first} not found", "path.to_id": f"version {second} not found"},
        f"version {first} or {second} not found",
    )
    with reporting(not_found=missing):
        answer = session.client().diff(first, second)
    text = str(answer.get("diff") or "")
    if not text.strip():
        say(f"no differences between {first} and {second}")
    else:
        render.diff_view(session.console, text)
