"""Settings of the workflow service; every one is an environment variable (prefix BATON_)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from baton_contracts import STREAMS
from baton_eventstore.pool import DEFAULT_POOL_SIZE
from baton_messaging.nats_url import NatsUrl
from baton_messaging.process import EventLoop
from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS
from baton_telemetry.urls import checked_http_url
from baton_workflow.domain.dag.pricing import ModelPrice, PricingTable

SHIPPED_DEFINITIONS = Path(__file__).parent / "definitions"
STREAMS_OWNED = [s for s in STREAMS if s.name.startswith("WORKFLOW_")]
"""The JetStream streams this service declares and publishes to."""
DUPLICATE_WINDOW_SECONDS = min(s.duplicate_window_seconds for s in STREAMS_OWNED)
"""How long after a publish JetStream still drops a copy of it (the shortest of those streams)."""


class WorkflowSettings(BaseSettings):
    """Where the log lives, where definitions come from, and how long to wait on others."""

    model_config = SettingsConfigDict(env_prefix="BATON_", extra="ignore")

    nats_url: NatsUrl = "nats://127.0.0.1:4222"
    database_url: str = "sqlite+aiosqlite:///.baton/workflow.db"
    database_pool_size: int = Field(
        default=DEFAULT_POOL_SIZE,
        ge=1,
        le=1000,
        description="PostgreSQL connections of the database pool (BATON_DATABASE_POOL_SIZE); "
        "the append pool opens as many again",
    )
    database_statement_timeout_seconds: float = Field(
        default=2.0,
        gt=0,
        description="The longest one database statement may take, a wait for a lock included "
        "(PostgreSQL's statement_timeout, SQLite's busy timeout); then it fails, writing "
        "nothing, and its request is answered unavailable. Migrations are exempt "
        "(BATON_DATABASE_STATEMENT_TIMEOUT_SECONDS)",
    )
    workflow_definitions_dir: Path = SHIPPED_DEFINITIONS
    request_timeout_seconds: float = Field(default=5.0, gt=0)
    checker_timeout_seconds: float = Field(default=2.0, gt=0)
    agent_call_timeout_seconds: float = Field(
        default=35.0,
        gt=0,
        description="How long a chat turn waits for the step's agent (a model call included)",
    )
    signal_timeout_seconds: float = Field(
        default=2.5,
        gt=0,
        description="How long a signal may wait for its instance (behind a chat turn of it, "
        "say), counted from its arrival; then it is refused unavailable, nothing recorded. "
        "With the statement timeout, under the gateway's request timeout "
        "(BATON_SIGNAL_TIMEOUT_SECONDS)",
    )
    conversation_history: int = Field(
        default=20, ge=0, le=200, description="Earlier messages sent to the agent with each turn"
    )
    conflict_retries: int = Field(default=10, ge=0)
    instance_cache_mb: int = Field(
        default=256,
        ge=0,
        description="Memory for instances kept folded between turns (MiB)",
    )
    outbox_lease_seconds: float = Field(
        default=10.0, gt=0, description="After a crash, how long until a new relay may publish"
    )
    outbox_stall_seconds: float = Field(
        default=30.0,
        gt=0,
        description="How long the outbox relay may fail to publish, every try in a row, "
        "before the health check `events_published` says false",
    )
    stop_grace_seconds: float = Field(
        default=DEFAULT_STOP_GRACE_SECONDS,
        ge=0,
        description="On SIGTERM, how long requests being handled may finish before they are "
        "cancelled and answered unavailable (BATON_STOP_GRACE_SECONDS)",
    )
    log_level: str = "INFO"
    event_loop: EventLoop = Field(
        default="uvloop", description="uvloop, or asyncio for debugging (BATON_EVENT_LOOP)"
    )
    workflow_checker_modules: list[str] = Field(
        default_factory=list,
        description="Modules with `register(registry)` adding checkers, e.g. '[\"my.checks\"]'",
    )
    # --- DAG workflows (seed 004) ---
    workflow_env_allowlist: list[str] = Field(
        default_factory=list,
        description="Environment variables a workflow may read as {{env.KEY}}; none by default",
    )
    workflow_dag_lease_seconds: float = Field(
        default=15.0, gt=0, description="How soon another process resumes a run whose driver died"
    )
    workflow_dag_write_timeout_seconds: float = Field(
        default=2.5,
        gt=0,
        description="By when, from its arrival, a DAG request that writes (a run's start or "
        "cancel, a workflow's save, delete or rollback) must have begun writing; one still "
        "waiting for the database then is refused unavailable, nothing written. With the "
        "statement timeout, under the gateway's request timeout "
        "(BATON_WORKFLOW_DAG_WRITE_TIMEOUT_SECONDS)",
    )
    data_dir: Path | None = Field(
        default=None,
        description="This replica's own folder (BATON_DATA_DIR, set by `baton up`): it keeps the "
        "replica's id, so that after a kill the restarted process resumes its runs at once",
    )
    workflow_max_runs_per_user: int = Field(
        default=100,
        ge=1,
        description="Most DAG runs one user may have running at once; a start past it is "
        "refused (HTTP 429, too_many) until one ends or is cancelled",
    )
    workflow_agent_step_timeout_seconds: float = Field(
        default=300.0, gt=0, description="Timeout of a dispatch or handoff step that sets none"
    )
    workflow_agent_runner_wait_seconds: float = Field(
        default=300.0,
        gt=0,
        description="How long a dispatch or handoff step that sets no timeout waits for a down "
        "agent-runner (none running, or restarting) before it fails; a step with a timeout "
        "waits for it up to that timeout (BATON_WORKFLOW_AGENT_RUNNER_WAIT_SECONDS)",
    )
    workflow_pricing: PricingTable = Field(
        default_factory=lambda: PricingTable(
            default=ModelPrice(input_per_1k=0.001, output_per_1k=0.002), output_tokens=500
        ),
        description="Dry-run prices: JSON {prices: {model: {input_per_1k, output_per_1k}}, ...}",
    )
    workflow_tool_timeout_seconds: float = Field(
        default=30.0, gt=0, description="Timeout of a tool or skill step that sets none"
    )
    workflow_tool_max_response_bytes: int = Field(
        default=1024 * 1024, gt=0, description="Largest HTTP body a tool or web-search reads"
    )
    workflow_tool_max_redirects: int = Field(default=5, ge=0, description="Redirects followed")
    workflow_tool_url_schemes: list[str] = Field(
        default_factory=lambda: ["http", "https"], description="URL schemes tools may use"
    )
    workflow_tool_denied_hosts: list[str] = Field(
        default_factory=list,
        description="Hosts tools may not reach: exact name, .suffix, or an IP network",
    )
    workflow_tool_modules: list[str] = Field(
        default_factory=list, description="Modules with register_tools(registry)"
    )
    workflow_skill_modules: list[str] = Field(
        default_factory=list, description="Modules with register_skills(registry)"
    )
    workflow_search_url: str | None = Field(
        default=None, description="The web-search skill's endpoint, e.g. a SearxNG /search URL"
    )

    @field_validator("workflow_search_url")
    @classmethod
    def _search_url_is_http(cls, value: str | None) -> str | None:
        # Taken as it was, a wrong one failed every web-search step at run time, reading like
        # a fault of the step's input rather than of this setting.
        if value is None:
            return None
        return checked_http_url(value, example="http://127.0.0.1:8888/search")

    @field_validator("outbox_lease_seconds")
    @classmethod
    def _lease_inside_the_duplicate_window(cls, value: float) -> float:
        # A relay that takes over after a crash publishes again what the dead one had
        # published and not yet deleted; JetStream drops those copies only inside its window.
        # A longer lease would leave every takeover's copies to the relay's own look-up alone.
        if value >= DUPLICATE_WINDOW_SECONDS:
            raise ValueError(
                f"must be less than {DUPLICATE_WINDOW_SECONDS:g} s, JetStream's duplicate "
                f"window of the workflow streams, got {value:g}: a relay taking over after a "
                "crash publishes again what the dead one published last, and JetStream drops "
                "those copies only within that window"
            )
        return value
