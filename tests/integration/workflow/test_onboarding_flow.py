"""Whole conversations through the workflow service's NATS requests, events seen on NATS."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from nats.aio.client import Client

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.workflow_api import (
    ExplainInstance,
    GetInstanceEvents,
    GetProgress,
    ListActiveInstances,
    RecordExchange,
    SignalWorkflow,
    StartWorkflow,
    TurnReply,
    WorkflowSignal,
)
from baton_workflow.bootstrap import WorkflowApp

from .conftest import FakeAgentRunner, ask

COMPLETE = WorkflowSignal(action="complete_step")


async def exchange(
    nc: Client,
    user: str,
    instance: str,
    signal: WorkflowSignal | None = None,
) -> TurnReply:
    command = RecordExchange(
        user_id=user, instance_id=instance, command_id=uuid.uuid4().hex, signal=signal
    )
    reply = await ask(nc, command)
    assert isinstance(reply, TurnReply)
    return reply


async def start(nc: Client, user: str, workflow_id: str = "onboarding") -> str:
    reply = await ask(nc, StartWorkflow(user_id=user, workflow_id=workflow_id))
    return str(reply.instance.instance_id)


async def events_of(nc: Client, user: str) -> asyncio.Queue[dict[str, object]]:
    queue: asyncio.Queue[dict[str, object]] = asyncio.Queue()

    async def put(msg: object) -> None:
        await queue.put(json.loads(msg.data))  # type: ignore[attr-defined]

    await nc.subscribe(f"workflow.evt.*.{user}.>", cb=put)
    await nc.flush()
    return queue


async def next_types(queue: asyncio.Queue[dict[str, object]], n: int) -> list[object]:
    return [(await asyncio.wait_for(queue.get(), 5))["type"] for _ in range(n)]


async def test_full_onboarding_from_greeting_to_completion(
    workflow: WorkflowApp, client: Client, agent_runner: FakeAgentRunner
) -> None:
    seen = await events_of(client, "alice")
    instance = await start(client, "alice")
    assert await next_types(seen, 1) == ["workflow.started"]

    await exchange(client, "alice", instance)
    moved = await exchange(client, "alice", instance, COMPLETE)
    assert (moved.outcome, moved.instance.current_step) == ("transitioned", "discovery")
    assert moved.instance.progress == pytest.approx(0.3333, abs=1e-3)

    agent_runner.facts["alice"] = 3
    for _ in range(4):
        await exchange(client, "alice", instance)
    moved = await exchange(client, "alice", instance, COMPLETE)
    assert moved.instance.current_step == "brain_dump"

    agent_runner.items["alice"] = 3
    for _ in range(2):
        await exchange(client, "alice", instance)
    moved = await exchange(client, "alice", instance, COMPLETE)
    assert moved.instance.current_step == "setup_complete"

    done = await exchange(client, "alice", instance, COMPLETE)
    assert (done.outcome, done.instance.status, done.instance.progress) == (
        "completed",
        "completed",
        1.0,
    )
    assert await next_types(seen, 4) == ["workflow.step_changed"] * 3 + ["workflow.completed"]
    active = await ask(client, ListActiveInstances(user_id="alice"))
    assert active.instances == []
    # Done, not stuck: no criterion of the last step is shown as unmet.
    why = await ask(client, ExplainInstance(user_id="alice", instance_id=instance))
    assert (why.status, why.current_step, why.can_complete, why.criteria) == (
        "completed",
        "setup_complete",
        False,
        [],
    )
    with pytest.raises(RemoteError) as late:
        await ask(
            client,
            SignalWorkflow(
                user_id="alice", instance_id=instance, command_id="late", signal=COMPLETE
            ),
        )
    assert late.value.code is ErrorCode.CONFLICT


async def test_classic_onboarding_closes_brain_dump_with_a_list_input_widget(
    workflow: WorkflowApp, client: Client, agent_runner: FakeAgentRunner
) -> None:
    agent_runner.facts["bob"] = 3
    seen = await events_of(client, "bob")
    instance = await start(client, "bob", "onboarding-classic")
    for _ in range(2):
        await exchange(client, "bob", instance, COMPLETE)
    empty = WorkflowSignal(
        action="complete_step",
        data={"widget": {"type": "list_input", "completed": True, "items": []}},
    )
    blocked = await exchange(client, "bob", instance, empty)
    assert blocked.outcome == "blocked"
    assert blocked.missing_criteria == ["widget_completed: 0/1 items in list_input"]
    filled = WorkflowSignal(
        action="complete_step",
        data={"widget": {"type": "list_input", "completed": True, "items": ["buy milk"]}},
    )
    moved = await exchange(client, "bob", instance, filled)
    assert moved.instance.current_step == "completed"
    done = await exchange(client, "bob", instance, COMPLETE)
    assert done.instance.status == "completed"
    # The refused empty list announced nothing; the list the step closed on, once, before the
    # step's change, for the agent-runner to put its items in the inbox.
    published = [await asyncio.wait_for(seen.get(), 5) for _ in range(7)]
    widgets = [e for e in published if e["type"] == "workflow.widget_completed"]
    assert [(e["step"], e["widget_type"], e["items"]) for e in widgets] == [
        ("brain_dump", "list_input", ["buy milk"])
    ]
    assert [e["type"] for e in published][-3:] == [
        "workflow.widget_completed",
        "workflow.step_changed",
        "workflow.completed",
    ]


async def test_a_skip_attempt_is_blocked_and_announced(
    workflow: WorkflowApp, client: Client
) -> None:
    seen = await events_of(client, "carol")
    instance = await start(client, "carol")
    await next_types(seen, 1)
    await exchange(client, "carol", instance)
    jump = WorkflowSignal(action="complete_step", target_step="setup_complete")
    reply = await ask(
        client,
        SignalWorkflow(user_id="carol", instance_id=instance, command_id="skip-1", signal=jump),
    )
    assert reply.outcome == "blocked"
    assert reply.instance.current_step == "greeting"
    event = await asyncio.wait_for(seen.get(), 5)
    assert event["type"] == "workflow.step_blocked"
    assert event["reason"] == "required step(s) cannot be skipped: discovery, brain_dump"
    assert event["user_id"] == "carol"


async def test_min_messages_holds_back_and_max_messages_forces(
    workflow: WorkflowApp, client: Client
) -> None:
    instance = await start(client, "dave")
    early = await exchange(client, "dave", instance, COMPLETE)
    assert early.outcome == "blocked"
    assert early.missing_criteria == ["min_messages: 1/2 messages"]
    for _ in range(8):
        assert (await exchange(client, "dave", instance)).outcome == "stayed"
    forced = await exchange(client, "dave", instance)
    assert (forced.outcome, forced.instance.current_step) == ("forced", "discovery")
    assert forced.warning == "max_messages (10) reached on 'greeting'; moved on"
    progress = await ask(client, GetProgress(user_id="dave", instance_id=instance))
    assert [s.status for s in progress.steps] == ["completed", "active", "pending", "pending"]
    assert progress.messages_in_step == 0


async def test_max_messages_on_the_final_step_completes_with_the_warning_announced(
    workflow: WorkflowApp, client: Client, agent_runner: FakeAgentRunner
) -> None:
    agent_runner.facts["fay"], agent_runner.items["fay"] = 3, 3
    instance = await start(client, "fay")
    for messages in (2, 5, 3):  # greeting, discovery, brain_dump: min_messages, then close
        for _ in range(messages - 1):
            await exchange(client, "fay", instance)
        await exchange(client, "fay", instance, COMPLETE)
    seen = await events_of(client, "fay")
    done = await exchange(client, "fay", instance)  # setup_complete is 1/1: no signal, forced
    assert (done.outcome, done.instance.status) == ("completed", "completed")
    assert done.warning == "max_messages (1) reached on 'setup_complete'; the workflow completed"
    assert done.missing_criteria == ["agent_signal: agent has not signalled completion"]
    event = await asyncio.wait_for(seen.get(), 5)
    while event["type"] != "workflow.completed":  # the relay may still be sending earlier ones
        event = await asyncio.wait_for(seen.get(), 5)
    assert (event["forced"], event["warning"]) == (True, done.warning)


async def test_a_raising_checker_is_named_and_the_step_stays(
    workflow: WorkflowApp, client: Client, agent_runner: FakeAgentRunner
) -> None:
    instance = await start(client, "erin")
    for _ in range(2):
        await exchange(client, "erin", instance, COMPLETE)
    agent_runner.fail = True
    for _ in range(5):
        reply = await exchange(client, "erin", instance, COMPLETE)
    assert reply.outcome == "blocked"
    assert reply.instance.current_step == "discovery"
    assert any(m.startswith("memory_facts: checker error") for m in reply.missing_criteria)
    why = await ask(client, ExplainInstance(user_id="erin", instance_id=instance))
    memory = next(c for c in why.criteria if c.checker == "memory_facts")
    assert (memory.met, memory.error) == (False, True)


async def test_explain_gives_the_numbers(
    workflow: WorkflowApp, client: Client, agent_runner: FakeAgentRunner
) -> None:
    instance = await start(client, "fay")
    for _ in range(2):
        await exchange(client, "fay", instance, COMPLETE)
    agent_runner.facts["fay"] = 2
    why = await ask(client, ExplainInstance(user_id="fay", instance_id=instance))
    memory = next(c for c in why.criteria if c.checker == "memory_facts")
    assert (memory.observed, memory.required, memory.detail) == (2, 3, "2/3 facts in 'priorities'")
    assert (why.messages_in_step, why.min_messages, why.max_messages) == (0, 5, 30)


async def test_the_same_command_twice_counts_once(workflow: WorkflowApp, client: Client) -> None:
    instance = await start(client, "gus")
    command = RecordExchange(user_id="gus", instance_id=instance, command_id="same")
    first, second = await ask(client, command), await ask(client, command)
    assert first == second.model_copy(update={"instance": first.instance})
    assert second.instance.messages_in_step == 1
    log = await ask(client, GetInstanceEvents(user_id="gus", instance_id=instance))
    assert [e.type for e in log.events] == [
        "workflow.instance_started",
        "workflow.exchange_recorded",
    ]


async def test_another_user_can_neither_see_nor_signal(
    workflow: WorkflowApp, client: Client
) -> None:
    instance = await start(client, "alice2")
    for query in (
        GetProgress(user_id="mallory", instance_id=instance),
        SignalWorkflow(user_id="mallory", instance_id=instance, command_id="x", signal=COMPLETE),
    ):
        with pytest.raises(RemoteError) as caught:
            await ask(client, query)
        assert caught.value.code is ErrorCode.NOT_FOUND
    assert (await ask(client, ListActiveInstances(user_id="mallory"))).instances == []


async def test_starting_twice_returns_the_active_instance(
    workflow: WorkflowApp, client: Client
) -> None:
    first = await ask(client, StartWorkflow(user_id="hal", workflow_id="onboarding"))
    second = await ask(client, StartWorkflow(user_id="hal", workflow_id="onboarding"))
    assert (first.created, second.created) == (True, False)
    assert first.instance.instance_id == second.instance.instance_id


async def test_bad_requests_get_typed_errors(workflow: WorkflowApp, client: Client) -> None:
    with pytest.raises(RemoteError) as unknown:
        await ask(client, StartWorkflow(user_id="ivy", workflow_id="nope"))
    assert unknown.value.code is ErrorCode.NOT_FOUND and "'nope'" in unknown.value.body.message
    instance = await start(client, "ivy")
    # `shared` lands in the context every step sees: it is held to the same limit as `data`.
    for field in ("data", "shared"):
        huge = WorkflowSignal.model_validate({"action": "stay", field: {"blob": "x" * 70_000}})
        with pytest.raises(RemoteError) as too_large:
            signal = SignalWorkflow(
                user_id="ivy", instance_id=instance, command_id=field, signal=huge
            )
            await ask(client, signal)
        assert too_large.value.code is ErrorCode.TOO_LARGE
        # Named by its path in the command, as a field it failed to validate would be.
        assert [d.field for d in too_large.value.body.details] == [f"signal.{field}"]
    for _ in range(10):
        await exchange(client, "ivy", instance)
    ended = await ask(client, GetProgress(user_id="ivy", instance_id=instance))
    assert ended.current_step == "discovery"


async def test_started_and_step_changed_events_name_the_agent_of_the_new_step(
    workflow: WorkflowApp, client: Client, agent_runner: FakeAgentRunner
) -> None:
    queue: asyncio.Queue[dict[str, object]] = asyncio.Queue()

    async def put(msg: object) -> None:
        await queue.put(json.loads(msg.data))  # type: ignore[attr-defined]

    await client.subscribe("workflow.evt.*.erin.>", cb=put)
    await client.flush()
    instance = await start(client, "erin")
    started = await asyncio.wait_for(queue.get(), 5)
    assert (started["initial_step"], started["initial_agent"]) == ("greeting", "greeter")

    await exchange(client, "erin", instance)
    await exchange(client, "erin", instance, COMPLETE)
    changed = await asyncio.wait_for(queue.get(), 5)
    assert (changed["type"], changed["current_step"], changed["current_agent"]) == (
        "workflow.step_changed",
        "discovery",
        "discovery",
    )
