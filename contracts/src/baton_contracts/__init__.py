"""Baton's wire contracts: every message that crosses NATS, its subject, and the streams."""

from baton_contracts.base import (
    OWNERS,
    Broadcast,
    Command,
    Delivery,
    ErrorBody,
    ErrorCode,
    ErrorDetail,
    Event,
    Kind,
    Message,
    Query,
    ReplyError,
    ReplyOk,
    Subject,
    ok_reply_json,
    ok_result_json,
)
from baton_contracts.catalog import REGISTRY, STREAMS
from baton_contracts.errors import (
    ContractError,
    MalformedMessage,
    RemoteError,
    UnknownMessageType,
)
from baton_contracts.registry import Registry, message_type, subject_matches
from baton_contracts.streams import Retention, StreamSpec, durable_name, stream_name
from baton_contracts.system import HEALTH_QUERIES, HealthStatus

__all__ = [
    "HEALTH_QUERIES",
    "OWNERS",
    "REGISTRY",
    "STREAMS",
    "Broadcast",
    "Command",
    "ContractError",
    "Delivery",
    "ErrorBody",
    "ErrorCode",
    "ErrorDetail",
    "Event",
    "HealthStatus",
    "Kind",
    "MalformedMessage",
    "Message",
    "Query",
    "Registry",
    "RemoteError",
    "ReplyError",
    "ReplyOk",
    "Retention",
    "StreamSpec",
    "Subject",
    "UnknownMessageType",
    "durable_name",
    "message_type",
    "ok_reply_json",
    "ok_result_json",
    "stream_name",
    "subject_matches",
]
