"""DAG workflow versions: the history, a rollback, and the diff of two versions.

Every save stores a new version; these routes read that history or copy an older document
forward, never rewriting a stored version.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from baton_contracts.dag_api import (
    VERSION_ID_PATTERN,
    DiffDagVersions,
    ListDagVersions,
    RollbackDagWorkflow,
)
from baton_contracts.ids import VERSION_ID_MEANING
from baton_notifier.domain.origins import Origins
from baton_notifier.entrypoints.dag_params import Name, VersionId
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity

# Where each message field came from, so an error names it so (see `Origins`).
NAMED = Origins({"name": "path.name"})
ROLLBACK = Origins({"name": "path.name", "version_id": "body.version_id"})
DIFF = Origins({"from_version": "path.from_id", "to_version": "path.to_id"})


class RollbackBody(BaseModel):
    """`POST /workflows/{name}/rollback`: the version whose document becomes the newest."""

    model_config = ConfigDict(extra="forbid")

    version_id: str = Field(
        description="`<name>@<version>`, or the bare version number", examples=["my-workflow@2"]
    )

    @field_validator("version_id")
    @classmethod
    def _not_version_zero(cls, value: str) -> str:
        number = value.rpartition("@")[2]
        if number.isdigit() and int(number) == 0:
            raise PydanticCustomError("version_zero", f"versions start at 1 (got {value!r})")
        if not re.match(VERSION_ID_PATTERN, value if "@" in value else f"name@{value}"):
            raise PydanticCustomError("version_id", f"{VERSION_ID_MEANING} (got {value[:80]!r})")
        return value


async def versions(name: Name, identity: CurrentIdentity, forwarder: CurrentForwarder) -> Any:
    """A workflow's versions, newest first."""
    return await forwarder.forward(ListDagVersions, identity, name=name, origins=NAMED)


async def rollback(
    name: Name, body: RollbackBody, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """Store a new version with an earlier version's document."""
    version_id = body.version_id
    if version_id.isdigit():
        version_id = f"{name}@{version_id}"
    return await forwarder.forward(
        RollbackDagWorkflow, identity, name=name, version_id=version_id, origins=ROLLBACK
    )


async def diff(
    from_id: VersionId, to_id: VersionId, identity: CurrentIdentity, forwarder: CurrentForwarder
) -> Any:
    """A unified diff of two versions' documents."""
    return await forwarder.forward(
        DiffDagVersions, identity, from_version=from_id, to_version=to_id, origins=DIFF
    )
