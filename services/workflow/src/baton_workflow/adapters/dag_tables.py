"""Read models of DAG workflows: the workflow list and the run list, updated with their events."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    DateTime,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB

COMPONENT = "workflow_dag"
metadata = MetaData()

dag_workflows = Table(
    "dag_workflows",
    metadata,
    Column("owner", String(256), primary_key=True),
    Column("name", String(128), primary_key=True),
    Column("latest_version", Integer, nullable=False),
    Column("description", Text, nullable=False),
    Column("steps", Integer, nullable=False),
    Column("deleted", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

dag_runs = Table(
    "dag_runs",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("owner", String(256), nullable=False),
    Column("workflow", String(128), nullable=False),
    Column("version", Integer, nullable=False),
    Column("mode", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("request_id", String(200), nullable=True),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("cost_usd", Float, nullable=False),
    Column("error", Text, nullable=True),
    Column("stream_version", Integer, nullable=False),
    Column("variables", JSON().with_variant(JSONB(), "postgresql"), nullable=False),
    Index("ix_dag_runs_owner", "owner", "workflow", "started_at"),
    # All the owner's runs, newest first (`GET /workflow-runs` without `?workflow=`): see step 2.
    Index("ix_dag_runs_owner_started", "owner", "started_at"),
    Index("ix_dag_runs_status", "status"),
    # How many runs an owner has running, at every start (`workflow_max_runs_per_user`): the
    # running ones only, however many runs the owner ever started.
    Index(
        "ix_dag_runs_running",
        "owner",
        postgresql_where=text("status = 'running'"),
        sqlite_where=text("status = 'running'"),
    ),
    # A retried start with the same Idempotency-Key finds the run it made.
    Index("ux_dag_runs_request", "owner", "request_id", unique=True),
)


def _create_v1(conn: Connection) -> None:
    metadata.create_all(conn, tables=[dag_workflows, dag_runs])


def _index_owner_started_v2(conn: Connection) -> None:
    # The list of all an owner's runs, newest first, found no index that keeps its order
    # (`ix_dag_runs_owner` has `workflow` between): every listing read all the owner's runs
    # and sorted them to return the newest 50, slower with each run the owner ever started
    # (PostgreSQL 15, 200,000 runs of one owner: 80 ms a listing, a parallel seq scan; with
    # this index 0.09 ms, reading the 50 it returns). Step 1 creates today's table, which has
    # the index already.
    index = next(i for i in dag_runs.indexes if i.name == "ix_dag_runs_owner_started")
    index.create(conn, checkfirst=True)


def _index_running_v3(conn: Connection) -> None:
    # Each start counts the owner's running runs (the per-user limit). Step 1 creates today's
    # table, which has the index already.
    index = next(i for i in dag_runs.indexes if i.name == "ix_dag_runs_running")
    index.create(conn, checkfirst=True)


STEPS = [_create_v1, _index_owner_started_v2, _index_running_v3]
"""Migration steps of the DAG read models; append, never edit."""
