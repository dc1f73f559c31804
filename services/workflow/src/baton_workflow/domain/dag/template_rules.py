"""The rules on the templates and conditions of a definition, and the env keys they read.

`TEMPLATE_FIELDS` are the step fields that may hold `{{...}}` templates. `TemplateRules` is
mixed into the definition checker of `validation`, which sets the attributes it declares: each
reference must name a declared variable, an existing step or an allowed env key, and a field
with a fixed vocabulary (`permissionMode`) must hold one of its words unless it is a template,
which can only be checked once rendered. A `{{` that opens no template is no problem (it is
kept as text) but a warning, in `warnings`. `env_keys` lists the `{{env.KEY}}` keys a
definition reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from baton_contracts.agent_api import (
    MAX_TASK_AGENT_CHARS,
    MAX_TASK_MODEL_CHARS,
    MAX_TASK_PROVIDER_CHARS,
    PERMISSION_MODES,
    TASK_AGENT_PATTERN,
)
from baton_contracts.storable import key_path
from baton_workflow.domain.dag.condition_tokens import ConditionError
from baton_workflow.domain.dag.conditions import parse_condition
from baton_workflow.domain.dag.definition import AGENT_TYPES, Step, WorkflowDefinition
from baton_workflow.domain.dag.filled_limits import default_problems
from baton_workflow.domain.dag.problems import Problem, did_you_mean
from baton_workflow.domain.dag.templates import (
    EnvRef,
    Reference,
    StepRef,
    TemplateError,
    VariableRef,
    channel_hint_problem,
    scan_references,
    scan_template,
    unclosed_warning,
)

TEMPLATE_FIELDS = (
    ("prompt", "prompt"),
    ("agent", "agent"),
    ("model", "model"),
    ("provider", "provider"),
    ("permission_mode", "permissionMode"),
    ("notify_msg", "notifyMsg"),
    ("notify_to", "notifyTo"),
)

TASK_FIELD_LIMITS = (
    ("agent", "agent", MAX_TASK_AGENT_CHARS),
    ("model", "model", MAX_TASK_MODEL_CHARS),
    ("provider", "provider", MAX_TASK_PROVIDER_CHARS),
)
"""The fields an agent step hands its agent, and the longest each `agent.cmd.task` takes."""
TASK_AGENT = re.compile(TASK_AGENT_PATTERN)  # always fullmatch: "$" takes a final newline


class TemplateRules:
    """The checks on templates and `if` conditions (mixed into the definition checker)."""

    definition: WorkflowDefinition
    all_ids: set[str]
    env_allowlist: frozenset[str]
    stored: bool
    warnings: list[Problem]

    def templates(self, step: Step, path: str) -> Iterator[Problem]:
        for key, alias in TEMPLATE_FIELDS:
            yield from self.template(f"{path}.{alias}", getattr(step, key))
        if step.type in AGENT_TYPES:  # elsewhere the field itself is refused
            yield from self.permission_mode(f"{path}.permissionMode", step.permission_mode)
            yield from self.task_fields(step, path)
        yield from self.channel_hint(step, path)
        for index, arg in enumerate(step.skill_args):
            yield from self.template(f"{path}.skillArgs[{index}]", arg)
        for name, value in step.tool_input.items():
            yield from self.template(key_path(f"{path}.toolInput", name), value)
        if step.if_:
            yield from self.condition(f"{path}.if", step.if_)
        if not self.stored:  # a stored version still starts; its run's variables are checked
            yield from default_problems(step, path, self.definition.variables)

    def template(self, path: str, text: str | None) -> Iterator[Problem]:
        if not text:
            return
        scan = scan_template(text)
        if scan.unclosed is not None:
            self.warnings.append(Problem(path, unclosed_warning(scan.unclosed)))
        for found in scan.found:
            if isinstance(found, TemplateError):
                yield Problem(path, found.message)
            else:
                yield from self.reference(path, found)

    def permission_mode(self, path: str, mode: str | None) -> Iterator[Problem]:
        # A template is checked by the agent-runner once rendered; "" renders as no mode, the
        # default. A version stored before this rule ran until the agent-runner refused the
        # mode, and still does: an upgrade must not stop it.
        if not mode or self.stored or scan_references(mode) or mode in PERMISSION_MODES:
            return
        yield Problem(
            path,
            f'unknown mode "{mode}"{did_you_mean(mode, PERMISSION_MODES)}; '
            f"known: {', '.join(PERMISSION_MODES)}",
        )

    def task_fields(self, step: Step, path: str) -> Iterator[Problem]:
        # Every run of a step whose agent, model or provider the task cannot carry failed when
        # it asked its agent; a template is checked once rendered, and a stored version still
        # starts (its runs fail as they did), as with permission_mode.
        if self.stored:
            return
        for key, alias, limit in TASK_FIELD_LIMITS:
            value = getattr(step, key)
            if not value or scan_references(value):
                continue
            if len(value) > limit:
                yield Problem(
                    f"{path}.{alias}",
                    f"has {len(value):,} characters; an agent takes at most {limit}",
                )
            elif key == "agent" and not TASK_AGENT.fullmatch(value):
                yield Problem(
                    f"{path}.agent", "an agent is named by letters, digits, '-' or '_' only"
                )

    def channel_hint(self, step: Step, path: str) -> Iterator[Problem]:
        # A template is checked once rendered (the step fails then); a stored version still
        # starts, as with task_fields.
        hint = step.notify_to
        if self.stored or not hint or scan_references(hint):
            return
        problem = channel_hint_problem(hint)
        if problem is not None:
            yield Problem(f"{path}.notifyTo", problem)

    def condition(self, path: str, text: str) -> Iterator[Problem]:
        try:
            parsed = parse_condition(text)
        except ConditionError as exc:
            yield Problem(path, str(exc))
            return
        if parsed.unclosed is not None:
            self.warnings.append(Problem(path, unclosed_warning(parsed.unclosed)))
        for ref in parsed.references:
            yield from self.reference(path, ref)

    def reference(self, path: str, ref: Reference) -> Iterator[Problem]:
        if isinstance(ref, VariableRef) and ref.name not in self.definition.variables:
            hint = did_you_mean(ref.name, self.definition.variables)
            yield Problem(path, f'unknown variable "{ref.name}"{hint}; declare it in variables')
        elif isinstance(ref, StepRef) and ref.step_id not in self.all_ids:
            hint = did_you_mean(ref.step_id, self.all_ids)
            yield Problem(
                path,
                f'unknown step "{ref.step_id}" in {{{{steps.{ref.step_id}.{ref.field}}}}}{hint}',
            )
        elif isinstance(ref, EnvRef) and ref.key not in self.env_allowlist:
            allowed = ", ".join(sorted(self.env_allowlist)) or "none"
            yield Problem(
                path, f"{{{{env.{ref.key}}}}} is not on the env allow-list (allowed: {allowed})"
            )


def env_keys(definition: WorkflowDefinition) -> frozenset[str]:
    """The `{{env.KEY}}` keys a definition reads: the values a caller passes to `start_run`."""
    texts = [definition.on_success, definition.on_failure]
    for step in definition.all_steps():
        texts += [getattr(step, key) for key, _ in TEMPLATE_FIELDS]
        texts += [*step.skill_args, *step.tool_input.values(), step.if_]
    return frozenset(
        ref.key
        for text in texts
        if text
        for ref in scan_references(text)
        if isinstance(ref, EnvRef)
    )
