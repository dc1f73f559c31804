"""Every rule of seed 004 "Règles de Validation", plus Baton's own, reporting all problems at once.

`validate_definition` never stops at the first problem: each is a `Problem(path, message)` with
the JSON path of the field at fault (`steps[2].dependsOn[0]: unknown step "reserch"`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from baton_contracts.dag_api import MAX_WORKFLOW_NAME_CHARS
from baton_workflow.domain.dag.condition_tokens import ConditionError
from baton_workflow.domain.dag.conditions import parse_condition
from baton_workflow.domain.dag.definition import MAX_RETRY_BACKOFF, Step, WorkflowDefinition
from baton_workflow.domain.dag.durations import DurationError, parse_duration
from baton_workflow.domain.dag.graph import ancestors, find_cycles
from baton_workflow.domain.dag.problems import (
    InvalidVariables,
    Problem,
    did_you_mean,
    in_document_order,
)
from baton_workflow.domain.dag.templates import (
    EnvRef,
    Reference,
    StepRef,
    TemplateError,
    VariableRef,
    scan_references,
)

NAME = re.compile(r"[A-Za-z0-9_-]+")  # always fullmatch: "$" would let a final "\n" in
RESERVED_VARIABLES = frozenset({"steps", "env"})
REQUIRED_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "dispatch": (("prompt", "prompt"),),
    "skill": (("skill", "skill"),),
    "condition": (("if_", "if"), ("then", "then")),
    "handoff": (("handoff_from", "handoffFrom"), ("agent", "agent")),
    "tool_call": (("tool_name", "toolName"),),
    "delay": (("delay", "delay"),),
    "notify": (("notify_msg", "notifyMsg"),),
}
NOT_IN_PARALLEL = frozenset({"condition", "parallel"})
TEMPLATE_FIELDS = (
    ("prompt", "prompt"),
    ("agent", "agent"),
    ("model", "model"),
    ("provider", "provider"),
    ("permission_mode", "permissionMode"),
    ("notify_msg", "notifyMsg"),
    ("notify_to", "notifyTo"),
)


@dataclass(frozen=True, slots=True)
class _Located:
    step: Step
    path: str
    parent: Step | None


def validate_definition(
    definition: WorkflowDefinition, *, env_allowlist: Collection[str] = frozenset()
) -> list[Problem]:
    """Every problem of the definition; an empty list means it is valid.

    `env_allowlist` names the `{{env.KEY}}` keys a workflow may read (none by default).
    """
    checker = _Checker(definition, frozenset(env_allowlist))
    return in_document_order(checker.problems())


def resolve_variables(
    definition: WorkflowDefinition, overrides: Mapping[str, str], *, allow_extra: bool = False
) -> dict[str, str]:
    """Defaults merged with `overrides`; InvalidVariables for each unknown or missing one.

    A variable whose default is "" is required. Extra names are refused unless `allow_extra`
    (triggers add their own variables).
    """
    problems = [
        Problem(f"variables.{name}", f"unknown variable{_suggest(name, definition.variables)}")
        for name in overrides
        if name not in definition.variables and not allow_extra
    ]
    values = {**definition.variables, **overrides}
    problems += [
        Problem(f"variables.{name}", "required: it has no default, so the run must give a value")
        for name in definition.variables
        if values[name] == ""
    ]
    if problems:
        raise InvalidVariables(problems)
    return values


def _suggest(word: str, candidates: Collection[str]) -> str:
    hint = did_you_mean(word, candidates)
    if hint:
        return hint
    return f" (declared: {', '.join(sorted(candidates))})" if candidates else " (none declared)"


class _Checker:
    def __init__(self, definition: WorkflowDefinition, env_allowlist: frozenset[str]) -> None:
        self.definition = definition
        self.env_allowlist = env_allowlist
        self.located = list(_locate(definition))
        self.top_ids = {s.id for s in definition.steps if s.id}
        self.all_ids = {s.id for s in definition.all_steps() if s.id}

    def problems(self) -> Iterator[Problem]:
        yield from self.top_level()
        yield from self.duplicates()
        for item in self.located:
            yield from self.step(item)
        yield from self.cycles()

    def top_level(self) -> Iterator[Problem]:
        d = self.definition
        if not d.name:
            yield Problem("name", "required")
        elif not NAME.fullmatch(d.name):
            yield Problem("name", f'"{d.name}" may use only letters, digits, "-" and "_"')
        if len(d.name) > MAX_WORKFLOW_NAME_CHARS:
            yield Problem(
                "name", f"has {len(d.name)} characters; at most {MAX_WORKFLOW_NAME_CHARS} allowed"
            )
        if not d.steps:
            yield Problem("steps", "at least one step is required")
        for name in d.variables:
            if not NAME.fullmatch(name):
                yield Problem(f"variables.{name}", 'may use only letters, digits, "-" and "_"')
            elif name in RESERVED_VARIABLES:
                yield Problem(f"variables.{name}", f'"{name}" is reserved for {{{{{name}.…}}}}')
        yield from _duration("timeout", d.timeout, positive=True)
        yield from _not_negative("budget", d.budget)
        for key, alias in (("on_success", "onSuccess"), ("on_failure", "onFailure")):
            yield from self.template(alias, getattr(d, key))

    def duplicates(self) -> Iterator[Problem]:
        first: dict[str, str] = {}
        for item in self.located:
            step_id = item.step.id
            if step_id and step_id in first:
                yield Problem(
                    f"{item.path}.id", f'duplicate step id "{step_id}" (first at {first[step_id]})'
                )
            first.setdefault(step_id, item.path)

    def step(self, item: _Located) -> Iterator[Problem]:
        step, path = item.step, item.path
        if not step.id:
            yield Problem(f"{path}.id", "required")
        for key, alias in REQUIRED_FIELDS.get(step.type, ()):
            if not getattr(step, key):
                yield Problem(f"{path}.{alias}", f"required for a {step.type} step")
        if step.type == "parallel" and not step.parallel:
            yield Problem(f"{path}.parallel", "a parallel step needs at least one sub-step")
        if step.type == "parallel" and step.on_error == "retry":
            yield Problem(
                f"{path}.onError",
                '"retry" is not available on a parallel step; set onError on its sub-steps',
            )
        yield from self.placement(item)
        yield from self.numbers(step, path)
        yield from self.references(item)
        yield from self.templates(step, path)

    def placement(self, item: _Located) -> Iterator[Problem]:
        if item.parent is None:
            return
        if item.step.type in NOT_IN_PARALLEL:
            yield Problem(
                f"{item.path}.type", f"a {item.step.type} step cannot be inside a parallel step"
            )
        if item.step.depends_on:
            yield Problem(
                f"{item.path}.dependsOn",
                "sub-steps start together with their parallel step; "
                f'put dependsOn on "{item.parent.id}"',
            )

    def numbers(self, step: Step, path: str) -> Iterator[Problem]:
        yield from _duration(f"{path}.timeout", step.timeout, positive=True)
        yield from _duration(f"{path}.retryDelay", step.retry_delay)
        yield from _duration(f"{path}.delay", step.delay)
        yield from _not_negative(f"{path}.budget", step.budget)
        yield from _not_negative(f"{path}.retryMax", step.retry_max)
        if not 1 <= step.retry_backoff <= MAX_RETRY_BACKOFF:  # written so NaN fails too
            yield Problem(
                f"{path}.retryBackoff",
                f"must be from 1 to {MAX_RETRY_BACKOFF:g} "
                f"(1 keeps the delay constant; got {step.retry_backoff:g})",
            )

    def references(self, item: _Located) -> Iterator[Problem]:
        step, path = item.step, item.path
        if item.parent is None:
            for index, dep in enumerate(step.depends_on):
                yield from self.step_reference(f"{path}.dependsOn[{index}]", dep, step, "depend on")
        if step.type == "condition":
            for key, alias in (("then", "then"), ("else_", "else")):
                target = getattr(step, key)
                if target:
                    yield from self.step_reference(f"{path}.{alias}", target, step, "branch to")
        if step.type == "handoff" and step.handoff_from:
            yield from self.handoff_reference(item)

    def step_reference(self, path: str, target: str, step: Step, verb: str) -> Iterator[Problem]:
        if target == step.id:
            yield Problem(path, f"a step cannot {verb} itself")
        elif target in self.definition.parents:
            parent = self.definition.parents[target]
            yield Problem(
                path, f'"{target}" is a sub-step of parallel step "{parent}"; use "{parent}"'
            )
        elif target not in self.top_ids:
            yield Problem(path, f'unknown step "{target}"{did_you_mean(target, self.top_ids)}')

    def handoff_reference(self, item: _Located) -> Iterator[Problem]:
        source = item.step.handoff_from or ""
        path = f"{item.path}.handoffFrom"
        if source == item.step.id:
            yield Problem(path, "a step cannot hand off from itself")
        elif source not in self.all_ids:
            yield Problem(path, f'unknown step "{source}"{did_you_mean(source, self.all_ids)}')
        elif source not in self.finished_before(item):
            yield Problem(
                path,
                f'"{source}" must finish before this step (its output may not exist yet); '
                "add it to dependsOn, directly or through another step",
            )

    def finished_before(self, item: _Located) -> set[str]:
        """Steps certain to have finished when this one starts: ancestors and their sub-steps."""
        start = item.parent.id if item.parent is not None else item.step.id
        before = ancestors(self.definition, start)
        return before | {sub.id for a in before for sub in self.definition.step(a).parallel}

    def templates(self, step: Step, path: str) -> Iterator[Problem]:
        for key, alias in TEMPLATE_FIELDS:
            yield from self.template(f"{path}.{alias}", getattr(step, key))
        for index, arg in enumerate(step.skill_args):
            yield from self.template(f"{path}.skillArgs[{index}]", arg)
        for name, value in step.tool_input.items():
            yield from self.template(f"{path}.toolInput.{name}", value)
        if step.if_:
            yield from self.condition(f"{path}.if", step.if_)

    def template(self, path: str, text: str | None) -> Iterator[Problem]:
        if not text:
            return
        for found in scan_references(text):
            if isinstance(found, TemplateError):
                yield Problem(path, found.message)
            else:
                yield from self.reference(path, found)

    def condition(self, path: str, text: str) -> Iterator[Problem]:
        try:
            references = parse_condition(text).references
        except ConditionError as exc:
            yield Problem(path, str(exc))
            return
        for ref in references:
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

    def cycles(self) -> Iterator[Problem]:
        for _, cycle in find_cycles(self.definition):
            path = self.edge(cycle[0], cycle[1])
            yield Problem(path, f"dependency cycle {' -> '.join(cycle)}")

    def edge(self, waiter: str, waited: str) -> str:
        """The field that makes `waiter` wait for `waited`: a `dependsOn` entry of `waiter`, or
        the `then`/`else` of the condition `waited` that branches to it."""
        at: dict[str, tuple[int, Step]] = {}
        for index, step in enumerate(self.definition.steps):
            at.setdefault(step.id, (index, step))
        index, step = at[waiter]
        if waited in step.depends_on:
            return f"steps[{index}].dependsOn[{step.depends_on.index(waited)}]"
        index, condition = at[waited]
        return f"steps[{index}].{'then' if condition.then == waiter else 'else'}"


def _locate(definition: WorkflowDefinition) -> Iterator[_Located]:
    for index, step in enumerate(definition.steps):
        yield _Located(step, f"steps[{index}]", None)
        for sub_index, sub in enumerate(step.parallel):
            yield _Located(sub, f"steps[{index}].parallel[{sub_index}]", step)


def _duration(path: str, text: str | None, *, positive: bool = False) -> Iterator[Problem]:
    if text is None:
        return
    try:
        value = parse_duration(text)
    except DurationError as exc:
        yield Problem(path, str(exc))
        return
    if positive and not value:
        yield Problem(path, f'must be longer than zero (got "{text}")')


def _not_negative(path: str, value: float | None) -> Iterator[Problem]:
    if value is None:
        return
    if not math.isfinite(value):  # JSON's NaN would refuse every call, Infinity allow any
        yield Problem(path, f"must be a finite number (got {value})")
    elif value < 0:
        yield Problem(path, f"must be zero or more (got {value:g})")


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
