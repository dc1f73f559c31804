"""What every request the workflow service answers shares, conversation (`workflow_api`) and
DAG (`dag_definitions`, `dag_runs`, `dag_versions`) alike: the base of its replies, and the
subjects of its commands and queries."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from baton_contracts.base import Kind, Subject


class Reply(BaseModel):
    """The base of every workflow reply and of the values it holds: frozen, and no field it
    does not declare."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def cmd(name: str) -> Subject:
    """The subject of the workflow's command `name`."""
    return Subject(owner="workflow", kind=Kind.CMD, name=name)


def query(name: str) -> Subject:
    """The subject of the workflow's query `name`."""
    return Subject(owner="workflow", kind=Kind.QUERY, name=name)
