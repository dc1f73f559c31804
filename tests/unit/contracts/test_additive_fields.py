"""Fields added to a contract stay off the wire while they hold their default, so a service
older than the field (its models refuse unknown fields) keeps reading the usual messages."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from uuid import uuid4

from baton_contracts.agent_api import RunTask
from baton_contracts.workflow import WorkflowCompleted


def _task(**extra: object) -> RunTask:
    return RunTask(
        user_id="u",
        agent="kohaku",
        run_id="r",
        step_id="s",
        prompt="p",
        idempotency_key="r:s:1",
        **extra,  # type: ignore[arg-type]
    )


def test_a_live_task_is_sent_without_shadow() -> None:
    assert "shadow" not in json.loads(_task().to_bytes())
    shadow = json.loads(_task(shadow=True).to_bytes())
    assert shadow["shadow"] is True
    assert RunTask.model_validate(shadow).shadow is True


def test_a_completion_not_forced_is_sent_without_forced_or_warning() -> None:
    common = {
        "event_id": uuid4(),
        "occurred_at": datetime(2026, 11, 25, tzinfo=UTC),
        "user_id": "u",
        "workflow_id": "onboarding",
        "instance_id": "i",
        "completed_at": datetime(2026, 11, 25, tzinfo=UTC),
    }
    plain = json.loads(WorkflowCompleted(**common).to_bytes())  # type: ignore[arg-type]
    assert not {"forced", "warning"} & set(plain)
    forced = json.loads(
        WorkflowCompleted(**common, forced=True, warning="max_messages").to_bytes()  # type: ignore[arg-type]
    )
    assert (forced["forced"], forced["warning"]) == (True, "max_messages")
