"""A widget a person sends in a signal has the shape the step's criteria and the inbox read,
or the signal is refused by the path of what is wrong, and nothing is kept: an item that was a
number used to be dropped without a word, and the user's list lost it."""

from __future__ import annotations

from typing import Any

import pytest
from nats.aio.client import Client

from baton_contracts.workflow_api import GetInstance, RecordExchange, StartWorkflow, WorkflowSignal
from baton_workflow.bootstrap import WorkflowApp

from .conftest import ask
from .test_step_data_keys import _instance, _signal, _started


@pytest.mark.parametrize(
    ("widget", "field", "problem"),
    [
        (
            {"type": "list_input", "completed": True, "items": ["taxes", 7, None]},
            "body.data.widget.items[1]",
            "must be text, not a number",
        ),
        (
            {"type": "list_input", "completed": True, "items": "taxes"},
            "body.data.widget.items",
            "must be a list of text, not text",
        ),
        (
            {"type": "list_input", "completed": "yes", "items": []},
            "body.data.widget.completed",
            "must be true or false, not text",
        ),
        (
            {"completed": True, "items": ["taxes"]},
            "body.data.widget.type",
            "is missing: give the widget's type as text (`list_input`)",
        ),
        (
            {"type": " ", "completed": True},
            "body.data.widget.type",
            "must be the widget's type as text, not blank text",
        ),
        (
            ["taxes"],
            "body.data.widget",
            "must be an object with `type`, `completed` and `items`, not a list",
        ),
    ],
)
async def test_a_malformed_widget_is_refused_by_its_path_and_nothing_is_kept(
    gateway: Any, widget: Any, field: str, problem: str
) -> None:
    instance = await _started(gateway, "widget-shape")
    before = await _instance(gateway, "widget-shape", instance)
    body = {"action": "complete_step", "command_id": "w1", "data": {"widget": widget}}
    refused = await _signal(gateway, "widget-shape", instance, body)
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert error["details"][0] == {"field": field, "message": problem}
    assert error["message"] == f"{field}: {problem}"
    assert await _instance(gateway, "widget-shape", instance) == before
    # The command id was not spent: the same command, mended, is taken.
    mended = {**body, "data": {"widget": {"type": "list_input", "items": ["taxes"]}}}
    taken = await _signal(gateway, "widget-shape", instance, {**mended, "action": "stay"})
    assert taken.status_code == 200, taken.text


async def test_every_problem_of_a_widget_is_named(gateway: Any) -> None:
    instance = await _started(gateway, "widget-all")
    widget = {"type": 1, "completed": None, "items": [{}, "ok", []]}
    body = {"action": "stay", "data": {"widget": widget}}
    refused = await _signal(gateway, "widget-all", instance, body)
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["details"] == [
        {
            "field": "body.data.widget.type",
            "message": "must be the widget's type as text, not a number",
        },
        {"field": "body.data.widget.completed", "message": "must be true or false, not null"},
        {"field": "body.data.widget.items[0]", "message": "must be text, not an object"},
        {"field": "body.data.widget.items[2]", "message": "must be text, not a list"},
    ]


async def test_a_well_formed_widget_keeps_the_clients_own_keys(gateway: Any) -> None:
    instance = await _started(gateway, "widget-own")
    widget = {"type": "list_input", "completed": False, "items": ["", " taxes "], "draft": 3}
    taken = await _signal(
        gateway, "widget-own", instance, {"action": "stay", "data": {"widget": widget}}
    )
    assert taken.status_code == 200, taken.text
    context = (await _instance(gateway, "widget-own", instance))["context"]
    assert context["step_data"]["greeting"]["widget"] == widget


async def test_an_agents_widget_is_not_refused_with_its_exchange(
    workflow: WorkflowApp, client: Client
) -> None:
    # An exchange is the agent's answer to a message the user already sent: refusing it would
    # lose the conversation; its entries that are not text are simply no items.
    reply = await ask(client, StartWorkflow(user_id="wes", workflow_id="onboarding"))
    instance = str(reply.instance.instance_id)
    sig = WorkflowSignal(action="stay", data={"widget": {"type": "list_input", "items": [1, "a"]}})
    sent = RecordExchange(user_id="wes", instance_id=instance, command_id="e1", signal=sig)
    assert (await ask(client, sent)).outcome == "stayed"
    view = await ask(client, GetInstance(user_id="wes", instance_id=instance))
    assert view.context["step_data"]["greeting"]["widget"]["items"] == [1, "a"]
