"""Version history of DAG workflow definitions: given past events, when a change, then events."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.dag_api import (
    DeleteDagWorkflow,
    DiffDagVersions,
    RollbackDagWorkflow,
    SaveDagWorkflow,
)
from baton_eventstore import ConcurrencyConflict
from baton_workflow.domain import dag_versions as dv
from baton_workflow.service.dag_checking import Checked
from baton_workflow.service.dag_definitions import (
    DagCatalog,
    delete_workflow,
    diff_versions,
    rollback_workflow,
    save_workflow,
)

T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
DOC = {"name": "wf", "steps": [{"id": "a", "prompt": "hi"}]}
DOC2 = {"name": "wf", "steps": [{"id": "a", "prompt": "hello"}]}


def history(*events: dv.DefinitionEvent) -> dv.History:
    return dv.fold("wf", list(events))


def saved(
    version: int, document: dict[str, object], action: dv.Action = "update"
) -> dv.VersionSaved:
    return dv.VersionSaved("wf", version, document, action, T0 + timedelta(minutes=version))


def test_first_save_creates_version_one() -> None:
    assert dv.save(history(), DOC, T0) == [dv.VersionSaved("wf", 1, DOC, "create", T0)]


def test_saving_the_same_document_again_stores_nothing() -> None:
    assert dv.save(history(saved(1, DOC, "create")), DOC, T0) == []


def test_a_changed_document_is_a_new_version() -> None:
    (event,) = dv.save(history(saved(1, DOC, "create")), DOC2, T0)
    assert isinstance(event, dv.VersionSaved)
    assert (event.version, event.action, event.document) == (2, "update", DOC2)


def test_delete_hides_the_workflow_and_a_new_create_continues_the_numbering() -> None:
    past = history(saved(1, DOC, "create"))
    deleted = dv.fold("wf", [saved(1, DOC, "create"), *dv.delete(past, T0)])
    assert not deleted.live and deleted.latest is not None
    assert dv.delete(deleted, T0) == []  # already gone: nothing to record
    (event,) = dv.save(deleted, DOC, T0)  # same document, but it was deleted: store it again
    assert isinstance(event, dv.VersionSaved)
    assert (event.version, event.action) == (2, "create")
    assert deleted.stream_version == 2


def test_rollback_makes_a_new_version_with_the_old_document() -> None:
    past = history(saved(1, DOC, "create"), saved(2, DOC2))
    (event,) = dv.rollback(past, 1, T0)
    assert isinstance(event, dv.VersionSaved)
    assert (event.version, event.document, event.action) == (3, DOC, "rollback")
    assert event.rolled_back_to == "wf@1"


def test_rollback_to_a_missing_version_is_refused() -> None:
    with pytest.raises(dv.VersionNotFound):
        dv.rollback(history(saved(1, DOC, "create")), 7, T0)


def test_diff_is_a_unified_diff_of_the_pretty_json() -> None:
    past = history(saved(1, DOC, "create"), saved(2, DOC2))
    old, new = past.get(1), past.get(2)
    assert old is not None and new is not None
    text = dv.unified_diff(old, new)
    assert text.startswith("--- wf@1\n+++ wf@2\n")
    assert '-      "prompt": "hi"\n' in text and '+      "prompt": "hello"\n' in text


def diff_of(before: dict[str, object], after: dict[str, object]) -> str:
    past = history(saved(1, before, "create"), saved(2, after))
    old, new = past.get(1), past.get(2)
    assert old is not None and new is not None
    return dv.unified_diff(old, new)


def test_diff_of_documents_that_differ_only_in_key_order_is_empty() -> None:
    before = {
        "name": "wf", "variables": {"a": "1", "b": "2"},
        "steps": [{"id": "a", "agent": "hisui", "prompt": "hi", "toolInput": {}}],
    }  # fmt: skip
    after = {
        "steps": [{"toolInput": {}, "prompt": "hi", "id": "a", "agent": "hisui"}],
        "variables": {"b": "2", "a": "1"}, "name": "wf",
    }  # fmt: skip
    assert diff_of(before, after) == ""


def test_diff_shows_only_the_real_change_when_keys_also_moved() -> None:
    before = {
        "name": "wf", "timeout": "30m",
        "steps": [
            {"id": "a", "agent": "hisui", "prompt": "hi"},
            {"id": "p", "type": "parallel", "parallel": [{"id": "s", "prompt": "x"}]},
        ],
    }  # fmt: skip
    after = {
        "timeout": "1h", "name": "wf",
        "steps": [
            {"prompt": "hi", "agent": "hisui", "id": "a"},
            {"parallel": [{"prompt": "x", "id": "s"}], "type": "parallel", "id": "p"},
        ],
    }  # fmt: skip
    changed = [
        line for line in diff_of(before, after).splitlines()[2:]
        if line.startswith(("+", "-"))
    ]  # fmt: skip
    assert changed == ['-  "timeout": "30m",', '+  "timeout": "1h",']


def test_diff_lays_keys_out_in_the_seed_order_whatever_order_they_were_written_in() -> None:
    after = {"steps": [{"prompt": "hello", "id": "a"}], "name": "wf"}
    text = diff_of(DOC, after)
    assert text.splitlines()[2:] == [
        "@@ -3,7 +3,7 @@",
        '   "steps": [',
        "     {",
        '       "id": "a",',
        '-      "prompt": "hi"',
        '+      "prompt": "hello"',
        "     }",
        "   ]",
        " }",
    ]


@pytest.mark.parametrize("value", ["wf", "wf@", "@2", "wf@0", "wf@x"])
def test_malformed_version_ids_are_refused(value: str) -> None:
    with pytest.raises(ValueError, match="version id"):
        dv.parse_version_id(value)


def test_version_zero_says_versions_start_at_one() -> None:
    with pytest.raises(ValueError, match="versions start at 1"):
        dv.parse_version_id("wf@0")


class OneVersion:
    """A definition store holding version 1 of "wf"."""

    async def history(self, user_id: str, name: str) -> dv.History:
        return history(saved(1, DOC, "create"))


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (RollbackDagWorkflow.model_construct(user_id="u", name="wf", version_id="wf@0"),
         "version_id"),
        (DiffDagVersions.model_construct(user_id="u", from_version="wf@1", to_version="wf@0"),
         "to_version"),
    ],
)  # fmt: skip
async def test_a_version_id_the_contract_let_through_is_still_invalid_not_a_crash(
    request_: RollbackDagWorkflow | DiffDagVersions, field: str
) -> None:
    # Built without validation: the service must not rely on the contract's pattern alone.
    catalog = DagCatalog(store=OneVersion(), check=lambda *_: {}, clock=None)  # type: ignore[arg-type]
    use_case = rollback_workflow if isinstance(request_, RollbackDagWorkflow) else diff_versions
    with pytest.raises(RemoteError) as caught:
        await use_case(catalog, request_)  # type: ignore[arg-type]
    assert caught.value.code is ErrorCode.INVALID
    [detail] = caught.value.body.details
    assert detail.field == field
    assert detail.message == "'wf@0' is not a version id: versions start at 1"


def test_events_round_trip_through_their_payloads() -> None:
    for event in (saved(1, DOC, "create"), dv.WorkflowDeleted("wf", T0)):
        assert dv.from_record(event.type, dv.to_payload(event)) == event


class AlwaysOvertaken(OneVersion):
    """A definition store where another writer always appends first."""

    appends = 0

    async def append(
        self, user_id: str, before: dv.History, events: object, **_: object
    ) -> dv.History:
        self.appends += 1
        raise ConcurrencyConflict("dagdef-wf", before.stream_version, before.stream_version + 1)


class FixedClock:
    def now(self) -> datetime:
        return T0


@pytest.mark.parametrize(
    "command",
    [
        SaveDagWorkflow(user_id="u", source=json.dumps(DOC2)),
        DeleteDagWorkflow(user_id="u", name="wf"),
        RollbackDagWorkflow(user_id="u", name="wf", version_id="wf@1"),
    ],
    ids=lambda c: type(c).__name__,
)
async def test_a_change_overtaken_on_every_attempt_is_a_conflict_naming_the_workflow(
    command: SaveDagWorkflow | DeleteDagWorkflow | RollbackDagWorkflow,
) -> None:
    store = AlwaysOvertaken()
    catalog = DagCatalog(
        store=store,  # type: ignore[arg-type]
        check=lambda source, _: Checked(json.loads(source), []),
        clock=FixedClock(),
        conflict_retries=2,
    )
    use_case = {
        SaveDagWorkflow: save_workflow,
        DeleteDagWorkflow: delete_workflow,
        RollbackDagWorkflow: rollback_workflow,
    }[type(command)]
    with pytest.raises(RemoteError) as caught:
        await use_case(catalog, command)  # type: ignore[operator]
    assert caught.value.code is ErrorCode.CONFLICT
    assert caught.value.body.message == (
        "workflow 'wf' is being changed by other requests at the same moment; try again"
    )
    assert store.appends == 3
