"""A save or a validation asks the agent-runner for its profiles once, and only when an agent
step names an agent outright or none (it then runs the default one); a template asks nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.dag_api import SaveDagWorkflow, ValidateDagWorkflow
from baton_workflow.domain import dag_versions as dv
from baton_workflow.service.dag_checking import Checked
from baton_workflow.service.dag_definitions import DagCatalog, save_workflow, validate_workflow

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


class Profiles:
    """The agent-runner's answer, counted; `down` makes it not answer."""

    def __init__(self, *slugs: str, down: bool = False) -> None:
        self.known, self.down, self.asked = list(slugs), down, 0

    async def slugs(self) -> list[str]:
        self.asked += 1
        if self.down:
            raise RemoteError.of(ErrorCode.UNAVAILABLE, "no responders on 'agent.query.profiles'")
        return self.known


class Store:
    def __init__(self) -> None:
        self.saved: list[dict[str, Any]] = []

    async def history(self, owner: str, name: str) -> dv.History:
        return dv.History(name=name)

    async def append(self, owner: str, before: dv.History, events: Any, **_: object) -> dv.History:
        self.saved += [e.document for e in events]
        return dv.fold_onto(before, list(events))


class Clock:
    def now(self) -> datetime:
        return T0


def catalog(profiles: Profiles, store: Store | None = None) -> DagCatalog:
    # The parse is not under test: the document is taken as it is.
    return DagCatalog(
        store=store or Store(),  # type: ignore[arg-type]
        check=lambda source, fmt: Checked(json.loads(source), []),
        clock=Clock(),
        agents=profiles,
    )


def save(steps: list[dict[str, Any]]) -> SaveDagWorkflow:
    return SaveDagWorkflow(user_id="u", source=json.dumps({"name": "wf", "steps": steps}))


@pytest.mark.parametrize(
    "steps",
    [
        [{"id": "a", "prompt": "x", "agent": "{{who}}"}],
        [{"id": "a", "type": "tool_call", "toolName": "http_get", "agent": "nobody"}],
        [{"id": "a", "prompt": "x", "agent": "r" * 65}],  # refused by the task rules instead
    ],
    ids=["template", "not-an-agent-step", "too-long"],
)
async def test_no_agent_named_outright_asks_nothing(steps: list[dict[str, Any]]) -> None:
    profiles = Profiles("ruri")
    saved = await save_workflow(catalog(profiles), save(steps))
    assert profiles.asked == 0 and saved.warnings == []


async def test_every_agent_is_checked_on_one_answer() -> None:
    profiles = Profiles("ruri", "hisui")
    steps = [
        {"id": "a", "prompt": "x", "agent": "ruri"},
        {"id": "b", "type": "parallel", "parallel": [
            {"id": "c", "prompt": "y", "agent": "hisu"},
            {"id": "d", "type": "handoff", "agent": "hisui", "handoffFrom": "a"},
        ]},
    ]  # fmt: skip
    with pytest.raises(RemoteError) as refused:
        await save_workflow(catalog(profiles), save(steps))
    assert profiles.asked == 1
    assert [(d.field, d.message) for d in refused.value.body.details] == [
        ("steps[1].parallel[0].agent", 'no agent profile "hisu" (did you mean "hisui"?); '
         "known: hisui, ruri"),
    ]  # fmt: skip


async def test_without_an_answer_the_document_is_stored_and_the_reply_says_so() -> None:
    store = Store()
    steps = [{"id": "a", "prompt": "x", "agent": "nobody"}]
    saved = await save_workflow(catalog(Profiles(down=True), store), save(steps))
    assert store.saved == [{"name": "wf", "steps": steps}]
    assert saved.warnings == [
        "the agents were not checked: the agent-runner did not answer (no responders on "
        "'agent.query.profiles'); a step whose agent has no profile fails when it runs"
    ]
    assert "warnings" in saved.model_dump()
    quiet = await save_workflow(catalog(Profiles("nobody")), save(steps))
    assert "warnings" not in quiet.model_dump()  # left off the wire: older gateways read it
    validation = ValidateDagWorkflow(user_id="u", name="wf", source=save(steps).source)
    checked = await validate_workflow(catalog(Profiles(down=True)), validation)
    assert checked.warnings == saved.warnings


@pytest.mark.parametrize("given", [{}, {"agent": ""}])
async def test_a_step_without_an_agent_is_checked_for_the_default_one(
    given: dict[str, str],
) -> None:
    # It runs the agent "default": a profiles folder without one failed every such step.
    steps = [{"id": "a", "prompt": "x", **given}]
    with pytest.raises(RemoteError) as refused:
        await save_workflow(catalog(Profiles("ruri", "hisui")), save(steps))
    assert [(d.field, d.message) for d in refused.value.body.details] == [
        ("steps[0].agent", 'not given, so the step runs the agent "default", which has no '
         "profile; name one of: hisui, ruri"),
    ]  # fmt: skip
    profiles = Profiles("default")
    assert (await save_workflow(catalog(profiles), save(steps))).warnings == []
    assert profiles.asked == 1
