"""A connection lasts as long as its token: when the token expires, the gateway ends it.

The gateway accepts a token up to `LEEWAY` seconds past its `exp` (clock skew), and ends the
connection at that same moment, so a token expiring in two seconds ends it in about seven.
"""

from __future__ import annotations

import time
from datetime import timedelta

import jwt
import pytest
from nats.aio.client import Client
from websockets.exceptions import ConnectionClosed

from baton_notifier.domain.live import CLOSE_UNAUTHORIZED, TOKEN_EXPIRED_REASON

from .conftest import WAIT, Gateway, new_user, publish, sse_client, step_changed, token, ws_client

LEEWAY = 5.0  # verify_token's default, which the gateway uses
SHORT = timedelta(seconds=2)


def _exp(jwt_text: str) -> float:
    exp: float = jwt.decode(jwt_text, options={"verify_signature": False})["exp"]
    return exp


async def test_a_websocket_is_closed_with_4401_when_its_token_expires(
    gateway: Gateway, nc: Client
) -> None:
    eve = new_user("eve")
    short = token(eve, ttl=SHORT)
    async with (
        ws_client(gateway, None, token=short) as expiring,
        ws_client(gateway, eve) as lasting,  # a 12-hour token
    ):
        await expiring.ready()
        await lasting.ready()
        before = await publish(nc, step_changed(eve, "i1", 0))
        assert (await expiring.events(1))[0]["seq"] == before
        assert (await lasting.events(1))[0]["seq"] == before

        with pytest.raises(ConnectionClosed):
            frame = await expiring.frame(WAIT + LEEWAY)
            pytest.fail(f"unexpected frame {frame}")
        assert time.time() >= _exp(short)  # not before the token expired
        assert expiring.conn.close_code == CLOSE_UNAUTHORIZED
        assert expiring.conn.close_reason == TOKEN_EXPIRED_REASON

        after = await publish(nc, step_changed(eve, "i1", 1))
        assert (await lasting.events(1))[0]["seq"] == after  # the other stays open

    # A new token and the last seq seen: nothing is missed.
    async with ws_client(gateway, eve, last_seq=before) as resumed:
        assert [f["seq"] for f in await resumed.ready()] == [after]


async def test_an_sse_stream_ends_with_a_closed_event_when_its_token_expires(
    gateway: Gateway, nc: Client
) -> None:
    fay = new_user("fay")
    short = token(fay, ttl=SHORT)
    async with sse_client(gateway, {"Authorization": f"Bearer {short}"}) as stream:
        assert await stream.ready() == []
        seq = await publish(nc, step_changed(fay, "i1", 0))
        event = await stream.next()
        assert event.id == f"{event.data['epoch']}-{seq}"

        closed = await stream.next(WAIT + LEEWAY)
        assert time.time() >= _exp(short)
        assert closed.event == "closed"
        assert closed.data == {
            "type": "closed",
            "code": CLOSE_UNAUTHORIZED,
            "reason": TOKEN_EXPIRED_REASON,
        }
        with pytest.raises(EOFError):
            await stream.next()
