"""What a service's messaging reads from its environment, and the errors a NATS server unfit
for it raises.

Light on purpose: a service's settings import this module, and read and check their values
before the service imports what it runs on (FastStream, nats-py, ...), so a bad setting is said
at once. Keep FastStream and nats-py out of it.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from baton_messaging.nats_url import NatsUrl

DEFAULT_STOP_GRACE_SECONDS = 10.0
"""How long a stopping responder lets the requests it is handling finish before it cancels
them. A handler may wait minutes (a DAG step on its model), and an orchestrator kills a process
that takes too long to stop (Kubernetes after 30 s by default): a request cut off then is never
answered, and its caller waits out its own timeout. A cancelled one, and every request still
queued behind the busy ones, is answered `unavailable` at once, so its caller may ask another
replica (`request_again_while_gone`). A handler cancelled this way may have done part of its
work: one that callers ask again must be idempotent by a key (the agent-runner's are)."""


class ServerUnfit(ValueError):
    """The NATS server cannot serve the service: older than `broker.MIN_NATS_VERSION`, or taking
    smaller messages (`max_payload`) than the service sends. Named with `BATON_NATS_URL`, and
    the service stops as for a bad setting: waiting will not fix it."""


class MessagingSettings(BaseSettings):
    """NATS settings every service reads from `BATON_*` environment variables."""

    model_config = SettingsConfigDict(env_prefix="BATON_", extra="ignore")

    nats_url: NatsUrl = "nats://127.0.0.1:4222"
    request_timeout_seconds: float = Field(default=5.0, gt=0)
    connect_timeout_seconds: float = Field(default=2.0, gt=0)
