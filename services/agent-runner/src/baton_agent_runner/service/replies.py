"""How a turn's output becomes the reply the workflow applies: signal, usage and cost."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from baton_agent_runner.domain.output import AgentOutput, Signal
from baton_agent_runner.domain.profile import Profile
from baton_contracts.agent_api import AgentReply, TokenUsage
from baton_contracts.money import usd
from baton_contracts.workflow_api import WorkflowSignal

logger = logging.getLogger("baton.agent_runner")


def reply_of(
    profile: Profile,
    model: str,
    output: AgentOutput,
    usage: TokenUsage,
    step_data: Mapping[str, object] | None = None,
) -> AgentReply:
    """The reply of `profile`'s turn; no signal is a `stay` (seed 000's risks). `step_data`
    (the step's counters, `domain.step_counts`, and what the instance was told,
    `domain.told`) goes into the signal's data, over any the model wrote there."""
    signal = output.workflow_signal
    if signal is None:
        logger.warning("agent %s returned no workflow_signal; treating it as stay", profile.slug)
        signal = Signal()
    data = {**signal.data, **step_data} if step_data else signal.data
    cost = usd(
        (
            usage.input_tokens * profile.input_usd_per_mtok
            + usage.output_tokens * profile.output_usd_per_mtok
        )
        / 1_000_000
    )
    return AgentReply(
        message=output.message,
        step_completed=output.step_completed and signal.action == "complete_step",
        completion_reason=output.completion_reason,
        extracted_data=output.extracted_data,
        next_action=output.next_action,
        workflow_signal=WorkflowSignal(action=signal.action, data=data),
        usage=usage,
        cost_usd=cost,
        agent=profile.slug,
        model=model,
    )
