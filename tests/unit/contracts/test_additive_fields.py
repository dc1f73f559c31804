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


def test_a_first_page_is_asked_without_after_version_or_limit() -> None:
    """A gateway asks the whole log as a workflow service older than paging understands it."""
    from baton_contracts.workflow_api import GetConversation, GetInstanceEvents

    for model in (GetInstanceEvents, GetConversation):
        first = json.loads(model(user_id="u", instance_id="i").to_bytes())
        assert not {"after_version", "limit"} & set(first)
        later = json.loads(model(user_id="u", instance_id="i", after_version=7, limit=5).to_bytes())
        assert (later["after_version"], later["limit"]) == (7, 5)
        assert model.model_validate(later).after_version == 7


def test_a_last_page_is_answered_without_next_after_version() -> None:
    """An older gateway's reply models (no paging: `extra="forbid"`) read the usual page."""
    from pydantic import BaseModel, ConfigDict

    from baton_contracts.base import ok_reply_json
    from baton_contracts.workflow_api import Conversation, EventLog

    class OldEventLog(BaseModel):  # EventLog before paging
        model_config = ConfigDict(frozen=True, extra="forbid")
        instance_id: str
        events: list[dict[str, object]]

    last = json.loads(ok_reply_json(EventLog(instance_id="i", events=[])))["result"]
    assert "next_after_version" not in last
    OldEventLog.model_validate(last)
    more = json.loads(EventLog(instance_id="i", events=[], next_after_version=3).model_dump_json())
    assert more["next_after_version"] == 3
    assert EventLog.model_validate(more).next_after_version == 3
    chat = json.loads(Conversation(instance_id="i", messages=[]).model_dump_json())
    assert "next_after_version" not in chat
