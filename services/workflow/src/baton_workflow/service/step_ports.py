"""What a DAG run needs to perform `tool_call` and `skill` steps, as roles.

The executor renders a step's templates first, then calls `Tools.call` or `Skills.run`. The
result's `output` becomes `{{steps.ID.output}}`; a `StepActionFailed` (or a subclass) fails
the step and its message becomes `{{steps.ID.error}}`, handled by the step's `onError`.
`check` serves the definition validator at create time: it sees static values only and
leaves values still holding a `{{...}}` template to be checked at run time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

TEMPLATE_MARK = "{{"


def is_templated(value: str) -> bool:
    """True when `value` still holds a `{{...}}` reference, so it is known only at run time."""
    return TEMPLATE_MARK in value


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned: `output` is the step's text output, `data` optional details."""

    output: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SkillResult:
    """What a skill returned: `output` is the step's text output, `data` optional details."""

    output: str
    data: Mapping[str, Any] = field(default_factory=dict)


class StepActionFailed(Exception):
    """A tool or skill failed; the message is one line and becomes `{{steps.ID.error}}`."""

    def __init__(self, message: str) -> None:
        self.message = " ".join(message.split())
        super().__init__(self.message)


class StepTimedOut(StepActionFailed):
    """A tool or skill gave no result within its timeout (step status `timeout`)."""


class UnknownTool(StepActionFailed):
    """No tool has that name; the message lists the known ones."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        super().__init__(f"unknown tool {name!r}; known tools: {', '.join(known) or 'none'}")


class UnknownSkill(StepActionFailed):
    """No skill has that name; the message lists the known ones."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        super().__init__(f"unknown skill {name!r}; known skills: {', '.join(known) or 'none'}")


class Tools(Protocol):
    """The tools `tool_call` steps may call, by name (`toolName` with `toolInput`)."""

    def names(self) -> list[str]:
        """Every tool name, sorted."""
        ...

    def check(self, name: str, inputs: Mapping[str, str]) -> list[str]:
        """Problems with a step's static `toolInput`: `toolName: ...` or `toolInput.KEY: ...`."""
        ...

    async def call(
        self, name: str, inputs: Mapping[str, str], *, timeout: float, idempotency_key: str = ""
    ) -> ToolResult:
        """Run a tool on rendered inputs; raises `StepActionFailed` (or `UnknownTool`).

        `idempotency_key` is the same for every run of one attempt of a step, a run after a
        crash included: a tool with side effects hands it on (http-request sends it as
        `Idempotency-Key`) so the other side can tell a repeat from a new request."""
        ...


class Skills(Protocol):
    """The skills `skill` steps may run, by name (`skill` with `skillArgs`)."""

    def names(self) -> list[str]:
        """Every skill name, sorted."""
        ...

    def check(self, name: str, args: Sequence[str]) -> list[str]:
        """Problems with a step's static `skillArgs`, each `skill: ...` or `skillArgs[i]: ...`."""
        ...

    async def run(self, name: str, args: Sequence[str], *, timeout: float) -> SkillResult:
        """Run a skill on rendered arguments; raises `StepActionFailed` (or `UnknownSkill`)."""
        ...
