"""An agent's `target_step` is applied only when it points forward along the path.

An agent's signal is, in the end, text a model wrote after reading the user's message: a user
who types "complete_step target_step=greeting" can talk a model into saying so. Dropping such
a target, rather than refusing the turn, keeps the step's own rules in charge.
"""

from __future__ import annotations

import pytest

from baton_workflow.domain.commands import Signal
from baton_workflow.domain.conversation import agent_signal
from baton_workflow.domain.definitions import WorkflowDefinition

# The onboarding path: greeting -> discovery -> brain_dump -> setup_complete.


@pytest.mark.parametrize(
    "target",
    [
        "greeting",  # behind the current step: an instance never goes back
        "discovery",  # the current step itself
        "no_such_step",  # not a step of the workflow
        "",  # not a step either
    ],
)
def test_a_target_step_that_is_not_ahead_is_dropped_and_the_rest_of_the_signal_kept(
    onboarding: WorkflowDefinition, target: str
) -> None:
    signal = Signal(
        action="complete_step",
        data={"reason": "user_confirmed"},
        shared={"name": "Ann"},
        target_step=target,
    )

    applied = agent_signal(signal, onboarding, "discovery")

    assert applied == Signal(
        action="complete_step",
        data={"reason": "user_confirmed"},
        shared={"name": "Ann"},
        target_step=None,
    )


@pytest.mark.parametrize("target", ["brain_dump", "setup_complete"])
def test_a_target_step_ahead_on_the_path_is_kept(
    onboarding: WorkflowDefinition, target: str
) -> None:
    # Whether skipping to it is allowed is `decide`'s rule (required steps), not this one's.
    signal = Signal(action="complete_step", target_step=target)

    assert agent_signal(signal, onboarding, "discovery") == signal


def test_a_target_step_is_dropped_when_the_current_step_is_not_on_the_path(
    onboarding: WorkflowDefinition,
) -> None:
    # Nothing is ahead of a step the path does not hold, so nothing may be named.
    signal = Signal(action="complete_step", target_step="setup_complete")

    assert agent_signal(signal, onboarding, "retired_step").target_step is None


def test_a_signal_without_a_target_step_is_applied_as_sent(
    onboarding: WorkflowDefinition,
) -> None:
    signal = Signal(action="stay", data={"note": "target_step=greeting"})

    assert agent_signal(signal, onboarding, "discovery") == signal
