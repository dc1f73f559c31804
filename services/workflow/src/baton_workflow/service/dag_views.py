"""A DAG run's API view: each step, its handoffs and its agent messages, from the run's state
and log; `get_dag_run` in `dag_runs` answers with it."""

from __future__ import annotations

from typing import Any

from baton_contracts.dag_api import (
    DagAgentMessage,
    DagEstimate,
    DagHandoff,
    DagRunDetail,
    DagStepView,
)
from baton_contracts.money import usd
from baton_workflow.domain.dag import events as re
from baton_workflow.domain.dag.definition import DEFAULT_AGENT
from baton_workflow.domain.dag.state import FAILED, RunState
from baton_workflow.service.dag_pages import DETAIL_BYTES, SMALLEST_CUT, cut, step_page
from baton_workflow.service.dag_steps import AGENT_STEP_TYPES


def run_detail(
    state: RunState,
    history: list[re.RunEvent],
    steps_after: str | None = None,
    limit: int | None = None,
) -> DagRunDetail:
    """The API view of a run from its state and log: the page of its steps after
    `steps_after` (`step_page`), its longest texts cut to fit a reply (`bounded`)."""
    return bounded(step_page(_run_detail(state, history), steps_after, limit))


def bounded(detail: DagRunDetail, budget: int = DETAIL_BYTES) -> DagRunDetail:
    """`detail`, or, past `budget` bytes of JSON, the same with each variable, step output or
    error and agent message cut to the longest length that fits, each cut saying so."""
    if _surely_within(detail, budget) or _size(detail) <= budget:
        return detail
    longest = max(len(text) for text in _texts(detail))
    cap = longest // 2
    while True:
        shorter = _with_texts_cut(detail, cap)
        if _size(shorter) <= budget or cap <= SMALLEST_CUT:
            return shorter
        cap //= 2


def _surely_within(detail: DagRunDetail, budget: int) -> bool:
    """True when the view cannot pass `budget` whatever its texts hold (a character is at most
    6 bytes of JSON, `\\uXXXX`; the other fields of a step or message well under 1 KB): the
    reply encodes it anyway, so most runs are not encoded twice here to be measured."""
    texts = sum(len(text) for text in _texts(detail))
    parts = len(detail.steps) + len(detail.messages) + len(detail.handoffs) + 1
    return 6 * texts + 1024 * parts <= budget


def _size(detail: DagRunDetail) -> int:
    return len(detail.model_dump_json(by_alias=True).encode())


def _texts(detail: DagRunDetail) -> list[str]:
    return [
        *detail.variables.values(),
        *(step.output for step in detail.steps),
        *(step.error or "" for step in detail.steps),
        *(message.text for message in detail.messages),
        detail.error or "",
    ]


def _with_texts_cut(detail: DagRunDetail, cap: int) -> DagRunDetail:
    return detail.model_copy(
        update={
            "variables": {name: cut(value, cap) for name, value in detail.variables.items()},
            "steps": [
                step.model_copy(
                    update={
                        "output": cut(step.output, cap),
                        "error": None if step.error is None else cut(step.error, cap),
                    }
                )
                for step in detail.steps
            ],
            "messages": [
                message.model_copy(update={"text": cut(message.text, cap)})
                for message in detail.messages
            ],
            "error": None if detail.error is None else cut(detail.error, cap),
        }
    )


def _run_detail(state: RunState, history: list[re.RunEvent]) -> DagRunDetail:
    definition = state.definition
    steps = [
        DagStepView(
            id=step.id,
            type=step.type,
            status=_step_status(state, step.id),
            attempts=state.steps[step.id].attempt,
            output=state.steps[step.id].output,
            error=state.steps[step.id].error or None,
            error_code=_error_code(state, step.id),
            started_at=state.steps[step.id].started_at,
            finished_at=state.steps[step.id].finished_at,
            cost_usd=state.steps[step.id].cost_usd,
            tokens_in=state.steps[step.id].tokens_in,
            tokens_out=state.steps[step.id].tokens_out,
            agent=state.steps[step.id].agent,
            parent=definition.parents.get(step.id),
        )
        for step in definition.all_steps()
        if step.id in state.steps
    ]
    estimated = [s for s in state.steps.values() if s.estimated]
    estimate = None
    if state.mode == "dry_run":
        estimate = DagEstimate(
            tokens_in=sum(s.tokens_in for s in estimated),
            tokens_out=sum(s.tokens_out for s in estimated),
            cost_usd=usd(sum(s.cost_usd for s in estimated)),
        )
    return DagRunDetail(
        run_id=state.run_id,
        workflow=state.workflow,
        version=state.version,
        version_id=state.version_id,
        mode=state.mode,
        status=state.status,
        started_at=state.started_at,
        finished_at=state.finished_at,
        cost_usd=state.cost_usd,
        error=state.error or None,
        variables=dict(state.variables),
        steps=steps,
        handoffs=_handoffs(state, history),
        # Shadow runs keep no messages; a dry run sent none (its prompts were only priced).
        messages=_messages(state, history) if state.mode == "live" else [],
        estimate=estimate,
    )


_API_STATUS: dict[str, Any] = {
    "retry_wait": "waiting",
    "budget_exceeded": "error",
    "cancelled": "error",
}


def _step_status(state: RunState, step_id: str) -> Any:
    status = state.steps[step_id].status
    return _API_STATUS.get(status, status)


def _error_code(state: RunState, step_id: str) -> Any:
    """The failure kind of a failed step, which `_API_STATUS` folds into `error`."""
    status = state.steps[step_id].status
    return status if status in FAILED else None


def _handoffs(state: RunState, history: list[re.RunEvent]) -> list[DagHandoff]:
    return [
        DagHandoff(
            from_step=e.handoff_from,
            to_step=e.step_id,
            agent=e.agent or DEFAULT_AGENT,
            at=e.at,
        )
        for e in history
        if isinstance(e, re.StepSucceeded) and e.handoff_from and not e.estimated
    ]


def _never_sent(history: list[re.RunEvent]) -> set[tuple[str, int]]:
    """Attempts refused as they started (run budget, handoff source): no agent was asked.

    Such a refusal is decided together with the start, so it carries the start's own time;
    an agent's answer or a deadline always comes later.
    """
    started = {(e.step_id, e.attempt): e.at for e in history if isinstance(e, re.StepStarted)}
    return {
        (e.step_id, e.attempt)
        for e in history
        if isinstance(e, re.StepFailed) and started.get((e.step_id, e.attempt)) == e.at
    }


def _messages(state: RunState, history: list[re.RunEvent]) -> list[DagAgentMessage]:
    out: list[DagAgentMessage] = []
    refused = _never_sent(history)
    for e in history:
        if not isinstance(e, re.StepStarted | re.StepSucceeded):
            continue
        if state.definition.step(e.step_id).type not in AGENT_STEP_TYPES:
            continue
        if isinstance(e, re.StepStarted) and (e.step_id, e.attempt) in refused:
            continue
        if isinstance(e, re.StepStarted) and e.input.prompt is not None:
            agent = e.input.agent or DEFAULT_AGENT
            out.append(
                DagAgentMessage(
                    step=e.step_id, agent=agent, role="user", text=e.input.prompt, at=e.at
                )
            )
        elif isinstance(e, re.StepSucceeded) and not e.estimated:
            out.append(
                DagAgentMessage(
                    step=e.step_id,
                    agent=e.agent or DEFAULT_AGENT,
                    role="assistant",
                    text=e.output,
                    at=e.at,
                )
            )
    return out
