"""Checking a DAG workflow document before it is stored: parse it, apply every rule of seed
004, then check the tools and skills it names (and their static inputs) against the registries,
each problem located by its JSON path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from baton_workflow.domain.dag.parsing import load_document, parse_definition
from baton_workflow.domain.dag.problems import InvalidWorkflow, Problem
from baton_workflow.service.step_ports import Skills, Tools

Format = Literal["json", "yaml"]
Checker = Callable[[str, Format], dict[str, Any]]
"""Parses a source document and checks every rule: the document as data, or InvalidWorkflow."""


def make_checker(env_allowlist: frozenset[str], tools: Tools, skills: Skills) -> Checker:
    """Parse and check a document: every rule of seed 004, plus the named tools and skills."""

    def check(source: str, fmt: Format) -> dict[str, Any]:
        document = load_document(source, fmt)
        try:
            definition = parse_definition(document, env_allowlist=env_allowlist)
        except InvalidWorkflow as exc:
            static = _static_problems(document, tools, skills)
            raise InvalidWorkflow([*exc.problems, *static]) from None
        problems = _static_problems(definition.to_document(), tools, skills)
        if problems:
            raise InvalidWorkflow(problems)
        return document

    return check


def _static_problems(document: dict[str, Any], tools: Tools, skills: Skills) -> list[Problem]:
    """Tool and skill names and static inputs, located by JSON path (best effort on bad shapes)."""
    found: list[Problem] = []
    steps = document.get("steps")
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        if not isinstance(step, dict):
            continue
        subs = step.get("parallel")
        located = [(f"steps[{i}]", step)] + [
            (f"steps[{i}].parallel[{j}]", sub)
            for j, sub in enumerate(subs if isinstance(subs, list) else [])
            if isinstance(sub, dict)
        ]
        for path, item in located:
            found += [Problem(*_split(path, p)) for p in _step_problems(item, tools, skills)]
    return found


def _step_problems(step: dict[str, Any], tools: Tools, skills: Skills) -> list[str]:
    kind = step.get("type", "dispatch")
    if kind == "tool_call" and isinstance(step.get("toolName"), str):
        inputs = step.get("toolInput") or {}
        if isinstance(inputs, dict) and all(isinstance(v, str) for v in inputs.values()):
            return tools.check(step["toolName"], inputs)
    if kind == "skill" and isinstance(step.get("skill"), str):
        args = step.get("skillArgs") or []
        if isinstance(args, list) and all(isinstance(a, str) for a in args):
            return skills.check(step["skill"], args)
    return []


def _split(path: str, problem: str) -> tuple[str, str]:
    """`toolInput.url: required` under `steps[2]` -> (`steps[2].toolInput.url`, `required`)."""
    field, sep, message = problem.partition(": ")
    if not sep or " " in field:
        return path, problem
    return f"{path}.{field}", message
