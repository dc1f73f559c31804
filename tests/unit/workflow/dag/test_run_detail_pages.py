"""A run's detail always fits a reply: a run of thousands of steps is listed a page of steps at
a time, each page saying how many steps follow and where the next one starts.

Before, `GET /workflow-runs/{id}` of a 4,000-step run answered 500 ("the reply to GetDagRun
is 1,299,223 bytes; NATS carries 1048576"): texts were cut to fit, but not the steps.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from baton_contracts import RemoteError
from baton_contracts.dag_api import DagRunDetail
from baton_workflow.domain.dag.actions import CallAgent
from baton_workflow.domain.dag.events import RunEvent
from baton_workflow.domain.dag.fold import fold
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.scheduler import decide, start_run
from baton_workflow.domain.dag.state import RunState
from baton_workflow.service.dag_pages import DETAIL_BYTES
from baton_workflow.service.dag_views import run_detail

from .conftest import T0, at

NATS_MAX_PAYLOAD = 1024 * 1024


def finished_fan_out(steps: int, output: str = "done") -> tuple[RunState, list[RunEvent]]:
    """A live run of `steps` agent steps that all ran at once and answered `output`."""
    document = {"name": "fan", "steps": [{"id": f"s{i}", "prompt": f"p{i}"} for i in range(steps)]}
    history: list[RunEvent] = [start_run(parse_definition(document), run_id="r", now=T0)]
    calls: list[CallAgent] = []
    while (started := decide(_fold(history), T0)).events:  # a decision starts 1,000 at most
        history += started.events
        calls += [a for a in started.actions if isinstance(a, CallAgent)]
    history += [a.succeeded(at(1), output) for a in calls]
    history += decide(_fold(history), at(1)).events
    state = _fold(history)
    assert state.status == "success"
    return state, history


def _fold(history: list[RunEvent]) -> RunState:
    state = fold(history)
    assert state is not None
    return state


def wire_size(detail: DagRunDetail) -> int:
    return len(detail.model_dump_json(by_alias=True).encode())


def pages(state: RunState, history: list[RunEvent], **ask: Any) -> list[DagRunDetail]:
    """Every page, following `next_steps_after` as a client does."""
    found = [run_detail(state, history, **ask)]
    while found[-1].next_steps_after is not None:
        found.append(run_detail(state, history, found[-1].next_steps_after, ask.get("limit")))
    return found


def test_a_run_of_thousands_of_steps_is_listed_in_pages_that_fit_a_reply() -> None:
    state, history = finished_fan_out(4000)

    listed = pages(state, history)

    first = listed[0]
    assert wire_size(first) <= DETAIL_BYTES < NATS_MAX_PAYLOAD  # was 2.7 MB, a 500
    assert first.more_steps == 4000 - len(first.steps) > 0
    assert first.next_steps_after == first.steps[-1].id
    assert all(wire_size(page) <= DETAIL_BYTES for page in listed)
    steps = [step.id for page in listed for step in page.steps]
    assert steps == [f"s{i}" for i in range(4000)]  # every step once, in declaration order
    assert (listed[-1].more_steps, listed[-1].next_steps_after) == (0, None)
    # Each page carries the agent messages of its own steps, and all of them are there.
    for page in listed:
        assert {m.step for m in page.messages} == {s.id for s in page.steps}
    assert sum(len(page.messages) for page in listed) == 8000


def test_a_page_of_long_outputs_is_cut_to_fit_as_a_whole_run_was() -> None:
    state, history = finished_fan_out(1500, output="x" * 2000)

    listed = pages(state, history)

    assert len(listed) > 1 and all(wire_size(page) <= DETAIL_BYTES for page in listed)
    assert "more characters cut" in listed[0].steps[0].output
    assert [s.id for page in listed for s in page.steps] == [f"s{i}" for i in range(1500)]


def test_limit_lists_at_most_that_many_steps() -> None:
    state, history = finished_fan_out(5)

    listed = pages(state, history, limit=2)

    assert [[s.id for s in page.steps] for page in listed] == [["s0", "s1"], ["s2", "s3"], ["s4"]]
    assert [page.more_steps for page in listed] == [3, 1, 0]


def test_a_run_that_fits_is_answered_whole_with_nothing_more_on_the_wire() -> None:
    state, history = finished_fan_out(3)

    detail = run_detail(state, history)

    assert [s.id for s in detail.steps] == ["s0", "s1", "s2"]
    # Left off the wire, so a gateway older than paging still reads the reply.
    assert not {"more_steps", "next_steps_after"} & set(json.loads(detail.model_dump_json()))


def test_an_unknown_steps_after_is_invalid_naming_it() -> None:
    state, history = finished_fan_out(3)

    with pytest.raises(RemoteError) as raised:
        run_detail(state, history, "nope")

    assert raised.value.code == "invalid"
    assert [d.field for d in raised.value.body.details] == ["steps_after"]
