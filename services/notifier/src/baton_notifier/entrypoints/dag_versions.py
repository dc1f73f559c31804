"""DAG workflow versions: the history, a rollback, and the diff of two versions.

Every save stores a new version; these routes read that history or copy an older document
forward, never rewriting a stored version.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from baton_contracts.dag_api import (
    MAX_WORKFLOW_NAME_CHARS,
    VERSION_ID_PATTERN,
    DagVersionDiff,
    DagVersionList,
    DiffDagVersions,
    ListDagVersions,
    RollbackDagWorkflow,
)
from baton_contracts.ids import VERSION_ID_MEANING
from baton_contracts.workflow_api import PAGE_LIMIT
from baton_notifier.domain.origins import Origins
from baton_notifier.entrypoints.dag_params import Limit, Name, VersionId
from baton_notifier.entrypoints.documented import documented
from baton_notifier.entrypoints.http import CurrentForwarder, CurrentIdentity

# Where each message field came from, so an error names it so (see `Origins`).
VERSIONS = Origins({"name": "path.name", "limit": "query.limit", "after": "query.after"})
ROLLBACK = Origins({"name": "path.name", "version_id": "body.version_id"})
DIFF = Origins({"from_version": "path.from_id", "to_version": "path.to_id"})


ROLLBACK_TO_PATTERN = rf"^([A-Za-z0-9_-]{{1,{MAX_WORKFLOW_NAME_CHARS}}}@)?0*[1-9][0-9]{{0,8}}$"
"""`RollbackBody.version_id` as `/openapi.json` states it: `VERSION_ID_PATTERN`, its
`<name>@` left out when only the version is given. Only stated; the refusal is the model's."""


class RollbackBody(BaseModel):
    """`POST /workflows/{name}/rollback`: the version whose document becomes the newest."""

    model_config = ConfigDict(extra="forbid")

    version_id: str = Field(
        description="`<name>@<version>` of this workflow, or the bare version number; versions "
        "start at 1. A version of another workflow than the path's `{name}` is refused (422 "
        "naming `body.version_id`), as is one the workflow does not have (404)",
        examples=["my-workflow@2"],
        **documented(pattern=ROLLBACK_TO_PATTERN),
    )

    @field_validator("version_id")
    @classmethod
    def _not_version_zero(cls, value: str) -> str:
        number = value.rpartition("@")[2]
        # ASCII only: "²" is a digit to `isdigit` that `int` cannot read (a ValueError quoted).
        if number.isascii() and number.isdigit() and int(number) == 0:
            raise PydanticCustomError("version_zero", f"versions start at 1 (got {value!r})")
        if not re.match(VERSION_ID_PATTERN, value if "@" in value else f"name@{value}"):
            raise PydanticCustomError("version_id", f"{VERSION_ID_MEANING} (got {value[:80]!r})")
        return value


class DagVersionDiffPage(DagVersionDiff):
    """`DagVersionDiff` as HTTP answers it: `shortened` always there (the NATS reply leaves it
    off when false, for a gateway older than it)."""

    shortened: bool = Field(
        default=False,
        description="True when the diff was over about 512 KiB: its long lines are cut and the "
        "lines past that left out, each place saying so in `diff`",
    )


class DagVersionListPage(DagVersionList):
    """`DagVersionList` as HTTP answers it: `next_after` always there, `null` on the last page
    (the NATS reply leaves it off then, for a gateway older than paging)."""

    next_after: str | None = Field(
        default=None,
        description="Ask again with `?after=` this version id for the next (older) versions; "
        "`null` on the last page",
    )


# Checked by `ListDagVersions` (`VersionId`), which names `query.after` in its refusal.
VersionsAfter = Annotated[
    str | None,
    Query(
        description="The previous page's `next_after`: only the versions older than this one "
        "of the workflow's",
        examples=["my-workflow@2"],
    ),
]


async def versions(
    name: Name,
    identity: CurrentIdentity,
    forwarder: CurrentForwarder,
    limit: Limit = PAGE_LIMIT,
    after: VersionsAfter = None,
) -> Any:
    """A workflow's versions, newest first, a page at a time (`next_after`)."""
    return await forwarder.forward(
        ListDagVersions, identity, name=name, limit=limit, after=after, origins=VERSIONS
    )


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
