"""A big workflow document is parsed and checked off the event loop: while one save, check or
run start is still reading its document, the same replica answers other requests.

The parser is replaced by a stub that blocks its thread until the test has had another
request answered. Were the parse on the event loop, the stub would block the loop itself:
nothing else could be answered, and it would give up waiting (`answered_meanwhile` False).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Any

import pytest

from baton_contracts.dag_api import (
    ListDagWorkflows,
    SaveDagWorkflow,
    StartDagRun,
    ValidateDagWorkflow,
)
from baton_workflow.domain import dag_versions as dv
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.service import dag_runs
from baton_workflow.service.dag_checking import Checked
from baton_workflow.service.dag_definitions import (
    DagCatalog,
    list_workflows,
    save_workflow,
    validate_workflow,
)
from baton_workflow.service.dag_runs import DagRunsService, start_dag_run

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
DOC = {"name": "wf", "steps": [{"id": "a", "prompt": "Hello"}]}
GIVE_UP = 30.0  # seconds a blocked stub waits before it gives up (never, with the fix)


class Blocking:
    """Stands in for the parser: blocks its caller's thread until `release` is set."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.answered_meanwhile: list[bool] = []

    def wait(self) -> None:
        self.entered.set()
        self.answered_meanwhile.append(self.release.wait(GIVE_UP))

    def check(self, source: str, fmt: str) -> Checked:
        self.wait()
        return Checked(json.loads(source), [])


class Store:
    """A definition store holding version 1 of "wf"."""

    def __init__(self) -> None:
        saved = dv.VersionSaved(name="wf", version=1, document=DOC, action="create", at=T0)
        self.wf = dv.fold("wf", [saved])

    async def history(self, owner: str, name: str) -> dv.History:
        return self.wf if name == "wf" else dv.History(name=name)

    async def append(self, owner: str, before: dv.History, events: Any, **_: object) -> dv.History:
        return dv.fold_onto(before, list(events))

    async def listed(self, owner: str, after: Any = None, limit: Any = None) -> list[Any]:
        return []


class Clock:
    def now(self) -> datetime:
        return T0


async def answered_while_blocked(blocking: Blocking, slow: Awaitable[Any]) -> Any:
    """Start `slow`; once it is blocked in the parser, have another request answered; then
    let it finish. Its result."""
    task = asyncio.ensure_future(slow)
    assert await asyncio.to_thread(blocking.entered.wait, GIVE_UP)
    catalog = DagCatalog(store=Store(), check=blocking.check, clock=Clock())  # type: ignore[arg-type]
    other = await list_workflows(catalog, ListDagWorkflows(user_id="u"))
    assert other.workflows == [] and not task.done()
    blocking.release.set()
    result = await task
    assert blocking.answered_meanwhile == [True]
    return result


@pytest.mark.parametrize(
    "request_",
    [
        SaveDagWorkflow(user_id="u", source=json.dumps({**DOC, "description": "v2"})),
        ValidateDagWorkflow(user_id="u", name="wf", source=json.dumps(DOC)),
        ValidateDagWorkflow(user_id="u", name="wf"),  # the stored version checked again
    ],
    ids=["save", "validate", "validate-stored"],
)
async def test_another_request_is_answered_while_a_document_is_checked(
    request_: SaveDagWorkflow | ValidateDagWorkflow,
) -> None:
    blocking = Blocking()
    catalog = DagCatalog(store=Store(), check=blocking.check, clock=Clock())  # type: ignore[arg-type]
    use_case = save_workflow if isinstance(request_, SaveDagWorkflow) else validate_workflow
    result = await answered_while_blocked(blocking, use_case(catalog, request_))  # type: ignore[arg-type]
    assert result.name == "wf"


class Runs:
    """A run store that keeps nothing: each start is a new run."""

    async def append(self, run_id: str, version: int, before: Any, events: Any, **_: Any) -> Any:
        return events[0]

    async def running_count(self, owner: str) -> int:
        return 0


class Executor:
    def __init__(self) -> None:
        self.launched: list[str] = []

    def launch(self, run_id: str, state: Any) -> None:
        self.launched.append(run_id)


async def test_another_request_is_answered_while_a_run_start_checks_its_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocking = Blocking()

    def parse(*args: Any, **kwargs: Any) -> Any:
        blocking.wait()
        return parse_definition(*args, **kwargs)

    monkeypatch.setattr(dag_runs, "parse_definition", parse)
    executor = Executor()
    service = DagRunsService(
        definitions=Store(),
        runs=Runs(),  # type: ignore[arg-type]
        executor=executor,  # type: ignore[arg-type]
        clock=Clock(),
        new_id=lambda: "run-1",
    )
    started = await answered_while_blocked(
        blocking, start_dag_run(service, StartDagRun(user_id="u", name="wf"))
    )
    assert (started.run_id, started.version_id) == ("run-1", "wf@1")
    assert executor.launched == ["run-1"]
