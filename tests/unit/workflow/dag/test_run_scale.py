"""A run of thousands of steps costs work in proportion to its steps, not to their square.

A 4,000-step fan-out of `notify` steps held the workflow service's event loop for 10-18 s:
each step's start built every step's template outcome, each event's wire form counted every
finished step, and each event's fold copied the whole step map. Counted in Python calls (and,
for the step map, in entries copied), never timed: four times the steps is about four times
the work.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from types import FrameType
from typing import Any

from baton_workflow.domain.dag.fold import fold
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.scheduler import decide, start_run
from baton_workflow.domain.dag.state import StepState
from baton_workflow.domain.dag.step_map import StepMap
from baton_workflow.service.dag_wire import wire_events

from .conftest import T0


def fan_out(steps: int) -> dict[str, Any]:
    return {
        "name": "fan",
        "steps": [
            {"id": f"s{i}", "type": "notify", "notifyMsg": f"{{{{steps.s0.status}}}} {i}"}
            for i in range(steps)
        ],
    }


def chain(steps: int) -> dict[str, Any]:
    return {
        "name": "chain",
        "steps": [
            {"id": f"d{i}", "type": "delay", "delay": "1s", "dependsOn": [f"d{i - 1}"] if i else []}
            for i in range(steps)
        ],
    }


def calls(work: Callable[[], object]) -> int:
    """Python function calls made by `work`."""
    count = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count


def start_and_publish(document: dict[str, Any], mode: str) -> Callable[[], object]:
    """The first decision of a run, its events' wire forms and the fold of its whole log: what
    the service does when the run starts, and again on each read of it."""
    definition = parse_definition(document)
    started = start_run(definition, run_id="r", now=T0, mode=mode)  # type: ignore[arg-type]

    def work() -> object:
        state = fold([started])
        assert state is not None
        decision = decide(state, T0)
        wire_events(state, decision.events, [uuid.uuid4() for _ in decision.events])
        return fold([started, *decision.events])

    return work


def test_starting_a_fan_out_of_notify_steps_is_linear_in_its_steps() -> None:
    small, large = (calls(start_and_publish(fan_out(n), "live")) for n in (250, 1000))

    # Every step starts in this one decision (3 events each); was 16 times (quadratic).
    assert large < 4.5 * small, (small, large)


def test_a_dry_run_of_a_chain_of_delays_is_linear_in_its_steps() -> None:
    small, large = (calls(start_and_publish(chain(n), "dry_run")) for n in (250, 1000))

    assert large < 4.5 * small, (small, large)


def test_changing_one_step_copies_about_the_square_root_of_the_steps() -> None:
    steps = 10_000
    ids = [f"s{i}" for i in range(steps)]
    mapping = StepMap({i: StepState(i) for i in ids})
    copied = 0
    for i in ids:
        changed = mapping.set(i, StepState(i, status="running"))
        # What the new map holds that the old one did not share with it.
        if changed._base is not mapping._base:
            copied += len(changed._base)
        copied += len(changed._changed)
        mapping = changed

    assert all(mapping[i].status == "running" for i in ids)
    assert list(mapping) == ids  # declaration order, as the run's steps are listed
    # A dict copied per change copies 10,000 x 10,000 entries; this about 2 x 100 per change.
    assert copied < 4 * steps * 100, copied


def test_a_step_map_reads_as_the_mapping_it_stands_for() -> None:
    mapping = StepMap({"a": StepState("a"), "b": StepState("b")}).set(
        "b", StepState("b", "success")
    )

    assert dict(mapping) == {"a": StepState("a"), "b": StepState("b", "success")}
    assert mapping == {"a": StepState("a"), "b": StepState("b", "success")}
    assert "b" in mapping and "c" not in mapping and len(mapping) == 2
    assert mapping.get("c") is None
