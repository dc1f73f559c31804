"""Settings of the agent-runner; every one is an environment variable (prefix BATON_)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES
from baton_agent_runner.domain.profile import ModelName
from baton_agent_runner.domain.task import DEFAULT_PRICE_ROW, ModelPrice
from baton_eventstore.pool import DEFAULT_POOL_SIZE
from baton_messaging.nats_url import NatsUrl
from baton_messaging.process import EventLoop
from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS
from baton_telemetry.urls import checked_http_url

SHIPPED_PRICES = {
    DEFAULT_PRICE_ROW: ModelPrice(input_usd_per_1k=0.003, output_usd_per_1k=0.015),
    # Small but not zero, so that budgets can be tried offline.
    "scripted": ModelPrice(input_usd_per_1k=0.0001, output_usd_per_1k=0.0002),
}
"""Prices of DAG steps when `BATON_MODEL_PRICES` does not name the model."""

MAX_RETENTION_HOURS = 876_000.0
"""100 years: at this, `BATON_IDEMPOTENCY_RETENTION_HOURS` keeps records practically for ever.
Far longer (or infinity) could not be subtracted from today's date."""


WHERE_DATA_LIVES = ("database_url", "qdrant_path", "qdrant_url", "agent_profiles_dir", "data_dir")
"""Settings an empty variable does not unset, but is refused for: each says where data lives
or is read from."""


class AgentRunnerSettings(BaseSettings):
    """Where data lives, which model the agents use, and how long a model call may take."""

    # An empty variable is unset (`${VAR:-}` in a compose file leaves it so): before, an empty
    # BATON_AGENT_MODEL stopped the start while an empty BATON_OPENAI_BASE_URL was unset.
    model_config = SettingsConfigDict(env_prefix="BATON_", extra="ignore", env_ignore_empty=True)

    @model_validator(mode="before")
    @classmethod
    def _where_data_lives_is_not_unset(cls, values: Any) -> Any:
        # Not where data lives: an empty BATON_DATABASE_URL or BATON_QDRANT_URL read as unset
        # put facts and inbox items in a local file, lost with the container. Given back to
        # its field (`_not_empty`), so the refusal names the variable.
        if not isinstance(values, dict):
            return values
        empty = [n for n in WHERE_DATA_LIVES if os.environ.get(f"BATON_{n.upper()}") == ""]
        return {**{name: "" for name in empty}, **values}

    @field_validator(*WHERE_DATA_LIVES, mode="before")
    @classmethod
    def _not_empty(cls, value: Any) -> Any:
        if value == "":
            raise ValueError(
                "is set but empty: it says where data lives, so empty is not read as unset; "
                "give a value, or unset the variable for the default"
            )
        return value

    nats_url: NatsUrl = "nats://127.0.0.1:4222"
    database_url: str = "sqlite+aiosqlite:///.baton/agent.db"
    database_pool_size: int = Field(
        default=DEFAULT_POOL_SIZE,
        ge=1,
        le=1000,
        description="PostgreSQL connections of the database pool (BATON_DATABASE_POOL_SIZE)",
    )
    qdrant_path: Path = Path(".baton/qdrant/agent")
    qdrant_url: str | None = Field(default=None, description="A Qdrant server; else the folder")
    memory_backend: Literal["mem0", "sql"] = "mem0"
    embedder: Literal["hash", "minilm", "openai"] = Field(
        default="hash",
        description="Mem0's embedder: offline hash, local MiniLM, or OpenAI-compatible",
    )
    embedder_base_url: str | None = Field(
        default=None, description="The OpenAI-compatible embeddings endpoint (none: OpenAI)"
    )
    embedder_api_key: str = "not-needed"
    embedder_model: str = "text-embedding-3-small"
    embedding_dims: int = Field(
        default=1536, gt=0, description="Vector size of the openai embedder"
    )
    embedder_timeout_seconds: float = Field(default=3.0, gt=0)
    embedder_max_retries: int = Field(default=0, ge=0)
    store_timeout_seconds: float = Field(
        default=4.0, gt=0, description="One store call of a query or turn; then it is unavailable"
    )
    agent_profiles_dir: Path = SHIPPED_PROFILES
    agent_model: ModelName | None = Field(
        default=None,
        description="Overrides every profile's model: 'scripted' or 'openai:<model>'",
    )
    openai_base_url: str | None = None
    openai_api_key: str = "not-needed"
    model_request_timeout_seconds: float = Field(default=20.0, gt=0)
    model_max_retries: int = Field(default=0, ge=0)
    agent_timeout_seconds: float = Field(default=30.0, gt=0)
    request_timeout_seconds: float = Field(default=5.0, gt=0)
    model_prices: dict[str, ModelPrice] = Field(
        default_factory=lambda: dict(SHIPPED_PRICES),
        description="USD per 1k tokens by model name, as JSON; merged over the shipped rows",
    )
    task_concurrency: int = Field(
        default=128, ge=1, description="DAG steps (agent.cmd.task) one replica runs at once"
    )
    max_user_share: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="The most of a replica's chat turns and DAG steps at once (256 and "
        "BATON_TASK_CONCURRENCY) one user's may take, as a fraction: 1 lets a lone user take "
        "them all; below 1 keeps the rest free for other users even when none is waiting "
        "(BATON_MAX_USER_SHARE)",
    )
    stop_grace_seconds: float = Field(
        default=DEFAULT_STOP_GRACE_SECONDS,
        ge=0,
        description="On SIGTERM, how long requests being handled may finish before they are "
        "cancelled and answered unavailable (BATON_STOP_GRACE_SECONDS)",
    )
    idempotency_retention_hours: float = Field(
        default=168.0,
        gt=0,
        le=MAX_RETENTION_HOURS,
        description="Hours a turn's reply and a DAG step's result stay recorded for retries "
        "under the same idempotency key; then they are deleted. 168 (7 days, as long as the "
        "NATS streams keep events) by default; 0 is refused, at most 876000 (100 years) "
        "(BATON_IDEMPOTENCY_RETENTION_HOURS)",
    )
    data_dir: Path | None = Field(
        default=None,
        description="This replica's own folder (BATON_DATA_DIR, set by `baton up`): it keeps the "
        "replica's id, so that after a kill the restarted process takes up at once the keys it "
        "was calling a model for",
    )
    log_level: str = "INFO"
    event_loop: EventLoop = Field(
        default="uvloop", description="uvloop, or asyncio for debugging (BATON_EVENT_LOOP)"
    )

    @field_validator("openai_base_url")
    @classmethod
    def _base_url_is_http(cls, value: str | None) -> str | None:
        # Taken as it was, one with no scheme (`localhost:11434/v1`) failed every turn as
        # `unavailable` without naming the URL, and a malformed one as `internal`.
        if value is None or not value.strip():
            return None  # unset, or set empty (`${VAR:-}` in a compose file): OpenAI's own
        return checked_http_url(value, example="http://127.0.0.1:11434/v1")

    @field_validator("model_prices")
    @classmethod
    def _keep_shipped_rows(cls, prices: dict[str, ModelPrice]) -> dict[str, ModelPrice]:
        """A table that leaves out `default` or `scripted` keeps the shipped rows for them."""
        return {**SHIPPED_PRICES, **prices}
