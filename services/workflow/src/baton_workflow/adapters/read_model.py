"""The `workflow_instances` read model: one row per instance, updated with its events."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    DateTime,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB

COMPONENT = "workflow"
metadata = MetaData()

workflow_instances = Table(
    "workflow_instances",
    metadata,
    Column("instance_id", String(64), primary_key=True),
    Column("user_id", String(256), nullable=False),
    Column("workflow_id", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("current_step", String(64), nullable=False),
    Column("progress", Float, nullable=False),
    Column("messages_in_step", Integer, nullable=False),
    Column("context", JSON().with_variant(JSONB(), "postgresql"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("ix_workflow_instances_user", "user_id", "status"),
    # One active instance per user and workflow: a second start returns the first.
    Index(
        "ux_workflow_instances_active",
        "user_id",
        "workflow_id",
        unique=True,
        sqlite_where=text("status = 'active'"),
        postgresql_where=text("status = 'active'"),
    ),
)


def _create_v1(conn: Connection) -> None:
    metadata.create_all(conn, tables=[workflow_instances])


STEPS = [_create_v1]
"""Migration steps of the workflow service's own tables; append, never edit."""
