"""A DAG workflow's version history as an event stream: saves, rollbacks, deletion (no I/O).

Every `create` of a changed document, and every rollback, is a new immutable version; deleting
a workflow hides it from the list but keeps its versions, so runs pinned to one go on and a
later `create` continues the numbering.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from baton_workflow.domain.dag.definition import Step, WorkflowDefinition

Action = Literal["create", "update", "rollback"]

VERSION_SAVED = "workflow.dag_version_saved"
WORKFLOW_DELETED = "workflow.dag_deleted"


@dataclass(frozen=True, slots=True)
class VersionSaved:
    """A new version of the document was stored."""

    name: str
    version: int
    document: dict[str, Any]
    action: Action
    at: datetime
    rolled_back_to: str | None = None
    type: str = VERSION_SAVED


@dataclass(frozen=True, slots=True)
class WorkflowDeleted:
    """The workflow was removed from the list (its versions stay)."""

    name: str
    at: datetime
    type: str = WORKFLOW_DELETED


DefinitionEvent = VersionSaved | WorkflowDeleted


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One version as history shows it."""

    name: str
    version: int
    document: dict[str, Any]
    action: Action
    created_at: datetime
    rolled_back_to: str | None = None

    @property
    def version_id(self) -> str:
        """`<name>@<version>`."""
        return version_id(self.name, self.version)


@dataclass(frozen=True, slots=True)
class History:
    """The fold of a workflow's stream: every version, oldest first, and whether it is deleted."""

    name: str
    versions: tuple[StoredVersion, ...] = ()
    deleted: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None
    stream_version: int = 0
    """How many events were folded: the version an append must expect."""

    @property
    def latest(self) -> StoredVersion | None:
        """The newest version, if any."""
        return self.versions[-1] if self.versions else None

    @property
    def live(self) -> bool:
        """True when the workflow is listed: it has a version and was not deleted since."""
        return bool(self.versions) and not self.deleted

    def get(self, version: int) -> StoredVersion | None:
        """One version by number."""
        if 1 <= version <= len(self.versions):
            return self.versions[version - 1]
        return None


class VersionNotFound(LookupError):
    """A version id names no version of the workflow."""


def version_id(name: str, version: int) -> str:
    """The id of one version: `<name>@<version>`."""
    return f"{name}@{version}"


def parse_version_id(value: str) -> tuple[str, int]:
    """(name, version) of `<name>@<version>`; ValueError when malformed or version 0."""
    name, sep, number = value.rpartition("@")
    if not sep or not name or not number.isdigit():
        raise ValueError(f"{value!r} is not a version id like 'my-workflow@2'")
    if int(number) < 1:
        raise ValueError(f"{value!r} is not a version id: versions start at 1")
    return name, int(number)


def apply(history: History, event: DefinitionEvent) -> History:
    """The history after one event."""
    if isinstance(event, VersionSaved):
        stored = StoredVersion(
            name=event.name,
            version=event.version,
            document=event.document,
            action=event.action,
            created_at=event.at,
            rolled_back_to=event.rolled_back_to,
        )
        return replace(
            history,
            versions=(*history.versions, stored),
            deleted=False,
            created_at=event.at if not history.live else history.created_at,
            updated_at=event.at,
            stream_version=history.stream_version + 1,
        )
    if isinstance(event, WorkflowDeleted):
        return replace(
            history, deleted=True, updated_at=event.at, stream_version=history.stream_version + 1
        )
    raise TypeError(f"unknown definition event {event!r}")


def fold(name: str, events: list[DefinitionEvent]) -> History:
    """The history of a workflow from its events."""
    return fold_onto(History(name=name), events)


def fold_onto(history: History, events: list[DefinitionEvent]) -> History:
    """`history` after the events that follow it in its stream."""
    for event in events:
        history = apply(history, event)
    return history


def save(history: History, document: dict[str, Any], now: datetime) -> list[DefinitionEvent]:
    """Events for storing `document`: none when it equals the live latest version."""
    latest = history.latest
    if history.live and latest is not None and latest.document == document:
        return []
    action: Action = "create" if not history.live else "update"
    return [
        VersionSaved(
            name=history.name,
            version=len(history.versions) + 1,
            document=document,
            action=action,
            at=now,
        )
    ]


def rollback(history: History, target: int, now: datetime) -> list[DefinitionEvent]:
    """A new version whose document is version `target`'s; VersionNotFound if there is none."""
    old = history.get(target)
    if old is None:
        raise VersionNotFound(version_id(history.name, target))
    return [
        VersionSaved(
            name=history.name,
            version=len(history.versions) + 1,
            document=old.document,
            action="rollback",
            at=now,
            rolled_back_to=old.version_id,
        )
    ]


def delete(history: History, now: datetime) -> list[DefinitionEvent]:
    """Hide the workflow from the list; nothing when it is not listed."""
    return [WorkflowDeleted(name=history.name, at=now)] if history.live else []


def unified_diff(old: StoredVersion, new: StoredVersion) -> str:
    """A readable unified diff of two versions' canonical documents, pretty-printed as JSON.

    Canonical, because `save` already counts two documents that differ only in key order as
    the same (dicts compare equal): the diff must not show keys that merely moved as changes.
    """
    before = _pretty(canonical(old.document))
    after = _pretty(canonical(new.document))
    lines = difflib.unified_diff(before, after, fromfile=old.version_id, tofile=new.version_id)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _pretty(document: Any) -> list[str]:
    return json.dumps(document, indent=2, ensure_ascii=False).splitlines(keepends=True)


_WORKFLOW_KEYS = tuple(f.alias or n for n, f in WorkflowDefinition.model_fields.items())
_STEP_KEYS = tuple(f.alias or n for n, f in Step.model_fields.items())


def canonical(document: Any) -> Any:
    """The document with its keys in one order whatever order they were written in: a
    workflow's and each step's fields in the seed's order (`name` first, `id` first), any
    other key after them, sorted, and the keys of maps (`variables`, `toolInput`) sorted."""
    return _ordered(document, _WORKFLOW_KEYS)


def _ordered(value: Any, known: tuple[str, ...]) -> Any:
    if not isinstance(value, dict):
        return _sorted(value)
    keys = [k for k in known if k in value] + sorted((k for k in value if k not in known), key=str)
    return {k: _child(k, value[k]) for k in keys}


def _child(key: str, value: Any) -> Any:
    if key in ("steps", "parallel") and isinstance(value, list):
        return [_ordered(step, _STEP_KEYS) for step in value]
    return _sorted(value)


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def to_payload(event: DefinitionEvent) -> dict[str, Any]:
    """The event as stored in the log."""
    if isinstance(event, VersionSaved):
        return {
            "name": event.name,
            "version": event.version,
            "document": event.document,
            "action": event.action,
            "at": event.at.isoformat(),
            "rolled_back_to": event.rolled_back_to,
        }
    return {"name": event.name, "at": event.at.isoformat()}


def from_record(type_: str, payload: dict[str, Any]) -> DefinitionEvent:
    """An event read back from the log."""
    at = datetime.fromisoformat(payload["at"])
    if type_ == VERSION_SAVED:
        return VersionSaved(
            name=payload["name"],
            version=int(payload["version"]),
            document=payload["document"],
            action=payload["action"],
            at=at,
            rolled_back_to=payload.get("rolled_back_to"),
        )
    if type_ == WORKFLOW_DELETED:
        return WorkflowDeleted(name=payload["name"], at=at)
    raise TypeError(f"unknown definition event type {type_!r}")
