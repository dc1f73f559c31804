"""Which of the user's facts and notes were told in this workflow instance: memory outlives an
instance, so a user who starts the onboarding again has the earlier run's facts from the start,
and discovery's summary must not show them as if said now. Each turn that keeps facts or notes
adds their keys to its step's data (`facts_told`, `notes_told`), which the workflow hands back
with every later turn of the instance: no store is read to tell them apart."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from baton_agent_runner.domain.extracted import facts_of, notes_of

FACTS_TOLD = "facts_told"
"""The step data key of the areas whose `priorities` facts the instance's turns kept."""
NOTES_TOLD = "notes_told"
"""The step data key of the notes (`situation` facts) the instance's turns kept."""


def told(step_context: Mapping[str, Any], key: str) -> set[str]:
    """The keys the instance's turns so far recorded under `key`, in any step's data; what is
    not a list of strings there is left out."""
    workflow = step_context.get("workflow")
    step_data = workflow.get("step_data") if isinstance(workflow, dict) else None
    found: set[str] = set()
    for data in step_data.values() if isinstance(step_data, dict) else ():
        kept = data.get(key) if isinstance(data, dict) else None
        if isinstance(kept, list):
            found.update(each for each in kept if isinstance(each, str))
    return found


def knows_told(step_context: Mapping[str, Any]) -> bool:
    """Whether the step context carries the instance's step data, where `told` reads: without
    it (a workflow service that sends none) nothing can be told apart."""
    workflow = step_context.get("workflow")
    return isinstance(workflow, dict) and isinstance(workflow.get("step_data"), dict)


def told_after(step_context: Mapping[str, Any], extracted: dict[str, Any]) -> dict[str, list[str]]:
    """What this turn adds to its step's data: the keys told so far with the facts and notes
    it keeps, for each of the two it adds one to (nothing when it adds none)."""
    found: dict[str, list[str]] = {}
    for key, kept in ((FACTS_TOLD, facts_of(extracted)), (NOTES_TOLD, notes_of(extracted))):
        if added := _added(told(step_context, key), kept):
            found[key] = added
    return found


def _added(before: set[str], kept: Iterable[str]) -> list[str]:
    after = before | set(kept)
    return sorted(after) if after != before else []
