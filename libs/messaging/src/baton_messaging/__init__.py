"""Baton's NATS plumbing: one way to build a broker, declare streams, answer and make requests.

Each name is imported from its module when first used, not with the package: a service's
settings import `baton_messaging.settings` before the service checks them, and that must not
import FastStream or nats-py (a bad setting is said before the service's heavy imports).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from baton_messaging.broadcasts import broadcast, listen
    from baton_messaging.broker import (
        build_broker,
        declare_streams,
        start_broker,
        stream_config,
    )
    from baton_messaging.caller_clock import caller_now
    from baton_messaging.cancelling import cancel_and_wait
    from baton_messaging.consumers import (
        ConsumerDeclarationError,
        declare_durables,
        durable_subscriber,
    )
    from baton_messaging.handling import answer
    from baton_messaging.publisher import JetStreamPublisher, PublishAck, PublishError
    from baton_messaging.requests import replica_gone, request, request_json
    from baton_messaging.resending import request_again_while_gone, request_json_again_while_gone
    from baton_messaging.responders import respond, responder, stop_serving
    from baton_messaging.settings import MessagingSettings

_MODULE_OF = {
    "ConsumerDeclarationError": "consumers",
    "JetStreamPublisher": "publisher",
    "MessagingSettings": "settings",
    "PublishAck": "publisher",
    "PublishError": "publisher",
    "answer": "handling",
    "broadcast": "broadcasts",
    "build_broker": "broker",
    "caller_now": "caller_clock",
    "cancel_and_wait": "cancelling",
    "declare_durables": "consumers",
    "declare_streams": "broker",
    "durable_subscriber": "consumers",
    "listen": "broadcasts",
    "replica_gone": "requests",
    "request": "requests",
    "request_again_while_gone": "resending",
    "request_json": "requests",
    "request_json_again_while_gone": "resending",
    "respond": "responders",
    "responder": "responders",
    "start_broker": "broker",
    "stop_serving": "responders",
    "stream_config": "broker",
}

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
    "cancel_and_wait",
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


def __getattr__(name: str) -> Any:
    """The public `name`, imported from its module on first use."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
