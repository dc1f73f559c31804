"""An agent's signal never rewrites the step's own record in `step_data`."""

from __future__ import annotations

from baton_workflow.domain.commands import Signal
from baton_workflow.domain.conversation import agent_signal
from baton_workflow.domain.definitions import WorkflowDefinition


def test_an_agents_signal_has_the_steps_own_keys_dropped(onboarding: WorkflowDefinition) -> None:
    """A model's answer is not refused (the user's turn would fail for it): what it may not
    set is left out, and the rest of its data merges."""
    signal = Signal(action="stay", data={"started_at": "x", "messages": 99, "user_name": "Alex"})
    assert agent_signal(signal, onboarding, "greeting").data == {"user_name": "Alex"}
