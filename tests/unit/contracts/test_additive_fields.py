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


def test_the_first_page_of_active_instances_is_asked_as_before_paging() -> None:
    """A workflow service older than paging reads the gateway's first request."""
    from baton_contracts.workflow_api import ListActiveInstances

    first = json.loads(ListActiveInstances(user_id="u").to_bytes())
    assert first == {"type": "workflow.list_active", "user_id": "u"}
    later = json.loads(ListActiveInstances(user_id="u", after="i1", limit=5).to_bytes())
    assert (later["after"], later["limit"]) == ("i1", 5)


def _listed(**extra: object) -> dict[str, object]:
    at = datetime(2026, 11, 25, tzinfo=UTC).isoformat()
    return {
        "instance_id": "i1",
        "workflow_id": "onboarding",
        "user_id": "u",
        "status": "active",
        "current_step": "greeting",
        "progress": 0.0,
        "messages_in_step": 0,
        "created_at": at,
        "updated_at": at,
        **extra,
    }


def test_an_older_workflow_services_list_is_read_without_its_contexts() -> None:
    """The gateway is upgraded first: an older service still lists each context."""
    from baton_contracts.workflow_api import InstanceList

    old = {"instances": [_listed(context={"shared": {"big": "x" * 100}})]}
    listed = InstanceList.model_validate_json(json.dumps(old))
    assert "context" not in listed.instances[0].model_dump()
    assert listed.instances[0].instance_id == "i1"


def test_the_last_page_of_active_instances_is_answered_without_next_after() -> None:
    from baton_contracts.workflow_api import InstanceList

    last = json.loads(InstanceList.model_validate({"instances": [_listed()]}).model_dump_json())
    assert set(last) == {"instances"} and "context" not in last["instances"][0]
    more = InstanceList.model_validate({"instances": [_listed()], "next_after": "i1"})
    assert json.loads(more.model_dump_json())["next_after"] == "i1"


def test_a_required_steps_turn_is_sent_without_step_required() -> None:
    """An agent-runner older than the field reads every turn of a required step."""
    from baton_contracts.agent_api import RunAgent

    common = {"user_id": "u", "agent": "discovery", "instance_id": "i", "current_step": "s",
              "message": "hi", "idempotency_key": "i:1"}  # fmt: skip
    assert "step_required" not in json.loads(RunAgent(**common).to_bytes())  # type: ignore[arg-type]
    optional = json.loads(RunAgent(**common, step_required=False).to_bytes())  # type: ignore[arg-type]
    assert optional["step_required"] is False
    assert RunAgent.model_validate(optional).step_required is False
