"""The notifier's settings: every one an environment variable named `BATON_<FIELD>`."""

from __future__ import annotations

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings import SettingsError as PydanticSettingsError

from baton_auth import check_secret
from baton_contracts import OWNERS
from baton_messaging.nats_url import NatsUrl
from baton_messaging.process import EventLoop
from baton_messaging.setting_problems import setting_problem, unparsed_setting
from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS

ENV_PREFIX = "BATON_"
MIB = 1024 * 1024


class SettingsError(ValueError):
    """Settings are missing or invalid; the message names each environment variable."""


class NotifierSettings(BaseSettings):
    """What the gateway needs to run; `baton up` and `compose.yaml` set these names."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore", frozen=True)

    nats_url: NatsUrl = "nats://127.0.0.1:4222"
    jwt_secret: str = Field(repr=False)
    http_host: str = "127.0.0.1"
    http_port: int = Field(default=8080, ge=0, le=65535)
    http_fd: int | None = Field(
        default=None,
        ge=0,
        description="A listening TCP socket the gateway inherits and serves on, in place of "
        "binding BATON_HTTP_HOST:BATON_HTTP_PORT itself (baton up holds the port for its run)",
    )
    nats_start_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="How long the gateway waits at start for NATS before it serves HTTP "
        "without it (503 until it connects); connections queue meanwhile",
    )
    request_timeout_seconds: float = Field(default=5.0, gt=0)
    chat_timeout_seconds: float = Field(
        default=40.0,
        gt=0,
        description="How long a chat turn may take; above the workflow's agent call timeout",
    )
    chat_resend_seconds: float = Field(
        default=5.0,
        gt=0,
        description="How long the gateway waits for a chat turn's answer before it sends the "
        "turn again (then twice as long each time, within the chat timeout): a workflow "
        "service killed mid-turn tells no one, and its restarted process, or another "
        "replica, answers the same turn (its client_message_id) once",
    )
    stop_grace_seconds: float = Field(
        default=DEFAULT_STOP_GRACE_SECONDS,
        ge=0,
        description="On SIGTERM, how long requests being served may finish before they are "
        "answered 503 (the gateway is stopping) and the process exits",
    )
    max_body_bytes: int = Field(default=MIB, gt=0)
    max_header_bytes: int = Field(
        default=64 * 1024,
        ge=4096,
        le=MIB,
        description="Largest request line and headers together; more is 431 and the connection "
        "is closed",
    )
    log_level: str = "INFO"
    event_loop: EventLoop = Field(
        default="uvloop", description="uvloop, or asyncio for debugging (BATON_EVENT_LOOP)"
    )
    live_queue_size: int = Field(
        default=1000, ge=1, description="Frames a live socket may fall behind before it is closed"
    )
    live_replay_max_age_seconds: float = Field(
        default=7 * 24 * 3600.0,
        gt=0,
        description="Oldest missed event a reconnect replays; older gaps get a resync frame",
    )
    live_heartbeat_seconds: float = Field(
        default=2.0, gt=0, description="Idle heartbeat of the live JetStream consumer"
    )
    live_keepalive_seconds: float = Field(
        default=15.0, gt=0, description="SSE comment line sent after this long without a frame"
    )
    live_sessions_per_user: int = Field(
        default=32,
        ge=1,
        description="Live connections (WebSocket and SSE together) one user may hold open on "
        "one gateway process; the next is refused",
    )
    dev_sign_in: bool = Field(
        default=False,
        description="Embedded dev mode: `POST /api/dev/token` mints a token for any user name",
    )
    health_services: list[str] = Field(
        default_factory=lambda: sorted(OWNERS),
        min_length=1,
        description="The services `/api/services` asks for their health, as a JSON list: "
        "those this deployment runs (baton up sets it to what it starts); by default every "
        "owner the contracts name",
    )

    @field_validator("health_services")
    @classmethod
    def _known_services(cls, value: list[str]) -> list[str]:
        unknown = [name for name in value if name not in OWNERS]
        if unknown:
            raise ValueError(
                f"unknown service(s) {', '.join(map(repr, unknown))}; "
                f"the services are {', '.join(sorted(OWNERS))}"
            )
        return sorted(set(value))

    @field_validator("jwt_secret")
    @classmethod
    def _secret_long_enough(cls, value: str) -> str:
        return check_secret(value)

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
        return level


def load_settings() -> NotifierSettings:
    """Settings from the environment, or `SettingsError` naming every bad variable on one line."""
    try:
        return NotifierSettings()
    except ValidationError as exc:
        problems = [setting_problem(error) for error in exc.errors()]
        raise SettingsError("invalid settings: " + "; ".join(problems)) from None
    except PydanticSettingsError as exc:  # a list setting that is not JSON
        raise SettingsError(f"invalid settings: {unparsed_setting(str(exc))}") from None
