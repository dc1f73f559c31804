"""How long each templated step field may be once its templates are filled.

A field is filled just before its step starts, never past its limit (`Template.fill`): a short
template repeating a long value (`{{t}}` 20,000 times, a 25,000-character `t`) fills to
500,000,000 characters, which the workflow service built whole before the agent-runner's limit
refused it. Past its limit, a field fails its step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from baton_contracts.agent_api import (
    MAX_PROMPT_CHARS,
    MAX_TASK_AGENT_CHARS,
    MAX_TASK_MODEL_CHARS,
    MAX_TASK_PERMISSION_MODE_CHARS,
    MAX_TASK_PROVIDER_CHARS,
)
from baton_workflow.domain.dag.definition import AGENT_TYPES, Step
from baton_workflow.domain.dag.templates import MAX_FILLED_CHARS, MAX_NOTIFY_TO_CHARS

AGENT_FIELDS = (
    ("prompt", "prompt", MAX_PROMPT_CHARS),
    ("agent", "agent", MAX_TASK_AGENT_CHARS),
    ("model", "model", MAX_TASK_MODEL_CHARS),
    ("provider", "provider", MAX_TASK_PROVIDER_CHARS),
    ("permission_mode", "permissionMode", MAX_TASK_PERMISSION_MODE_CHARS),
)
"""An agent step's templated fields, with the longest each the agent-runner's task takes."""


@dataclass(frozen=True, slots=True)
class Bounded:
    """A templated field of a step (`name` as the author writes it: `toolInput.url`), its
    template and the longest it may be filled to, for `taker` (`an agent`)."""

    name: str
    template: str
    limit: int
    taker: str

    def too_long(self, length: int) -> str:
        """Why a text of `length` characters cannot go in this field."""
        return f"has {length:,} characters; {self.taker} takes at most {self.limit:,}"


def bounded_fields(step: Step) -> Iterator[Bounded]:
    """The templated fields a step of its type fills when it starts (a field of another type
    is never filled), each with its limit. `notifyMsg` has none: it is cut, not refused."""
    if step.type in AGENT_TYPES:
        for key, alias, limit in AGENT_FIELDS:
            value = getattr(step, key)
            if value is not None:
                yield Bounded(alias, value, limit, "an agent")
    elif step.type == "notify" and step.notify_to is not None:
        yield Bounded("notifyTo", step.notify_to, MAX_NOTIFY_TO_CHARS, "a channel hint")
    elif step.type == "skill":
        for index, arg in enumerate(step.skill_args):
            yield Bounded(f"skillArgs[{index}]", arg, MAX_FILLED_CHARS, "a skill argument")
    elif step.type == "tool_call":
        for name, value in step.tool_input.items():
            yield Bounded(f"toolInput.{name}", value, MAX_FILLED_CHARS, "a tool input")
