"""A signal or an exchange as it comes in: what its `data` and `shared` may hold, checked
before anything is kept (on their own as they arrive, and merged into the instance's as it is
decided on), and the domain command it becomes."""

from __future__ import annotations

import json

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.signal_data import (
    MAX_CONTEXT_PART_BYTES,
    MAX_SIGNAL_DATA_BYTES,
    STEP_RECORD_KEYS,
)
from baton_contracts.storable import first_unstorable
from baton_contracts.workflow_api import RecordExchange, SignalWorkflow, WorkflowSignal
from baton_workflow.domain import commands as dc
from baton_workflow.domain.state import InstanceState, with_signal
from baton_workflow.domain.widgets import WIDGET_KEY, widget_problems

_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""`json.dumps(value, separators=(",", ":"), ensure_ascii=False)` without a new encoder per
call (it keeps no state): every signal's data and shared are measured with it."""


def agents_data_kept(cmd: RecordExchange) -> RecordExchange:
    """An exchange's signal is its agent's: keys of its `data` that the service keeps for the
    step's own record are left out, as on a chat turn (`conversation.agent_signal`), not
    refused with the whole exchange; a person's signal naming one is refused."""
    signal = cmd.signal
    if signal is None or not STEP_RECORD_KEYS.intersection(signal.data):
        return cmd
    data = {k: v for k, v in signal.data.items() if k not in STEP_RECORD_KEYS}
    return cmd.model_copy(update={"signal": signal.model_copy(update={"data": data})})


def check_data(signal: WorkflowSignal | None) -> None:
    """`data` may not name what the service keeps for the step's own record
    (`STEP_RECORD_KEYS`); `data` and `shared` are each held to the size limit (both end up in
    the stored context), and a NUL anywhere in either is refused by its path, before anything
    is kept.
    Each is named by its path in the command (`signal.data.notes[1]`), like every field.

    Measured as compact UTF-8 JSON, the form it is stored in: escaping to ASCII would count a
    Cyrillic letter as 6 bytes instead of 2 and refuse data well under the limit. That text
    also shows whether a NUL may be there (written as `\\u0000`): only then is it walked.
    """
    if signal is None or not (signal.data or signal.shared):
        return  # most signals carry neither: `{}` is 2 bytes, with no NUL
    kept = sorted(STEP_RECORD_KEYS.intersection(signal.data))
    if kept:
        where = f"signal.data.{kept[0]}"
        problem = (
            "kept by the workflow service for the step's own record "
            f"({', '.join(sorted(STEP_RECORD_KEYS))}); use another name"
        )
        raise RemoteError.of(
            ErrorCode.INVALID,
            f"{where}: {problem}",
            [ErrorDetail(field=f"signal.data.{key}", message=problem) for key in kept],
        )
    texts = {
        name: _COMPACT_JSON.encode(value)
        for name, value in (("data", signal.data), ("shared", signal.shared))
    }
    for name, text in texts.items():
        size = len(text.encode())
        if size > MAX_SIGNAL_DATA_BYTES:
            raise RemoteError.of(
                ErrorCode.TOO_LARGE,
                f"signal {name} is {size} bytes; the limit is {MAX_SIGNAL_DATA_BYTES}",
                [
                    ErrorDetail(
                        field=f"signal.{name}", message=f"{size} bytes > {MAX_SIGNAL_DATA_BYTES}"
                    )
                ],
            )
    for name, text in texts.items():
        found = first_unstorable(getattr(signal, name)) if "\\u0000" in text else None
        if found is not None:
            where = found.path(f"signal.{name}")
            raise RemoteError.of(
                ErrorCode.INVALID,
                f"{where}: {found.problem}",
                [ErrorDetail(field=where, message=found.problem)],
            )


def check_widget(signal: WorkflowSignal | None) -> None:
    """A widget in a person's signal (`data.widget`) must have the shape the step's criteria
    and the inbox read (`widgets.widget_problems`), or the signal is refused with every
    problem by its path (`signal.data.widget.items[2]`), before anything is kept. An agent's
    signal is not held to it: its entries that are not text are no items."""
    if signal is None or WIDGET_KEY not in signal.data:
        return
    problems = widget_problems(signal.data[WIDGET_KEY])
    if not problems:
        return
    details = [
        ErrorDetail(field=f"signal.data.{WIDGET_KEY}{path}", message=problem)
        for path, problem in problems
    ]
    first = details[0]
    raise RemoteError.of(ErrorCode.INVALID, f"{first.field}: {first.message}", details)


def check_context(state: InstanceState, signal: dc.Signal | None) -> None:
    """The step data and `shared` a signal's `data` and `shared` merge into stay, each, within
    `MAX_CONTEXT_PART_BYTES`: signals each within their own limit, under new keys, grew an
    instance until its replies no longer fit a NATS message, and nothing could read it again.
    Measured only when the signal carries some (most carry none), as it is stored."""
    if signal is None or not (signal.data or signal.shared):
        return
    merged = with_signal(state, signal)
    for name, part, what in (
        ("data", merged.step_data, "step data"),
        ("shared", merged.shared, "shared context"),
    ):
        if not getattr(signal, name):
            continue
        size = len(_COMPACT_JSON.encode(part).encode())
        if size > MAX_CONTEXT_PART_BYTES:
            problem = (
                f"would make the instance's {what} {size} bytes; the limit is "
                f"{MAX_CONTEXT_PART_BYTES}"
            )
            raise RemoteError.of(
                ErrorCode.TOO_LARGE,
                f"signal {name} {problem}",
                [ErrorDetail(field=f"signal.{name}", message=problem)],
            )


def domain_command(cmd: SignalWorkflow | RecordExchange) -> dc.SendSignal | dc.RecordExchange:
    signal = None
    if cmd.signal is not None:
        signal = dc.Signal.model_validate(cmd.signal.model_dump())
    if isinstance(cmd, SignalWorkflow):
        assert signal is not None
        return dc.SendSignal(command_id=cmd.command_id, signal=signal)
    return dc.RecordExchange(command_id=cmd.command_id, signal=signal)
