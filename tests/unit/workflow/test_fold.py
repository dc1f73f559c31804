"""Folding a log: the same state as applying its events one by one, in work linear in the
log's length (a cold load of an instance of many commands blocked the service for seconds)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from baton_workflow.domain import state as state_module
from baton_workflow.domain.events import DomainEvent, InstanceStarted, SignalReceived
from baton_workflow.domain.state import InstanceState, apply, fold

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def log(n: int) -> list[DomainEvent]:
    start = InstanceStarted(
        at=NOW, instance_id="i", workflow_id="onboarding", user_id="u", first_step="greeting"
    )
    signals: list[DomainEvent] = [
        SignalReceived(
            at=NOW, command_id=f"c{k}", step="greeting", action="stay", source="manual",
            data={}, shared={f"k{k % 3}": k}, target_step=None,
        )
        for k in range(n)
    ]  # fmt: skip
    return [start, *signals]


def one_by_one(events: list[DomainEvent], state: InstanceState | None = None) -> Any:
    for event in events:
        state = apply(state, event)
    return state


def test_a_fold_is_the_events_applied_one_by_one() -> None:
    events = log(50)
    assert fold(events) == one_by_one(events)
    cached = fold(events[:20])
    assert fold(events[20:], cached) == one_by_one(events)
    assert fold([], cached) == cached and fold([]) is None


def test_no_event_is_applied_to_the_outcomes_gathered_so_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `apply` copies a state's outcomes (one per command) with every event: handed the
    # gathered ones, a fold of n commands copied n^2/2 of them.
    handed: list[int] = []

    def counting(state: InstanceState | None, event: DomainEvent) -> InstanceState:
        handed.append(0 if state is None else len(state.outcomes))
        return apply(state, event)

    monkeypatch.setattr(state_module, "apply", counting)
    folded = fold(log(2_000))

    assert folded is not None and len(folded.outcomes) == 2_000
    assert max(handed) == 0
