"""Settings of the workflow service; every one is an environment variable (prefix BATON_)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

SHIPPED_DEFINITIONS = Path(__file__).parent / "definitions"


class WorkflowSettings(BaseSettings):
    """Where the log lives, where definitions come from, and how long to wait on others."""

    model_config = SettingsConfigDict(env_prefix="BATON_", extra="ignore")

    nats_url: str = "nats://127.0.0.1:4222"
    database_url: str = "sqlite+aiosqlite:///.baton/workflow.db"
    workflow_definitions_dir: Path = SHIPPED_DEFINITIONS
    request_timeout_seconds: float = Field(default=5.0, gt=0)
    checker_timeout_seconds: float = Field(default=2.0, gt=0)
    agent_call_timeout_seconds: float = Field(
        default=35.0,
        gt=0,
        description="How long a chat turn waits for the step's agent (a model call included)",
    )
    conversation_history: int = Field(
        default=20, ge=0, le=200, description="Earlier messages sent to the agent with each turn"
    )
    conflict_retries: int = Field(default=10, ge=0)
    outbox_lease_seconds: float = Field(
        default=10.0, gt=0, description="After a crash, how long until a new relay may publish"
    )
    log_level: str = "INFO"
    workflow_checker_modules: list[str] = Field(
        default_factory=list,
        description="Modules with `register(registry)` adding checkers, e.g. '[\"my.checks\"]'",
    )
