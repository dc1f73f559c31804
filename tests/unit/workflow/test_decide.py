"""decide/apply as given (past events) / when (command) / then (exact new events)."""

from __future__ import annotations

import itertools

import pytest

from baton_workflow.domain.commands import RecordExchange, SendSignal, Signal, StartInstance
from baton_workflow.domain.decide import decide, needs_criteria, progress
from baton_workflow.domain.definitions import WorkflowDefinition
from baton_workflow.domain.errors import InstanceNotActive, UnknownStep
from baton_workflow.domain.events import (
    DomainEvent,
    ExchangeRecorded,
    InstanceCompleted,
    InstanceStarted,
    SignalReceived,
    StepBlocked,
    StepChanged,
)
from baton_workflow.domain.state import InstanceState, fold, with_signal

from .conftest import at, report

STARTED = InstanceStarted(
    at=at(0), instance_id="i-1", workflow_id="onboarding", user_id="alice", first_step="greeting"
)
COMPLETE = Signal(action="complete_step")


def given(*events: DomainEvent) -> InstanceState:
    state = fold(events)
    assert state is not None
    return state


def exchange(n: int, step: str, count: int) -> ExchangeRecorded:
    return ExchangeRecorded(at=at(n), command_id=f"c{n}", step=step, messages_in_step=count)


def test_start_puts_the_instance_on_the_first_step(onboarding: WorkflowDefinition) -> None:
    command = StartInstance(instance_id="i-1", workflow_id="onboarding", user_id="alice")
    assert decide(None, command, onboarding, at(0)) == [STARTED]


def test_an_exchange_without_a_signal_stays(onboarding: WorkflowDefinition) -> None:
    state = given(STARTED)
    events = decide(state, RecordExchange(command_id="c1"), onboarding, at(1))
    assert events == [exchange(1, "greeting", 1)]


def test_min_messages_holds_a_completion_back(onboarding: WorkflowDefinition) -> None:
    state = given(STARTED)
    command = RecordExchange(command_id="c1", signal=COMPLETE)
    events = decide(state, command, onboarding, at(1), report("greeting"))
    assert events == [
        exchange(1, "greeting", 1),
        SignalReceived(
            at=at(1), command_id="c1", step="greeting", action="complete_step", source="agent"
        ),
        StepBlocked(
            at=at(1),
            command_id="c1",
            step="greeting",
            reason="step 'greeting' needs at least 2 messages (has 1)",
            missing_criteria=["min_messages: 1/2 messages"],
        ),
    ]


def test_signal_after_min_messages_with_criteria_met_transitions(
    onboarding: WorkflowDefinition,
) -> None:
    state = given(STARTED, exchange(1, "greeting", 1))
    command = RecordExchange(command_id="c2", signal=COMPLETE)
    events = decide(state, command, onboarding, at(2), report("greeting"))
    assert events[-1] == StepChanged(
        at=at(2), command_id="c2", previous_step="greeting", current_step="discovery"
    )
    after = fold(events, state)
    assert after is not None
    assert (after.current_step, after.messages_in_step, after.steps_completed) == (
        "discovery",
        0,
        ("greeting",),
    )
    assert after.outcomes["c2"] == "transitioned"


def test_unmet_criteria_block_with_the_missing_ones_named(onboarding: WorkflowDefinition) -> None:
    state = given(
        STARTED,
        *[exchange(i, "greeting", i) for i in (1, 2)],
        StepChanged(at=at(3), command_id="c3", previous_step="greeting", current_step="discovery"),
        *[exchange(i, "discovery", i - 3) for i in range(4, 9)],
    )
    checked = report("discovery", "memory_facts", memory_facts=(2, 3))
    events = decide(state, SendSignal(command_id="s1", signal=COMPLETE), onboarding, at(9), checked)
    assert events[-1] == StepBlocked(
        at=at(9),
        command_id="s1",
        step="discovery",
        reason="step 'discovery' is required and its completion criteria are not met",
        missing_criteria=["memory_facts: 2/3"],
    )


def test_a_signal_naming_a_later_step_cannot_skip_a_required_one(
    onboarding: WorkflowDefinition,
) -> None:
    state = given(STARTED, exchange(1, "greeting", 1), exchange(2, "greeting", 2))
    jump = Signal(action="complete_step", target_step="setup_complete")
    events = decide(
        state, SendSignal(command_id="s1", signal=jump), onboarding, at(3), report("greeting")
    )
    assert isinstance(events[-1], StepBlocked)
    assert events[-1].reason == "required step(s) cannot be skipped: discovery, brain_dump"
    assert fold(events, state).current_step == "greeting"  # type: ignore[union-attr]


def test_a_refused_skip_names_what_each_skipped_step_still_needs(
    onboarding: WorkflowDefinition,
) -> None:
    """Issue 3: the step_blocked event gives the missing criteria. The greeting's own are met
    here, so they are the skipped steps', none of which has run."""
    state = given(STARTED, exchange(1, "greeting", 1), exchange(2, "greeting", 2))
    jump = Signal(action="complete_step", target_step="setup_complete")
    events = decide(
        state, SendSignal(command_id="s1", signal=jump), onboarding, at(3), report("greeting")
    )
    assert isinstance(events[-1], StepBlocked)
    assert events[-1].missing_criteria == [
        "discovery: not done (min_messages 5, agent_signal, memory_facts)",
        "brain_dump: not done (min_messages 3, agent_signal, inbox_items)",
    ]


@pytest.mark.parametrize("action", ["stay", "need_input"])
def test_a_signal_that_stays_is_not_refused_for_the_step_it_names(
    onboarding: WorkflowDefinition, action: str
) -> None:
    """Only a completion goes where it points: a `stay` naming a later step moves nothing, so
    there is nothing to refuse (it was recorded as blocked, with criteria "not checked")."""
    state = given(STARTED, exchange(1, "greeting", 1))
    signal = Signal(action=action, target_step="setup_complete")  # type: ignore[arg-type]
    events = decide(state, SendSignal(command_id="s1", signal=signal), onboarding, at(2))
    assert [type(event) for event in events] == [SignalReceived]
    after = fold(events, state)
    assert after is not None and after.outcomes["s1"] == "stayed"


def test_at_max_messages_a_stay_naming_a_later_step_moves_to_the_next_one(
    onboarding: WorkflowDefinition,
) -> None:
    state = given(STARTED, *[exchange(i, "greeting", i) for i in range(1, 10)])
    signal = Signal(action="stay", target_step="setup_complete")
    command = RecordExchange(command_id="c10", signal=signal)
    events = decide(state, command, onboarding, at(10), report("greeting"))
    assert isinstance(events[-1], StepChanged)
    assert (events[-1].current_step, events[-1].forced) == ("discovery", True)


def test_at_max_messages_a_skip_attempt_still_forces_the_move_to_the_next_step(
    onboarding: WorkflowDefinition,
) -> None:
    """Seed 001: max_messages moves on whatever the agent signals, so a refused skip cannot
    hold the step past its limit; it moves to its own next step, never to the named one."""
    state = given(STARTED, *[exchange(i, "greeting", i) for i in range(1, 10)])
    jump = Signal(action="complete_step", target_step="setup_complete")
    command = RecordExchange(command_id="c10", signal=jump)
    events = decide(state, command, onboarding, at(10), report("greeting"))
    assert events[-1] == StepChanged(
        at=at(10),
        command_id="c10",
        previous_step="greeting",
        current_step="discovery",
        forced=True,
        warning="max_messages (10) reached on 'greeting'; moved on",
    )


def test_max_messages_forces_the_transition_with_a_warning(onboarding: WorkflowDefinition) -> None:
    state = given(STARTED, *[exchange(i, "greeting", i) for i in range(1, 10)])
    checked = report("greeting", "agent_signal")
    events = decide(state, RecordExchange(command_id="c10"), onboarding, at(10), checked)
    assert events[-1] == StepChanged(
        at=at(10),
        command_id="c10",
        previous_step="greeting",
        current_step="discovery",
        forced=True,
        warning="max_messages (10) reached on 'greeting'; moved on",
        missing_criteria=["agent_signal"],
    )
    after = fold(events, state)
    assert after is not None and after.step_data["greeting"]["forced"] is True


def test_signal_data_merges_into_step_data_and_shared(onboarding: WorkflowDefinition) -> None:
    state = given(STARTED)
    signal = Signal(action="stay", data={"user_name": "Alex"}, shared={"language": "ru"})
    after = fold(
        decide(state, RecordExchange(command_id="c1", signal=signal), onboarding, at(1)), state
    )
    assert after is not None
    assert after.step_data["greeting"]["user_name"] == "Alex"
    assert after.shared == {"language": "ru"}


@pytest.mark.parametrize("key", ["step", "data", "values"])
def test_signal_data_may_use_any_key_the_service_does_not_keep(
    onboarding: WorkflowDefinition, key: str
) -> None:
    """`step` and `data` were also the names of the merge's own parameters: a signal with
    either key failed every fold of the instance's log (a 500, and a chat turn that could
    never be recorded)."""
    state = given(STARTED)
    signal = Signal(action="stay", data={key: "x"})
    events = decide(state, RecordExchange(command_id="c1", signal=signal), onboarding, at(1))
    after = fold(events, state)
    assert after is not None and after.step_data["greeting"][key] == "x"
    assert with_signal(state, signal).step_data["greeting"][key] == "x"


def test_the_same_command_twice_counts_once(onboarding: WorkflowDefinition) -> None:
    state = given(STARTED, exchange(1, "greeting", 1))
    assert decide(state, RecordExchange(command_id="c1"), onboarding, at(2)) == []


PATH = ["greeting", "discovery", "brain_dump", "setup_complete"]


def on_the_final_step() -> list[DomainEvent]:
    """An instance walked to its last step, one transition per step."""
    history: list[DomainEvent] = [STARTED]
    for n, (prev, nxt) in enumerate(itertools.pairwise(PATH), start=1):
        history.append(
            StepChanged(at=at(n), command_id=f"m{n}", previous_step=prev, current_step=nxt)
        )
    return history


def test_an_exchange_answered_on_a_step_left_since_is_kept_there_and_counts_toward_no_other(
    onboarding: WorkflowDefinition,
) -> None:
    # Another replica moved the instance on while this one's agent answered for brain_dump.
    # setup_complete takes at most one message: counted there, the inbox collector's answer
    # forced the final step and completed the whole onboarding.
    state = given(*on_the_final_step())
    before = state.step_data["brain_dump"].get("messages", 0)
    command = RecordExchange(
        command_id="late", signal=COMPLETE, user_text="и ещё", agent_text="ok",
        agent="inbox_collector", step="brain_dump",
    )  # fmt: skip
    assert not needs_criteria(state, command, onboarding)
    events = decide(state, command, onboarding, at(9), report("setup_complete"))
    assert events == [
        ExchangeRecorded(
            at=at(9), command_id="late", step="brain_dump", messages_in_step=before + 1,
            user_text="и ещё", agent_text="ok", agent="inbox_collector",
        )
    ]  # fmt: skip
    after = fold(events, state)
    assert after is not None
    assert (after.current_step, after.status, after.messages_in_step) == (
        "setup_complete",
        "active",
        0,
    )
    assert after.step_data["brain_dump"]["messages"] == before + 1
    assert after.outcomes["late"] == "stayed"


def test_an_exchange_naming_the_current_step_is_an_ordinary_one(
    onboarding: WorkflowDefinition,
) -> None:
    state = given(STARTED)
    command = RecordExchange(command_id="c1", step="greeting")
    assert decide(state, command, onboarding, at(1)) == [
        ExchangeRecorded(at=at(1), command_id="c1", step="greeting", messages_in_step=1)
    ]


def test_closing_the_final_step_completes_the_instance(onboarding: WorkflowDefinition) -> None:
    state = given(*on_the_final_step())
    command = RecordExchange(command_id="last", signal=COMPLETE)
    events = decide(state, command, onboarding, at(9), report("setup_complete"))
    assert events[-1] == InstanceCompleted(
        at=at(9),
        command_id="last",
        final_step="setup_complete",
        summary={"steps_completed": PATH, "forced": False},
    )
    done = fold(events, state)
    assert done is not None and done.status == "completed"
    with pytest.raises(InstanceNotActive):
        decide(done, SendSignal(command_id="late", signal=COMPLETE), onboarding, at(10))


def test_a_step_needing_one_message_says_one_message(onboarding: WorkflowDefinition) -> None:
    # setup_complete is 1/1: a manual signal before its one exchange is held back, in words
    # a person reads ("1 message", not "1 messages").
    state = given(*on_the_final_step())
    command = SendSignal(command_id="early", signal=COMPLETE)
    events = decide(state, command, onboarding, at(9), report("setup_complete"))
    blocked = events[-1]
    assert isinstance(blocked, StepBlocked)
    assert blocked.reason == "step 'setup_complete' needs at least 1 message (has 0)"


def test_max_messages_on_the_final_step_completes_with_a_warning(
    onboarding: WorkflowDefinition,
) -> None:
    state = given(*on_the_final_step())
    checked = report("setup_complete", "agent_signal")
    events = decide(state, RecordExchange(command_id="last"), onboarding, at(9), checked)
    assert events[-1] == InstanceCompleted(
        at=at(9),
        command_id="last",
        final_step="setup_complete",
        forced=True,
        warning="max_messages (1) reached on 'setup_complete'; the workflow completed",
        missing_criteria=["agent_signal"],
        summary={"steps_completed": PATH, "forced": True},
    )
    done = fold(events, state)
    assert done is not None and done.status == "completed"
    assert done.step_data["setup_complete"]["warning"] == events[-1].warning  # type: ignore[union-attr]


def test_unknown_target_step_is_refused_by_name(onboarding: WorkflowDefinition) -> None:
    state = given(STARTED)
    signal = Signal(action="complete_step", target_step="nowhere")
    with pytest.raises(UnknownStep, match="signal.target_step.*'nowhere'"):
        decide(state, SendSignal(command_id="s", signal=signal), onboarding, at(1))


def test_progress_counts_steps_before_the_final_one(onboarding: WorkflowDefinition) -> None:
    state = given(
        STARTED,
        StepChanged(at=at(1), command_id="m", previous_step="greeting", current_step="discovery"),
    )
    assert progress(state, onboarding) == pytest.approx(1 / 3, abs=1e-3)
    assert progress(given(STARTED), onboarding) == 0.0


def test_criteria_are_needed_only_when_the_step_could_move(onboarding: WorkflowDefinition) -> None:
    state = given(STARTED)
    assert not needs_criteria(state, RecordExchange(command_id="a"), onboarding)
    assert needs_criteria(state, RecordExchange(command_id="a", signal=COMPLETE), onboarding)


OPTIONAL = WorkflowDefinition.model_validate(
    {
        "id": "intake",
        "steps": [
            {"id": "hello", "agent_slug": "a", "next_step": "survey"},
            {
                "id": "survey",
                "agent_slug": "a",
                "is_required": False,
                "min_messages": 2,
                "completion_criteria": [{"checker": "agent_signal"}, {"checker": "memory_facts"}],
                "next_step": "wrap",
            },
            {"id": "wrap", "agent_slug": "a"},
        ],
    }
)
ON_SURVEY = InstanceStarted(
    at=at(0), instance_id="i-2", workflow_id="intake", user_id="alice", first_step="survey"
)


def test_a_signal_naming_a_later_step_skips_an_optional_one() -> None:
    state = given(ON_SURVEY.model_copy(update={"first_step": "hello"}))
    jump = Signal(action="complete_step", target_step="wrap")
    events = decide(state, SendSignal(command_id="s1", signal=jump), OPTIONAL, at(1))
    assert events[-1] == StepChanged(
        at=at(1), command_id="s1", previous_step="hello", current_step="wrap"
    )


def test_an_optional_step_closes_on_the_signal_with_its_criteria_unmet() -> None:
    state = given(ON_SURVEY)
    unmet = report("survey", "memory_facts", memory_facts=(0, 1))
    events = decide(state, SendSignal(command_id="s1", signal=COMPLETE), OPTIONAL, at(1), unmet)
    assert events[-1] == StepChanged(
        at=at(1), command_id="s1", previous_step="survey", current_step="wrap"
    )


OPTIONAL_THEN_REQUIRED = WorkflowDefinition.model_validate(
    {
        "id": "intake",
        "steps": [
            {
                "id": "survey",
                "agent_slug": "a",
                "is_required": False,
                "min_messages": 2,
                "completion_criteria": [{"checker": "agent_signal"}, {"checker": "memory_facts"}],
                "next_step": "notes",
            },
            {"id": "notes", "agent_slug": "a", "min_messages": 1, "next_step": "wrap"},
            {"id": "wrap", "agent_slug": "a"},
        ],
    }
)


def test_a_skip_refused_on_an_optional_step_names_only_the_skipped_steps_needs() -> None:
    # survey closes on the signal alone: its min_messages and memory_facts are not what holds
    # the jump to wrap back, notes is; naming them sent a client after messages it need not send.
    state = given(ON_SURVEY)
    unmet = report("survey", "memory_facts", memory_facts=(0, 1))
    jump = Signal(action="complete_step", target_step="wrap")
    events = decide(
        state, SendSignal(command_id="s1", signal=jump), OPTIONAL_THEN_REQUIRED, at(1), unmet
    )
    assert events[-1] == StepBlocked(
        at=at(1),
        command_id="s1",
        step="survey",
        reason="required step(s) cannot be skipped: notes",
        missing_criteria=["notes: not done (min_messages 1)"],
    )
