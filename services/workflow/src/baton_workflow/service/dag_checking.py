"""Checking a DAG workflow document before it is stored: parse it, apply every rule of seed
004, then check the tools and skills it names (and their static inputs) against the registries,
and its steps' agents against the agent-runner's profiles, each problem located by its JSON path.

The parse and the registry checks run in a worker thread (`Checker`); the agents are asked for
on the event loop afterwards (`check_agents`), once per save, and only when the document has
an agent step (one naming no agent runs the default one).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator
from typing import Any, Literal, NamedTuple

from baton_contracts import RemoteError
from baton_contracts.agent_api import MAX_TASK_AGENT_CHARS
from baton_workflow.domain.dag.definition import AGENT_TYPES, DEFAULT_AGENT
from baton_workflow.domain.dag.parsing import load_document, read_definition
from baton_workflow.domain.dag.problems import InvalidWorkflow, Problem, did_you_mean, warning_lines
from baton_workflow.domain.dag.template_rules import TASK_AGENT
from baton_workflow.service.dag_ports import KnownAgents
from baton_workflow.service.step_ports import Skills, Tools

logger = logging.getLogger("baton.workflow")

Format = Literal["json", "yaml"]


class Checked(NamedTuple):
    """A document that passed every rule, as data, and its warnings as the reply lists them."""

    document: dict[str, Any]
    warnings: list[str]


Checker = Callable[[str, Format], Checked]
"""Parses a source document and checks every rule: the document and its warnings, or
InvalidWorkflow."""


class DocumentInvalid(InvalidWorkflow):
    """`InvalidWorkflow` of a document that loaded: `document` is it as data, so the problems
    checked after the parse (its agents) are reported with these."""

    def __init__(self, problems: list[Problem], document: dict[str, Any]) -> None:
        super().__init__(problems)
        self.document = document


def make_checker(env_allowlist: frozenset[str], tools: Tools, skills: Skills) -> Checker:
    """Parse and check a document: every rule of seed 004, plus the named tools and skills."""

    def check(source: str, fmt: Format) -> Checked:
        document = load_document(source, fmt)
        try:
            definition, warnings = read_definition(document, env_allowlist=env_allowlist)
        except InvalidWorkflow as exc:
            static = _static_problems(document, tools, skills)
            raise DocumentInvalid([*exc.problems, *static], document) from None
        problems = _static_problems(definition.to_document(), tools, skills)
        if problems:
            raise DocumentInvalid(problems, document)
        return Checked(document, warning_lines(warnings))

    return check


async def check_agents(
    known: KnownAgents | None, document: dict[str, Any]
) -> tuple[list[Problem], list[str]]:
    """The steps' agents that have no profile, as problems, and the warnings: when the
    agent-runner does not answer, the document goes on unchecked (a save must not depend on
    it being up; a step whose agent has no profile still fails when it runs)."""
    named = named_agents(document)
    if known is None or not named:
        return [], []
    try:
        slugs = await known.slugs()
    except RemoteError as exc:
        logger.warning(
            "workflow %r: its agents were not checked against the agent-runner's profiles: %s",
            document.get("name"),
            exc,
        )
        return [], [
            f"the agents were not checked: the agent-runner did not answer ({exc.body.message});"
            " a step whose agent has no profile fails when it runs"
        ]
    return agent_problems(named, slugs), []


class NamedAgent(NamedTuple):
    """An agent a step runs: at `path`; `implied` when the step names none (`DEFAULT_AGENT`)."""

    path: str
    agent: str
    implied: bool = False


def named_agents(document: dict[str, Any]) -> list[NamedAgent]:
    """The agent of each `dispatch` or `handoff` step (or sub-step) that the task rules take,
    the default one where a step names none. A template (its braces fail the pattern) is
    checked once rendered; a name too long or malformed is already refused by those rules
    (`TemplateRules.task_fields`)."""
    found: list[NamedAgent] = []
    for path, step in _located(document):
        kind, agent = step.get("type", "dispatch"), step.get("agent")
        if not isinstance(kind, str) or kind not in AGENT_TYPES:
            continue
        if agent is None or agent == "":
            found.append(NamedAgent(f"{path}.agent", DEFAULT_AGENT, implied=True))
        elif (
            isinstance(agent, str)
            and len(agent) <= MAX_TASK_AGENT_CHARS
            and TASK_AGENT.fullmatch(agent)
        ):
            found.append(NamedAgent(f"{path}.agent", agent))
    return found


def agent_problems(named: list[NamedAgent], known: Collection[str]) -> list[Problem]:
    """A problem for each agent that is not among `known`, with the closest one."""
    listed = ", ".join(sorted(known)) or "none"
    return [
        Problem(
            found.path,
            f'not given, so the step runs the agent "{found.agent}", which has no profile; '
            f"name one of: {listed}"
            if found.implied
            else f'no agent profile "{found.agent}"{did_you_mean(found.agent, known)}; '
            f"known: {listed}",
        )
        for found in named
        if found.agent not in known
    ]


def _located(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each step and `parallel` sub-step that is an object, with its path (best effort on
    bad shapes: a document that failed the parse is read as it is)."""
    steps = document.get("steps")
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        if not isinstance(step, dict):
            continue
        yield f"steps[{i}]", step
        subs = step.get("parallel")
        for j, sub in enumerate(subs if isinstance(subs, list) else []):
            if isinstance(sub, dict):
                yield f"steps[{i}].parallel[{j}]", sub


def _static_problems(document: dict[str, Any], tools: Tools, skills: Skills) -> list[Problem]:
    """Tool and skill names and static inputs, located by JSON path (best effort on bad shapes)."""
    return [
        Problem(*_split(path, p))
        for path, item in _located(document)
        for p in _step_problems(item, tools, skills)
    ]


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
