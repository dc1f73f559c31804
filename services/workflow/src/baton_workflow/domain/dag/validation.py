"""Every rule of seed 004 "Règles de Validation", plus Baton's own, reporting all problems at once.

`validate_definition` never stops at the first problem: each is a `Problem(path, message)` with
the JSON path of the field at fault (`steps[2].dependsOn[0]: unknown step "reserch"`).

This module holds the rules on the document's own fields (name, variables, required fields,
placement, numbers and durations) and the checker that runs them all; the rules on how steps
name each other are in `link_rules`, those on templates and conditions in `template_rules`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from baton_contracts.dag_api import MAX_WORKFLOW_NAME_CHARS
from baton_contracts.storable import key_path
from baton_workflow.domain.dag.definition import (
    MAX_RETRY_BACKOFF,
    MAX_RETRY_MAX,
    Step,
    WorkflowDefinition,
)
from baton_workflow.domain.dag.durations import DurationError, parse_duration
from baton_workflow.domain.dag.link_rules import LinkRules, Located
from baton_workflow.domain.dag.problems import (
    InvalidVariables,
    Problem,
    did_you_mean,
    in_document_order,
)
from baton_workflow.domain.dag.template_rules import TemplateRules

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
_AGENT = ("dispatch", "handoff")
FIELD_OWNERS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("agent", "prompt", "model", "provider", "budget", "permissionMode"), _AGENT),
    **dict.fromkeys(("skill", "skillArgs"), ("skill",)),
    **dict.fromkeys(("if", "then", "else"), ("condition",)),
    "handoffFrom": ("handoff",),
    "parallel": ("parallel",),
    **dict.fromkeys(("toolName", "toolInput"), ("tool_call",)),
    "delay": ("delay",),
    **dict.fromkeys(("notifyMsg", "notifyTo"), ("notify",)),
}
"""The step types that use a field; the others (id, type, dependsOn, timeout, onError, the
retry fields) every type takes. Elsewhere a field was ignored: sub-steps under a notify step
never ran and the run waited for them forever, a dispatch's handoffFrom was never checked."""
BREAK_A_RUN = frozenset({"parallel", "handoffFrom"})
"""The fields of another type that break a run, not merely go unread: refused in a version
stored before the rule too, when a run of it starts."""


def validate_definition(
    definition: WorkflowDefinition,
    *,
    env_allowlist: Collection[str] = frozenset(),
    stored: bool = False,
) -> list[Problem]:
    """Every problem of the definition; an empty list means it is valid (see `check_definition`,
    which adds the warnings)."""
    return check_definition(definition, env_allowlist=env_allowlist, stored=stored).problems


@dataclass(frozen=True, slots=True)
class Findings:
    """What checking a definition found, each list in document order: `problems` refuse it,
    `warnings` do not (a `{{` that opens no template, kept as text)."""

    problems: list[Problem]
    warnings: list[Problem]


def check_definition(
    definition: WorkflowDefinition,
    *,
    env_allowlist: Collection[str] = frozenset(),
    stored: bool = False,
) -> Findings:
    """Every problem of the definition, and its warnings, in one pass over its fields.

    `env_allowlist` names the `{{env.KEY}}` keys a workflow may read (none by default).
    `stored`: a version saved before, checked again to start a run. A field of another step
    type (`FIELD_OWNERS`) is then a problem only when it breaks the run (`BREAK_A_RUN`):
    versions saved before that rule ran with the others ignored, and an upgrade must not stop
    them (a new save is held to the whole rule). So are a step id no template can name and an
    unknown permission mode (the agent-runner refuses it when the step runs, as it did).
    """
    checker = _Checker(definition, frozenset(env_allowlist), stored)
    problems = in_document_order(checker.problems())  # every rule has run: so have the warnings
    return Findings(problems, in_document_order(checker.warnings))


def _variable(name: str) -> str:
    """The path of variable `name`: `variables.topic`, `variables[""]` for an empty name."""
    return key_path("variables", name)


def resolve_variables(
    definition: WorkflowDefinition, overrides: Mapping[str, str], *, allow_extra: bool = False
) -> dict[str, str]:
    """Defaults merged with `overrides`; InvalidVariables for each unknown or missing one.

    A variable whose default is "" is required. Extra names are refused unless `allow_extra`
    (triggers add their own variables).
    """
    problems = [
        Problem(_variable(name), f"unknown variable{_suggest(name, definition.variables)}")
        for name in overrides
        if name not in definition.variables and not allow_extra
    ]
    values = {**definition.variables, **overrides}
    problems += [
        Problem(_variable(name), _empty(definition.variables[name]))
        for name in definition.variables
        if values[name] == ""
    ]
    if problems:
        raise InvalidVariables(problems)
    return values


def _empty(default: str) -> str:
    """Why a variable's empty value is refused: a run never starts with one empty."""
    if default == "":
        return "required: it has no default, so the run must give a value"
    return f"cannot be empty: leave it out to run with its default {default!r}"


def _suggest(word: str, candidates: Collection[str]) -> str:
    hint = did_you_mean(word, candidates)
    if hint:
        return hint
    return f" (declared: {', '.join(sorted(candidates))})" if candidates else " (none declared)"


class _Checker(LinkRules, TemplateRules):
    def __init__(
        self, definition: WorkflowDefinition, env_allowlist: frozenset[str], stored: bool
    ) -> None:
        self.definition = definition
        self.env_allowlist = env_allowlist
        self.stored = stored
        self.warnings: list[Problem] = []
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
                yield Problem(_variable(name), 'may use only letters, digits, "-" and "_"')
            elif name in RESERVED_VARIABLES:
                yield Problem(_variable(name), f'"{name}" is reserved for {{{{{name}.…}}}}')
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

    def step(self, item: Located) -> Iterator[Problem]:
        step, path = item.step, item.path
        if not step.id:
            yield Problem(f"{path}.id", "required")
        elif not self.stored and (problem := step_id_problem(step.id)):
            yield Problem(f"{path}.id", problem)
        for key, alias in REQUIRED_FIELDS.get(step.type, ()):
            if not getattr(step, key):
                yield Problem(f"{path}.{alias}", f"required for a {step.type} step")
        yield from _foreign_fields(step, path, BREAK_A_RUN if self.stored else None)
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

    def placement(self, item: Located) -> Iterator[Problem]:
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
        if step.retry_max > MAX_RETRY_MAX:
            given = _short(step.retry_max)
            yield Problem(f"{path}.retryMax", f"must be at most {MAX_RETRY_MAX} (got {given})")
        if not 1 <= step.retry_backoff <= MAX_RETRY_BACKOFF:  # written so NaN fails too
            yield Problem(
                f"{path}.retryBackoff",
                f"must be from 1 to {MAX_RETRY_BACKOFF:g} "
                f"(1 keeps the delay constant; got {step.retry_backoff:g})",
            )


MAX_STEP_ID_CHARS = 128
_STEP_ID = re.compile(r"[^\s{}\x00-\x1f\x7f]+")


def step_id_problem(step_id: str) -> str | None:
    """Why a step id cannot be one (**Baton**; the seed only asks for one): it must be usable
    in `{{steps.ID.output}}` and print on one line. A version stored before this rule still
    runs (`stored`)."""
    if len(step_id) > MAX_STEP_ID_CHARS:
        return f"{len(step_id):,} characters; a step id has at most {MAX_STEP_ID_CHARS}"
    if not _STEP_ID.fullmatch(step_id):
        return (
            f"{step_id[:40]!r} cannot be named in a template ({{{{steps.ID.output}}}}): "
            "no spaces, line breaks, control characters or braces"
        )
    return None


def _foreign_fields(step: Step, path: str, only: frozenset[str] | None) -> Iterator[Problem]:
    """A field that only other step types use (a missing or wrong `type`, most often); of
    those in `only` when it is given."""
    given = step.model_fields_set
    for name, declared in Step.model_fields.items():  # in the order of the seed's table
        if name not in given:
            continue
        alias = declared.alias or name
        if only is not None and alias not in only:
            continue
        owners = FIELD_OWNERS.get(alias, (step.type,))
        if step.type not in owners:
            fix = f'set "type": "{owners[0]}", or remove it' if len(owners) == 1 else "remove it"
            yield Problem(
                f"{path}.{alias}",
                f"only {' and '.join(owners)} steps take {alias}; "
                f"this is a {step.type} step ({fix})",
            )


def _locate(definition: WorkflowDefinition) -> Iterator[Located]:
    for index, step in enumerate(definition.steps):
        yield Located(step, f"steps[{index}]", None)
        for sub_index, sub in enumerate(step.parallel):
            yield Located(sub, f"steps[{index}].parallel[{sub_index}]", step)


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
    # An int is always finite, and may be too big for a float (math.isfinite raised on it).
    if isinstance(value, float) and not math.isfinite(value):
        # JSON's NaN would refuse every call, Infinity allow any
        yield Problem(path, f"must be a finite number (got {value})")
    elif value < 0:
        shown = _short(value) if isinstance(value, int) else f"{value:g}"
        yield Problem(path, f"must be zero or more (got {shown})")


def _short(number: int) -> str:
    """An integer as written, its middle cut out when it is long (it can have 4,300 digits)."""
    text = str(number)
    return text if len(text) <= 24 else f"{text[:10]}...{text[-10:]} ({len(text)} digits)"
