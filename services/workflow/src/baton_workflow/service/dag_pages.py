"""A page of a run's view: the steps after `steps_after`, as many as fit a reply, with their
agent messages and handoffs.

A run's texts have limits of their own and are cut to fit (`dag_views.bounded`), but its
number of steps has none: a 4,000-step run's view was 1.3 MB, over the 1 MiB a NATS reply
carries, so it answered 500 however short its texts. A page holds the steps that fit with
every text cut as short as `bounded` ever cuts it, so cutting them then always fits it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TypeVar

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.dag_api import DagAgentMessage, DagHandoff, DagRunDetail, DagStepView
from baton_contracts.workflow_api import PAGE_BYTES

DETAIL_BYTES = PAGE_BYTES
"""About the most JSON a run's view holds. Its prompts, outputs and variables have limits of
their own, but not together: eight steps each sent a 150 KB variable made a view over the
1 MiB a NATS reply carries, and the run could never be read again."""
SMALLEST_CUT = 256
"""The shortest a text of the view is cut to (with its note saying so)."""
_KIB = DETAIL_BYTES // 1024
T = TypeVar("T", DagAgentMessage, DagHandoff)


def cut(text: str, cap: int, why: str = f"a run's view holds about {_KIB} KiB") -> str:
    """`text`, or its first `cap` characters saying how many more there were, and `why`."""
    if len(text) <= cap:
        return text
    return f"{text[:cap]}… [{len(text) - cap} more characters cut: {why}]"


def step_page(
    detail: DagRunDetail,
    steps_after: str | None,
    limit: int | None,
    budget: int = DETAIL_BYTES,
) -> DagRunDetail:
    """`detail` with the steps declared after `steps_after` (all: None), at most `limit` and
    as many as fit `budget` (at least one), their messages and handoffs; `more_steps` and
    `next_steps_after` say what follows. An unknown `steps_after` is `invalid`."""
    start = _start(detail, steps_after)
    if start == 0 and limit is None and _whole_fits(detail, budget):
        return detail
    messages = _by_step(detail.messages, lambda m: m.step)
    handoffs = _by_step(detail.handoffs, lambda h: h.to_step)
    room = budget - _least_size(detail.model_copy(update={"steps": [], "messages": []}))
    page: list[DagStepView] = []
    for step in detail.steps[start:]:
        if limit is not None and len(page) == limit:
            break
        size = _least_size(step) + sum(_least_size(m) for m in messages[step.id])
        size += sum(len(h.model_dump_json(by_alias=True)) + 1 for h in handoffs[step.id])
        if page and size > room:
            break
        room -= size
        page.append(step)
    listed = {step.id for step in page}
    more = len(detail.steps) - start - len(page)
    return detail.model_copy(
        update={
            "steps": page,
            "messages": [m for m in detail.messages if m.step in listed],
            "handoffs": [h for h in detail.handoffs if h.to_step in listed],
            "more_steps": more,
            "next_steps_after": page[-1].id if more else None,
        }
    )


def _start(detail: DagRunDetail, steps_after: str | None) -> int:
    if steps_after is None:
        return 0
    for index, step in enumerate(detail.steps):
        if step.id == steps_after:
            return index + 1
    raise RemoteError.of(
        ErrorCode.INVALID,
        f"run {detail.run_id} has no step {steps_after!r} to list the steps after",
        [ErrorDetail(field="steps_after", message=f"no step {steps_after!r} in this run")],
    )


def _whole_fits(detail: DagRunDetail, budget: int) -> bool:
    """Every step fits (its texts cut if need be): most runs, answered as they always were."""
    floor = SMALLEST_CUT + 100  # a text's most once cut, its note included
    texts = sum(min(len(t), floor) for t in _texts(detail))
    parts = len(detail.steps) + len(detail.messages) + len(detail.handoffs) + 1
    if 6 * texts + 1024 * parts <= budget:  # surely (see `dag_views._surely_within`)
        return True
    return _least_size(detail) <= budget


def _texts(detail: DagRunDetail) -> list[str]:
    return [
        *detail.variables.values(),
        *(step.output for step in detail.steps),
        *(step.error or "" for step in detail.steps),
        *(message.text for message in detail.messages),
        detail.error or "",
    ]


def _least_size(part: DagRunDetail | DagStepView | DagAgentMessage) -> int:
    """Bytes of `part`'s JSON with each of its texts cut as short as the view ever cuts it
    (and a comma)."""
    cap = SMALLEST_CUT
    if isinstance(part, DagStepView):
        part = _cut_step(part, cap)
    elif isinstance(part, DagAgentMessage):
        part = part.model_copy(update={"text": cut(part.text, cap)})
    else:
        part = part.model_copy(
            update={
                "variables": {name: cut(value, cap) for name, value in part.variables.items()},
                "steps": [_cut_step(step, cap) for step in part.steps],
                "messages": [
                    message.model_copy(update={"text": cut(message.text, cap)})
                    for message in part.messages
                ],
                "error": None if part.error is None else cut(part.error, cap),
            }
        )
    return len(part.model_dump_json(by_alias=True).encode()) + 1


def _cut_step(step: DagStepView, cap: int) -> DagStepView:
    error = None if step.error is None else cut(step.error, cap)
    return step.model_copy(update={"output": cut(step.output, cap), "error": error})


def _by_step(items: list[T], step_of: Callable[[T], str]) -> defaultdict[str, list[T]]:
    grouped: defaultdict[str, list[T]] = defaultdict(list)
    for item in items:
        grouped[step_of(item)].append(item)
    return grouped
