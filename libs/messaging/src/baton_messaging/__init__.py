"""Baton's NATS plumbing: one way to build a broker, declare streams, answer and make requests."""

from baton_messaging.broadcasts import broadcast, listen
from baton_messaging.broker import (
    MessagingSettings,
    build_broker,
    declare_streams,
    start_broker,
    stream_config,
)
from baton_messaging.caller_clock import caller_now
from baton_messaging.consumers import (
    ConsumerDeclarationError,
    declare_durables,
    durable_subscriber,
)
from baton_messaging.handling import answer
from baton_messaging.publisher import JetStreamPublisher, PublishAck, PublishError
from baton_messaging.requests import replica_gone, request, request_json
from baton_messaging.resending import request_again_while_gone, request_json_again_while_gone
from baton_messaging.responder import respond, responder, stop_serving

__all__ = [
    "ConsumerDeclarationError",
    "JetStreamPublisher",
    "MessagingSettings",
    "PublishAck",
    "PublishError",
    "answer",
    "broadcast",
    "build_broker",
    "caller_now",
    "declare_durables",
    "declare_streams",
    "durable_subscriber",
    "listen",
    "replica_gone",
    "request",
    "request_again_while_gone",
    "request_json",
    "request_json_again_while_gone",
    "respond",
    "responder",
    "start_broker",
    "stop_serving",
    "stream_config",
]
