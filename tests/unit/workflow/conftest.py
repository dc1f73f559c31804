"""Given/when/then helpers for the workflow domain: events in, command, exact events out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from baton_workflow.domain.criteria import CriteriaReport, CriterionResult
from baton_workflow.domain.definitions import WorkflowDefinition

DEFINITIONS = Path(__file__).parents[3] / "services/workflow/src/baton_workflow/definitions"
T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def load(name: str) -> WorkflowDefinition:
    return WorkflowDefinition.model_validate(yaml.safe_load((DEFINITIONS / name).read_text()))


@pytest.fixture
def onboarding() -> WorkflowDefinition:
    return load("onboarding.yaml")


@pytest.fixture
def classic() -> WorkflowDefinition:
    return load("onboarding-classic.yaml")


def report(step: str, *unmet: str, **numbers: tuple[int, int]) -> CriteriaReport:
    """A report where every checker named in `unmet` failed, the others passed."""
    results = [CriterionResult(checker="agent_signal", met="agent_signal" not in unmet)]
    for name, (observed, required) in numbers.items():
        results.append(
            CriterionResult(
                checker=name,
                met=name not in unmet,
                observed=observed,
                required=required,
                detail=f"{observed}/{required}",
            )
        )
    return CriteriaReport(step=step, results=tuple(results))
