"""The folded-instance cache: a turn decides on it without reading, and stale entries are
caught by the append's version check, reloaded and decided again."""

from __future__ import annotations

from typing import Any

import pytest
from nats.aio.client import Client

from baton_contracts.workflow_api import GetInstanceEvents, RecordExchange, WorkflowSignal
from baton_workflow.adapters.instances import SqlInstanceRepository
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.domain.widgets import widgets_completed
from baton_workflow.service.handlers import take_turn

from .conftest import FakeAgentRunner, ask, workflow_settings
from .test_onboarding_flow import COMPLETE, exchange, start


def spy_on_loads(app: WorkflowApp) -> list[int]:
    """Record `after_version` of every stream load the workflow's store does."""
    seen: list[int] = []
    store = app.store
    original = store.load

    async def load(stream_id: str, after_version: int = 0, limit: int | None = None) -> Any:
        seen.append(after_version)
        return await original(stream_id, after_version, limit)

    store.load = load  # type: ignore[method-assign]
    return seen


async def test_a_page_of_the_log_reads_the_page_and_one_record_more(
    workflow: WorkflowApp, client: Client
) -> None:
    instance = await start(client, "cache-page")
    for _ in range(6):
        await exchange(client, "cache-page", instance)
    read: list[int] = []
    original = workflow.store.load

    async def load(stream_id: str, after_version: int = 0, limit: int | None = None) -> Any:
        records = await original(stream_id, after_version, limit)
        read.append(len(records))
        return records

    workflow.store.load = load  # type: ignore[method-assign]
    query = GetInstanceEvents(user_id="cache-page", instance_id=instance, after_version=1, limit=2)
    page = await ask(client, query)
    assert [e.version for e in page.events] == [2, 3] and page.next_after_version == 3
    assert read == [3]  # not the 6 records after version 1


async def test_a_turn_on_a_cached_instance_reads_nothing(
    workflow: WorkflowApp, client: Client, agent_runner: FakeAgentRunner
) -> None:
    instance = await start(client, "cache-1")
    for _ in range(3):
        await exchange(client, "cache-1", instance)
    loads = spy_on_loads(workflow)
    reply = await exchange(client, "cache-1", instance)
    assert reply.instance.messages_in_step == 4
    assert loads == []  # started + 3 exchanges are cached; the append checks the version


@pytest.fixture
async def replica(nats_url: str, sqlite_url: str, workflow: WorkflowApp) -> Any:
    other = build(workflow_settings(nats_url, sqlite_url))
    await other.start()
    yield other
    await other.stop()


async def test_a_replica_sees_what_another_appended_after_it_cached(
    workflow: WorkflowApp, replica: WorkflowApp, agent_runner: FakeAgentRunner, client: Client
) -> None:
    instance = await start(client, "cache-2")
    await exchange(client, "cache-2", instance)
    cached = await workflow.services.repo.load(instance)  # this replica now caches version 2
    assert cached is not None and cached.state.version == 2
    for n in range(3):  # the other replica appends three more
        cmd = RecordExchange(user_id="cache-2", instance_id=instance, command_id=f"r-{n}")
        await take_turn(replica.services, cmd)
    loaded = await workflow.services.repo.load(instance)
    assert loaded is not None
    assert (loaded.state.messages_in_step, loaded.state.version, len(loaded.events)) == (4, 5, 5)


async def test_a_turn_on_a_stale_cache_conflicts_reloads_the_tail_and_decides_again(
    workflow: WorkflowApp, replica: WorkflowApp, agent_runner: FakeAgentRunner, client: Client
) -> None:
    instance = await start(client, "cache-3")
    await exchange(client, "cache-3", instance)
    await workflow.services.repo.load(instance)  # this replica caches version 2
    for n in range(2):  # the other replica appends two more exchanges
        cmd = RecordExchange(user_id="cache-3", instance_id=instance, command_id=f"s-{n}")
        await take_turn(replica.services, cmd)
    loads = spy_on_loads(workflow)
    cmd = RecordExchange(user_id="cache-3", instance_id=instance, command_id="late")
    reply = await take_turn(workflow.services, cmd)
    assert loads == [2]  # the stale version was refused; only the tail was read
    assert reply.instance.messages_in_step == 4  # decided on all four exchanges, none lost
    records = await workflow.services.repo.records(instance)
    assert [r.version for r in records] == [1, 2, 3, 4, 5]


async def test_an_instance_knows_each_event_id_as_stored_whether_cached_or_read(
    workflow: WorkflowApp, replica: WorkflowApp, agent_runner: FakeAgentRunner, client: Client
) -> None:
    # A turn carries a completed list under its announcement's event id, which the
    # agent-runner keys the list's inbox items by: a wrong id would save them twice.
    agent_runner.facts["cache-4"] = 3
    instance = await start(client, "cache-4", "onboarding-classic")
    await workflow.services.repo.load(instance)  # cached at version 1, then extended
    for _ in range(2):
        await exchange(client, "cache-4", instance, COMPLETE)
    widget = {"type": "list_input", "completed": True, "items": ["buy milk"]}
    filled = WorkflowSignal(action="complete_step", data={"widget": widget})
    await exchange(client, "cache-4", instance, filled)

    records = await workflow.services.repo.records(instance)
    [announced] = [r.event_id for r in records if r.type == "workflow.widget_completed"]
    expected = [
        {
            "event_id": str(announced),
            "step": "brain_dump",
            "widget_type": "list_input",
            "items": ["buy milk"],
        }
    ]
    for repo in (workflow.services.repo, replica.services.repo):  # cached; read from the log
        loaded = await repo.load(instance)
        assert loaded is not None
        assert loaded.event_ids == [r.event_id for r in records]
        assert widgets_completed(loaded.events, loaded.event_ids) == expected


async def test_the_cache_holds_its_instances_to_its_budget_in_bytes(
    workflow: WorkflowApp, client: Client, agent_runner: FakeAgentRunner
) -> None:
    # Bounded by count alone, 10,000 instances of long conversations held gigabytes.
    instances = [await start(client, f"cache-b{n}") for n in range(3)]
    for instance, user in zip(instances, ("cache-b0", "cache-b1", "cache-b2"), strict=True):
        for _ in range(3):
            await exchange(client, user, instance)
    # What each weighs as saved turn by turn is what it weighs read from the log at once.
    saved = [workflow.services.repo.cached(i) for i in instances]
    assert all(s is not None and s.size > 0 for s in saved)
    read = [await SqlInstanceRepository(workflow.store).load(i) for i in instances]
    assert [r.size for r in read if r] == [s.size for s in saved if s]

    size = max(s.size for s in saved if s)
    repo = SqlInstanceRepository(workflow.store, cache_bytes=2 * size + size // 2)
    for instance in instances:
        assert await repo.load(instance) is not None
    assert repo.cached(instances[0]) is None  # the least recently used went
    assert repo.cached(instances[1]) is not None and repo.cached(instances[2]) is not None
    assert repo.cache_bytes <= 2 * size + size // 2

    none = SqlInstanceRepository(workflow.store, cache_bytes=0)  # BATON_INSTANCE_CACHE_MB=0
    loaded = await none.load(instances[0])
    assert loaded is not None and loaded.state.version == 4
    assert none.cached(instances[0]) is None and none.cache_bytes == 0
