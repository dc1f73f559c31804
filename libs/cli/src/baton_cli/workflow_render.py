"""How `baton workflow` shows things: tables, the summary of a workflow, run progress,
outcomes, coloured diffs.

Every value from the gateway goes into a `Text`, never into markup, so a step output containing
`[brackets]` prints as written. The tables are `workflow_tables`' (no line ends in padding).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from baton_cli.printable import PrintableConsole
from baton_cli.workflow_tables import STATUS_STYLES, cell, status_cell, table_of
from baton_contracts.money import dollars

Json = dict[str, Any]

OUTPUT_PREVIEW = 200
MONEY_PLACES = 4
"""A cost's decimal places (more for a smaller cost: `dollars`)."""
PIPE_WIDTH = 100_000
"""The width of a pipe: past any line the CLI prints (a step's preview line is its 200
characters plus the step id; a message line or a workflow name may be longer than 200), so a
script or a CI log gets each record on one line, never folded. Tables take only what their
cells need, so nothing is padded to this width."""


def make_console() -> Console:
    """Stdout; when it is not a terminal, wide enough that scripts get whole lines."""
    console = PrintableConsole(highlight=False)
    if not console.is_terminal:
        console.width = PIPE_WIDTH
    return console


def parse_time(value: Any) -> datetime | None:
    """An ISO-8601 timestamp from the gateway (or None when absent or unreadable)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def duration(started: Any, finished: Any, now: datetime | None = None) -> str:
    """`0.4s`, `3m04s`, `1h02m` between two timestamps (until `now` while still running)."""
    start = parse_time(started)
    end = parse_time(finished) or now
    if start is None or end is None:
        return "-"
    seconds = max((end - start).total_seconds(), 0.0)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def money(value: Any) -> str:
    """A USD amount (`$0.0021`; `$0.000031`, not `$0.0000`, for a smaller one), `-` when unknown."""
    return dollars(float(value), MONEY_PLACES) if isinstance(value, int | float) else "-"


def workflows_table(workflows: Iterable[Json]) -> Table:
    """`list`: one row per workflow."""
    table = table_of("NAME", "VERSION", "STEPS", "UPDATED", "DESCRIPTION")
    for wf in workflows:
        table.add_row(
            cell(wf.get("name"), "bold"), cell(wf.get("version_id")), cell(wf.get("steps")),
            cell(wf.get("updated_at")), cell(wf.get("description")),
        )  # fmt: skip
    return table


def runs_table(runs: Iterable[Json]) -> Table:
    """`runs`: one row per run, newest first as the gateway sends them."""
    columns = ("RUN ID", "WORKFLOW", "VERSION", "MODE", "STATUS", "STARTED", "DURATION", "COST")
    table = table_of(*columns)
    for run in runs:
        table.add_row(
            cell(run.get("run_id")), cell(run.get("workflow")), cell(run.get("version_id")),
            cell(run.get("mode")), status_cell(run.get("status")), cell(run.get("started_at")),
            cell(duration(run.get("started_at"), run.get("finished_at"))),
            cell(_listed_cost(run)),
        )  # fmt: skip
    return table


def _cost_label(run: Json) -> str:
    """A dry run spent nothing: its `cost_usd` is what the run would have cost."""
    return "estimated cost" if run.get("mode") == "dry_run" else "cost"


def _listed_cost(run: Json) -> str:
    """The COST cell: a dry run's estimate is marked as one (`~$0.0123`), never as spent."""
    amount = money(run.get("cost_usd"))
    return f"~{amount}" if run.get("mode") == "dry_run" else amount


def versions_table(versions: Iterable[Json]) -> Table:
    """`history`: one row per version, newest first."""
    table = table_of("VERSION", "VERSION ID", "CREATED", "ACTION")
    for version in versions:
        action = str(version.get("action") or "-")
        if version.get("rolled_back_to"):
            action += f" to {version['rolled_back_to']}"
        table.add_row(
            cell(version.get("version")), cell(version.get("version_id"), "bold"),
            cell(version.get("created_at")), cell(action),
        )  # fmt: skip
    return table


def definition_summary(console: Console, workflow: Json) -> None:
    """`show`: name, version, every top-level field and a steps table before the JSON."""
    definition = workflow.get("definition") or {}
    console.print(Text.assemble(("workflow ", ""), (str(workflow.get("name")), "bold")))
    for label, value in _summary_rows(workflow, definition):
        if value:  # a line break (a template's) is shown as JSON writes it: one line a field
            console.print(Text(f"  {label + ':':<13}{value}".replace("\n", "\\n")))
    steps = definition.get("steps") or []
    table = table_of("STEP", "TYPE", "AGENT", "DEPENDS ON")
    subs = 0
    for step in steps:
        table.add_row(
            cell(step.get("id"), "bold"), cell(step.get("type") or "dispatch"),
            cell(step.get("agent")), cell(", ".join(step.get("dependsOn") or [])),
        )  # fmt: skip
        for sub in step.get("parallel") or []:  # they start with their parallel step
            subs += 1
            table.add_row(
                cell(f"  {sub.get('id')}"), cell(sub.get("type") or "dispatch"),
                cell(sub.get("agent")), cell(f"(in {step.get('id')})", "dim"),
            )  # fmt: skip
    counted = f"{len(steps)}, and {subs} sub-step{'s' * (subs != 1)}" if subs else len(steps)
    console.print(Text(f"  steps ({counted}):"))
    console.print(table)


def _summary_rows(workflow: Json, definition: Json) -> list[tuple[str, Any]]:
    """Every top-level field of the definition, with the version's number and dates."""
    return [
        ("description", workflow.get("description") or definition.get("description")),
        ("version", f"{workflow.get('version')} ({workflow.get('version_id')})"),
        ("created", workflow.get("created_at")),
        ("updated", workflow.get("updated_at")),
        ("timeout", definition.get("timeout")),
        ("budget", _budget(definition.get("budget"))),
        ("variables", _variables(definition.get("variables"))),
        ("onSuccess", definition.get("onSuccess")),
        ("onFailure", definition.get("onFailure")),
    ]


def _budget(budget: Any) -> str:
    """As written (`$2.5`): a budget of 0 is one too (no agent call), unlike no budget."""
    return f"${json.dumps(budget)}" if isinstance(budget, int | float) else ""


def _variables(variables: Any) -> str:
    if not isinstance(variables, dict) or not variables:
        return ""
    return ", ".join(f"{k}={v!r}" if v != "" else f"{k} (required)" for k, v in variables.items())


def steps_table(run: Json, now: datetime | None = None) -> Table:
    """Live progress of a run: one row per step."""
    table = table_of("STEP", "TYPE", "AGENT", "STATUS", "ATTEMPTS", "DURATION")
    table.title = Text(f"run {run.get('run_id')}  {run.get('workflow')}  {run.get('status')}")
    for step in run.get("steps") or []:
        # A parallel step's sub-steps name it as `parent`: indent them under it.
        indent = "  " if step.get("parent") else ""
        table.add_row(
            cell(f"{indent}{step.get('id')}", "bold"), cell(step.get("type")),
            cell(step.get("agent")),
            status_cell(step.get("status")), cell(step.get("attempts")),
            cell(duration(step.get("started_at"), step.get("finished_at"), now)),
        )  # fmt: skip
    return table


def step_line(step: Json) -> str:
    """One progress line, printed when a step's status or attempt count changes."""
    status = step.get("status")
    if not step.get("attempts"):
        return f"step {step.get('id')}: {status}"
    details = [f"attempt {step['attempts']}"]
    if _failure(step) != status:  # a budget stop or a cancellation, which the status calls error
        details.insert(0, str(_failure(step)))
    if step.get("finished_at"):
        details.append(duration(step.get("started_at"), step.get("finished_at")))
    if status in ("error", "timeout") and step.get("error"):
        details.append(str(step["error"]))
    return f"step {step.get('id')}: {status} ({', '.join(details)})"


def _failure(step: Json) -> Any:
    """Why a failed step failed (`budget_exceeded`...), or its status from an older gateway."""
    return step.get("error_code") or step.get("status")


def _preview(text: Any) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= OUTPUT_PREVIEW else flat[: OUTPUT_PREVIEW - 1] + "…"


def run_outcome(console: Console, run: Json) -> None:
    """The end of `run --wait`: status, each step's output (or error), cost or estimate."""
    status = str(run.get("status"))
    line = Text.assemble(
        f"run {run.get('run_id')} of {run.get('workflow')} ({run.get('version_id')}): ",
        (status, STATUS_STYLES.get(status, "")),
        f" in {duration(run.get('started_at'), run.get('finished_at'))}",
        f", {_cost_label(run)} {money(run.get('cost_usd'))}",
    )
    console.print(line)
    if run.get("error"):
        console.print(Text(f"  error: {run['error']}", style="red"))
    steps = run.get("steps") or []
    if steps:
        console.print(Text("outputs:"))
    for step in steps:
        if step.get("status") in ("error", "timeout"):
            body = Text(f"{_failure(step)}: {step.get('error')}", style="red")
        else:
            body = Text(_preview(step.get("output")) if step.get("output") else "-")
        console.print(Text.assemble(f"  {step.get('id')} [{step.get('status')}]: ", body))
    estimate = run.get("estimate")
    if isinstance(estimate, dict):
        console.print(Text(
            f"estimate: {estimate.get('tokens_in')} tokens in, {estimate.get('tokens_out')} "
            f"tokens out, {money(estimate.get('cost_usd'))}"
        ))  # fmt: skip
    console.print(Text(f"full detail: baton workflow status {run.get('run_id')}", style="dim"))


def messages_view(console: Console, run: Json) -> None:
    """`messages`: the handoffs, then every agent message in order."""
    handoffs = run.get("handoffs") or []
    messages = run.get("messages") or []
    if not handoffs and not messages:
        console.print(Text(f"run {run.get('run_id')} has no agent messages or handoffs"))
        return
    for handoff in handoffs:
        console.print(Text(
            f"handoff {handoff.get('from')} -> {handoff.get('to')} (agent {handoff.get('agent')})",
            style="bold",
        ))  # fmt: skip
    for message in messages:
        head = f"[{message.get('step')}] {message.get('agent')} ({message.get('role')})"
        if message.get("at"):
            head += f" at {message['at']}"
        console.print(Text(head, style="bold"))
        for text_line in str(message.get("text") or "").splitlines() or [""]:
            console.print(Text(f"  {text_line}"))


def diff_view(console: Console, diff: str) -> None:
    """A unified diff: coloured on a terminal, the plain text otherwise."""
    if not console.is_terminal:
        console.out(diff.rstrip("\n"), highlight=False)
        return
    for line in diff.rstrip("\n").splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = ""
        console.print(Text(line, style=style))
