"""The gateway's WebSocket protocol overrides uvicorn's: an upgrade must not orphan an override."""

from __future__ import annotations

import inspect

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from baton_notifier.entrypoints.ws_protocol import GatewayWebSocketProtocol


def test_every_method_the_gateway_overrides_is_one_uvicorn_still_calls() -> None:
    # A method uvicorn renamed would leave ours defined and never called: a limit silently gone.
    overridden = {
        name
        for name, value in vars(GatewayWebSocketProtocol).items()
        if inspect.isfunction(value) and not name.startswith("_")
    }
    assert overridden == {
        "connection_lost",
        "pause_writing",
        "resume_writing",
        "data_received",
        "receive",
        "handle_cont",
        "run_asgi",
    }
    missing = {name for name in overridden if not hasattr(WebSocketsSansIOProtocol, name)}
    assert missing == set()
