"""Seed 000 §5's counters of a step that collects facts: `questions_asked` and
`facts_collected`, which the agent adds to its signal's data so that the workflow context
shows them in the step's data ("step_data.discovery": {"questions_asked": 5,
"facts_collected": 2})."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baton_agent_runner.domain.extracted import dropped_facts_of, facts_of
from baton_agent_runner.domain.step_context import context_count

COLLECTS_FACTS = "memory_facts"
"""A step closed by this checker (seed 000's `memory_check`) collects facts: its turns carry
the counters."""
QUESTIONS_ASKED = "questions_asked"
FACTS_COLLECTED = "facts_collected"


def collects_facts(step_context: Mapping[str, Any]) -> bool:
    """Whether the workflow says the step closes on the user's facts (its `criteria`)."""
    criteria = step_context.get("criteria")
    return isinstance(criteria, list) and COLLECTS_FACTS in criteria


def questions_before(step_context: Mapping[str, Any], step: str) -> int:
    """The questions the step's earlier turns counted, as the workflow context holds them;
    0 when it holds none, or something that is no count."""
    workflow = step_context.get("workflow")
    step_data = workflow.get("step_data") if isinstance(workflow, dict) else None
    data = step_data.get(step) if isinstance(step_data, dict) else None
    counted = context_count(data, QUESTIONS_ASKED) if isinstance(data, dict) else None
    return counted if counted is not None and counted > 0 else 0


def asks(message: str) -> bool:
    """Whether a reply asks the user something: it has a question mark (full-width too)."""
    return "?" in message or "\uff1f" in message


def step_counts(
    step_context: Mapping[str, Any],
    step: str,
    message: str,
    facts_before: Mapping[str, str],
    extracted: dict[str, Any],
) -> dict[str, int]:
    """The counters after this turn: the step's questions so far, this reply's included, and
    the user's priority facts once the turn's own are written and the ones it drops are gone."""
    facts = {**facts_before, **facts_of(extracted)}
    for area in dropped_facts_of(extracted):
        facts.pop(area, None)
    return {
        QUESTIONS_ASKED: questions_before(step_context, step) + asks(message),
        FACTS_COLLECTED: len(facts),
    }
