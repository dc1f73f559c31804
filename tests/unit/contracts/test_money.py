"""A USD amount is kept to ten decimal places, so one summed with float noise is sent as the
decimal it is (a dry run's total was sent as `"cost_usd":0.0050539999999999995`)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from pydantic import BaseModel

import baton_contracts
from baton_contracts.agent_api import TaskResult, TokenUsage
from baton_contracts.dag_runs import DagEstimate, DagRunDetail, DagStepView
from baton_contracts.money import dollars, usd


def test_an_amount_is_rounded_to_ten_places_and_small_ones_are_kept() -> None:
    assert usd(0.1 + 0.2) == 0.3
    assert usd(0.0050539999999999995) == 0.005054
    assert usd(1.5e-07) == 1.5e-07  # one token of a cheap model
    assert usd(0.00001234567891) == 0.0000123457
    assert usd(0.0) == 0.0


def test_a_run_detail_is_sent_with_its_costs_as_decimals() -> None:
    noisy = 0.0050539999999999995
    detail = DagRunDetail(
        run_id="r",
        workflow="wf",
        version=1,
        version_id="wf@1",
        mode="dry_run",
        status="success",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        cost_usd=noisy,
        steps=[DagStepView(id="a", type="dispatch", status="success", cost_usd=0.1 + 0.2)],
        estimate=DagEstimate(cost_usd=noisy),
    )
    sent = detail.model_dump_json()
    assert sent.count('"cost_usd":0.005054,') == 1 and '"cost_usd":0.005054}' in sent
    assert '"cost_usd":0.3,' in sent
    assert "99999" not in sent and "00000000" not in sent


def test_a_task_result_carries_its_cost_as_a_decimal() -> None:
    result = TaskResult(
        output="x", usage=TokenUsage(), cost_usd=0.0010049999999999998, agent="kohaku"
    )
    assert result.cost_usd == 0.001005


def _models_with_a_cost() -> Iterator[type[BaseModel]]:
    for info in pkgutil.iter_modules(baton_contracts.__path__):
        module = importlib.import_module(f"baton_contracts.{info.name}")
        for value in vars(module).values():
            is_model = isinstance(value, type) and issubclass(value, BaseModel)
            if is_model and any(name.startswith("cost") for name in value.model_fields):
                yield value


def test_every_cost_in_a_contract_is_kept_to_ten_places() -> None:
    found = {
        model.__name__: [
            name
            for name, field in model.model_fields.items()
            if name.startswith("cost")
            and not any(getattr(m, "func", None) is usd for m in field.metadata)
        ]
        for model in _models_with_a_cost()
    }
    assert len(found) >= 6, found  # AgentReply, TaskResult, RunCompleted, the DAG run views
    assert {name: fields for name, fields in found.items() if fields} == {}


@pytest.mark.parametrize(
    ("amount", "places", "shown"),
    [
        (0.0, 4, "$0.0000"),
        (0.0021, 4, "$0.0021"),
        (0.25, 4, "$0.2500"),
        (0.001, 4, "$0.0010"),
        (0.0005, 4, "$0.00050"),  # two significant digits, not "$0.0005"
        (3.14e-05, 4, "$0.000031"),  # the scripted model's draft-and-review run, not "$0.0000"
        (5.62e-05, 4, "$0.000056"),  # research-and-summarize, not "$0.0001"
        (1e-10, 4, "$0.00000000010"),  # the smallest amount kept
        (3e-07, 6, "$0.00000030"),  # the agent-runner's six places (commit 8b6ff60)
        (0.5, 6, "$0.500000"),
        (12.3456789, 2, "$12.35"),
    ],
)
def test_an_amount_is_shown_with_the_places_asked_or_two_significant_digits(
    amount: float, places: int, shown: str
) -> None:
    assert dollars(amount, places) == shown
