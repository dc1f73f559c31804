"""JetStream stream definitions: one per owner and kind, with the subjects each captures."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Retention(StrEnum):
    """How a stream keeps messages (names follow JetStream's)."""

    LIMITS = "limits"
    WORK_QUEUE = "workqueue"


class StreamSpec(BaseModel):
    """A JetStream stream: its name, the subjects it captures, and how long it keeps them."""

    model_config = ConfigDict(frozen=True)

    name: str
    subjects: tuple[str, ...]
    retention: Retention = Retention.LIMITS
    max_age_seconds: float = 7 * 24 * 3600.0
    duplicate_window_seconds: float = 120.0


def stream_name(owner: str, kind: str) -> str:
    """`workflow`, `evt` -> `WORKFLOW_EVT`: the naming every stream follows."""
    return f"{owner}_{kind}".upper()


def durable_name(consumer: str, stream: str) -> str:
    """Durable consumer names are `<consumer>-<stream>`."""
    return f"{consumer}-{stream}"
