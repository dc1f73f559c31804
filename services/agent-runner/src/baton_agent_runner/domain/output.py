"""The structured output every agent returns: the model fills it, the service checks it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from baton_contracts.agent_api import CompletionReason, NextAction


class Signal(BaseModel):
    """Seed 000's `workflow_signal`: what the agent asks the workflow to do."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["complete_step", "stay", "need_input"] = "stay"
    data: dict[str, Any] = Field(default_factory=dict)


class AgentOutput(BaseModel):
    """Seed 001 component 7 plus the signal; `extracted_data` holds facts and inbox items."""

    model_config = ConfigDict(extra="forbid")

    message: str = Field(min_length=1)
    step_completed: bool = False
    completion_reason: CompletionReason | None = None
    extracted_data: dict[str, Any] = Field(default_factory=dict)
    next_action: NextAction = "continue"
    workflow_signal: Signal | None = None
