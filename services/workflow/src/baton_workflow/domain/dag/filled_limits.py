"""How long each templated step field may be once its templates are filled, and the checks
that hold it there before a run starts.

A field is filled just before its step starts, never past its limit (`Template.fill`): a short
template repeating a long value (`{{t}}` 20,000 times, a 25,000-character `t`) fills to
500,000,000 characters, which the workflow service built whole before the agent-runner's limit
refused it. What is known before then is checked earlier: at save, a field filled with the
variables' defaults (`default_problems`); at a run's start, with its variables and env values
(`run_problems`). A step's output, status or error counts as nothing there: a field that only
grows past its limit with them fails its step when it starts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from baton_contracts.agent_api import (
    MAX_PROMPT_CHARS,
    MAX_TASK_AGENT_CHARS,
    MAX_TASK_MODEL_CHARS,
    MAX_TASK_PERMISSION_MODE_CHARS,
    MAX_TASK_PROVIDER_CHARS,
)
from baton_contracts.storable import key_path
from baton_workflow.domain.dag.definition import AGENT_TYPES, Step, WorkflowDefinition
from baton_workflow.domain.dag.problems import Problem
from baton_workflow.domain.dag.templates import (
    MAX_FILLED_CHARS,
    MAX_NOTIFY_TO_CHARS,
    Template,
    TemplateError,
    VariableRef,
    parse_template,
)

AGENT_FIELDS = (
    ("prompt", "prompt", MAX_PROMPT_CHARS),
    ("agent", "agent", MAX_TASK_AGENT_CHARS),
    ("model", "model", MAX_TASK_MODEL_CHARS),
    ("provider", "provider", MAX_TASK_PROVIDER_CHARS),
    ("permission_mode", "permissionMode", MAX_TASK_PERMISSION_MODE_CHARS),
)
"""An agent step's templated fields, with the longest each the agent-runner's task takes."""

CHECKED_AS_WRITTEN = frozenset({"agent", "model", "provider", "permissionMode", "notifyTo"})
"""Fields whose text, when it holds no template, other rules check already (`template_rules`)."""


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
            yield Bounded(key_path("toolInput", name), value, MAX_FILLED_CHARS, "a tool input")


def default_problems(step: Step, path: str, variables: Mapping[str, str]) -> Iterator[Problem]:
    """The fields of `step` (at `path`) that fill past their limits with the variables'
    defaults: every run that keeps them would fail the step."""
    for field in bounded_fields(step):
        template = _parsed(field.template)
        if template is None or (not template.references and field.name in CHECKED_AS_WRITTEN):
            continue
        length = template.known_length(variables, {})
        if length <= field.limit:
            continue
        filled = " with its variables at their defaults" if template.references else ""
        yield Problem(
            f"{path}.{field.name}",
            f"has {length:,} characters{filled}; {field.taker} takes at most {field.limit:,}",
        )


def run_problems(
    definition: WorkflowDefinition,
    values: Mapping[str, str],
    given: Mapping[str, str],
    env: Mapping[str, str],
) -> list[Problem]:
    """The fields a run's variables (`values`, of which `given` came with the request) and env
    values fill past their limits, each named by the given variable that adds the most to it,
    or by the field when none does (a stored version's defaults, an env value)."""
    problems: list[Problem] = []
    for path, step in _located(definition):
        for field in bounded_fields(step):
            template = _parsed(field.template)
            if template is None:
                continue
            length = template.known_length(values, env)
            if length <= field.limit:
                continue
            where, culprit = f"{path}.{field.name}", _largest_given(template, values, given)
            if culprit is None:
                message = f"{field.too_long(length)} (filled with this run's variables)"
                problems.append(Problem(where, message))
                continue
            problems.append(
                Problem(
                    f"variables.{culprit}",
                    f"fills {where} to {length:,} characters; "
                    f"{field.taker} takes at most {field.limit:,}",
                )
            )
    return problems


def _largest_given(
    template: Template, values: Mapping[str, str], given: Mapping[str, str]
) -> str | None:
    """The variable given to the run that adds the most characters to the template."""
    added: dict[str, int] = {}
    for ref in template.references:
        if isinstance(ref, VariableRef) and ref.name in given:
            added[ref.name] = added.get(ref.name, 0) + len(values.get(ref.name, ""))
    return max(added, key=lambda name: added[name], default=None)


def _parsed(text: str) -> Template | None:
    """The parsed template, or None when it is malformed (validation reports that)."""
    try:
        return parse_template(text)
    except TemplateError:
        return None


def _located(definition: WorkflowDefinition) -> Iterator[tuple[str, Step]]:
    for index, step in enumerate(definition.steps):
        yield f"steps[{index}]", step
        for sub_index, sub in enumerate(step.parallel):
            yield f"steps[{index}].parallel[{sub_index}]", sub
