"""A step that closes holding a completed widget records its items once, as it closes."""

from __future__ import annotations

from typing import Any

from baton_workflow.domain.commands import RecordExchange, SendSignal, Signal
from baton_workflow.domain.decide import decide
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.events import (
    DomainEvent,
    ExchangeRecorded,
    InstanceStarted,
    SignalReceived,
    StepBlocked,
    StepChanged,
    WidgetCompleted,
)
from baton_workflow.domain.state import InstanceState, fold

from .conftest import at, report

AT_BRAIN_DUMP = (
    InstanceStarted(
        at=at(0),
        instance_id="i-1",
        workflow_id="onboarding-classic",
        user_id="alice",
        first_step="greeting",
    ),
    StepChanged(at=at(1), command_id="c1", previous_step="greeting", current_step="discovery"),
    StepChanged(at=at(2), command_id="c2", previous_step="discovery", current_step="brain_dump"),
)
TALKED = ExchangeRecorded(at=at(3), command_id="m1", step="brain_dump", messages_in_step=1)
MET = report("brain_dump", widget_completed=(2, 1))


def given(*events: DomainEvent) -> InstanceState:
    state = fold(events)
    assert state is not None
    return state


def widget(*items: Any, completed: bool = True) -> dict[str, Any]:
    return {"widget": {"type": "list_input", "completed": completed, "items": list(items)}}


def listed(command_id: str, *items: str, n: int = 4) -> WidgetCompleted:
    return WidgetCompleted(
        at=at(n), command_id=command_id, step="brain_dump", widget_type="list_input",
        items=list(items),
    )  # fmt: skip


def closed(command_id: str, n: int) -> StepChanged:
    return StepChanged(
        at=at(n), command_id=command_id, previous_step="brain_dump", current_step="completed"
    )


def test_the_signal_that_closes_the_step_with_its_list_records_the_items(
    classic: WorkflowDefinition,
) -> None:
    state = given(*AT_BRAIN_DUMP, TALKED)
    done = Signal(action="complete_step", data=widget(" buy milk ", "", 7, "call mom"))
    events = decide(state, SendSignal(command_id="s1", signal=done), classic, at(4), MET)
    assert events == [
        SignalReceived(
            at=at(4),
            command_id="s1",
            step="brain_dump",
            action="complete_step",
            source="manual",
            data=done.data,
        ),
        listed("s1", "buy milk", "call mom"),
        closed("s1", 4),
    ]


def test_a_refused_list_records_nothing_and_the_step_closes_on_the_last_list_sent(
    classic: WorkflowDefinition,
) -> None:
    state = given(*AT_BRAIN_DUMP)
    first = Signal(action="complete_step", data=widget("taxes"))
    unmet = report("brain_dump")
    refused = decide(state, SendSignal(command_id="s1", signal=first), classic, at(3), unmet)
    assert [type(e) for e in refused] == [SignalReceived, StepBlocked]  # min_messages 0/1

    state = fold([TALKED.model_copy(update={"at": at(4)})], fold(refused, state))
    assert state is not None
    again = Signal(action="complete_step", data=widget("taxes", "milk"))
    events = decide(state, SendSignal(command_id="s2", signal=again), classic, at(5), MET)
    assert events[1:] == [
        listed("s2", "taxes", "milk", n=5),
        closed("s2", 5),
    ]


def test_a_list_kept_from_a_refused_signal_is_recorded_when_a_later_signal_closes_the_step(
    classic: WorkflowDefinition,
) -> None:
    state = given(*AT_BRAIN_DUMP)
    first = SendSignal(command_id="s1", signal=Signal(action="need_input", data=widget("taxes")))
    state = fold(decide(state, first, classic, at(3), report("brain_dump")), state)  # type: ignore[assignment]
    closing = RecordExchange(command_id="m1", signal=Signal(action="complete_step"))
    events = decide(state, closing, classic, at(4), MET)
    assert events[-2:] == [
        listed("m1", "taxes"),
        closed("m1", 4),
    ]


def test_a_list_not_completed_records_nothing_even_when_max_messages_closes_the_step(
    classic: WorkflowDefinition,
) -> None:
    state = given(*AT_BRAIN_DUMP).model_copy(update={"messages_in_step": 19})
    draft = Signal(action="stay", data=widget("taxes", completed=False))
    events = decide(state, RecordExchange(command_id="m20", signal=draft), classic, at(4), MET)
    assert isinstance(events[-1], StepChanged) and events[-1].forced
    assert not any(isinstance(e, WidgetCompleted) for e in events)


def test_the_recorded_list_leaves_the_state_as_the_signal_left_it(
    classic: WorkflowDefinition,
) -> None:
    state = given(*AT_BRAIN_DUMP, TALKED)
    done = Signal(action="complete_step", data=widget("taxes"))
    events = decide(state, SendSignal(command_id="s1", signal=done), classic, at(4), MET)
    after = fold(events, state)
    assert after is not None
    assert after.version == state.version + 3
    assert after.step_data["brain_dump"]["widget"]["items"] == ["taxes"]
    assert (after.current_step, after.outcomes["s1"]) == ("completed", "transitioned")
    assert decide(after, SendSignal(command_id="s1", signal=done), classic, at(5), MET) == []
