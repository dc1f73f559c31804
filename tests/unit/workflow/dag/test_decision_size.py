"""One decision is one write: a fan-out of thousands of steps starts them over several decisions,
each whole, so no single transaction holds the database (SQLite's one writer, PostgreSQL's
statement timeout) for the whole fan-out."""

from __future__ import annotations

from baton_workflow.domain.dag.scheduler import MAX_DECISION_EVENTS

from .conftest import T0, Run, workflow

STEPS = 2 * MAX_DECISION_EVENTS


def test_a_large_fan_out_starts_over_several_whole_decisions_with_no_wait_between() -> None:
    run = Run(workflow(*({"id": f"s{i}", "prompt": "x"} for i in range(STEPS))))
    sizes, started = [], []
    while True:
        decision = run.decide()
        if not decision.events:
            break
        sizes.append(len(decision.events))
        started += [a.step_id for a in decision.actions]  # type: ignore[attr-defined]
        running = [s for s, status in run.statuses().items() if status == "running"]
        # Each decision stands on its own: what it started is running, in declaration order.
        assert running == [f"s{i}" for i in range(len(running))]
        if len(running) < STEPS:
            assert decision.wake_at == T0  # the rest is due now: the drive goes on at once
    assert len(sizes) > 1 and max(sizes) <= MAX_DECISION_EVENTS
    assert started == [f"s{i}" for i in range(STEPS)]  # each started once, none left out


def test_a_large_parallel_step_starts_its_sub_steps_over_several_decisions() -> None:
    subs = [{"id": f"p{i}", "type": "notify", "notifyMsg": "hi"} for i in range(STEPS)]
    run = Run(workflow({"id": "fan", "type": "parallel", "parallel": subs}))
    sizes = []
    while (decision := run.decide()).events:
        sizes.append(len(decision.events))
    assert len(sizes) > 1 and max(sizes) <= MAX_DECISION_EVENTS + 3  # the last start's events
    assert run.state.status == "success"
    assert set(run.statuses().values()) == {"success"}
