"""A live feed sent a token two ways: the same token is taken, two different ones are refused.

`/api/events` took the Authorization header over `?token=`, and `/ws` the subprotocols' token
over `?token=`, without a word: a proxy in front that checked the other one vouched for
another user than the one whose events were then streamed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from .conftest import WAIT, Gateway, sse_client, token


async def _refusal(gateway: Gateway, **request: Any) -> httpx.Response:
    """The answer to a GET of the feed, read whole only once it is known not to be a stream
    (taken, the feed would never end)."""
    async with (
        httpx.AsyncClient(base_url=gateway.http_url, timeout=WAIT) as http,
        http.stream("GET", "/api/events", **request) as response,
    ):
        assert response.status_code == 401, response.headers
        await response.aread()
    return response


TWO_WAYS = "different tokens sent (the Authorization header and ?token=): send one token, one way"


async def test_sse_with_a_header_and_a_different_token_parameter_is_401(gateway: Gateway) -> None:
    headers = {"Authorization": f"Bearer {token('alice')}"}
    response = await _refusal(gateway, headers=headers, params={"token": token("bob")})
    assert response.headers["WWW-Authenticate"] == "Bearer"
    error = response.json()["error"]
    assert error["message"] == TWO_WAYS
    assert error["details"] == [{"field": "token", "message": "malformed"}]


async def test_sse_with_two_different_token_parameters_is_401(gateway: Gateway) -> None:
    params = [("token", token("alice")), ("token", token("bob"))]
    response = await _refusal(gateway, params=params)
    assert response.json()["error"]["message"] == (
        "different tokens sent (?token=): send one token, one way"
    )


async def test_sse_with_the_same_token_in_the_header_and_the_parameter_is_served(
    gateway: Gateway,
) -> None:
    same = token("alice")
    headers = {"Authorization": f"Bearer {same}"}
    async with sse_client(gateway, headers, token=same) as client:
        assert client.response.status_code == 200
        assert await client.ready() == []


async def test_websocket_with_subprotocols_and_a_different_token_parameter_is_closed_4401(
    gateway: Gateway,
) -> None:
    url = gateway.ws_url(token=token("bob"))
    subprotocols = ["bearer", token("alice")]
    async with connect(url, subprotocols=subprotocols, open_timeout=WAIT) as conn:  # type: ignore[arg-type]
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(conn.recv(), WAIT)
    assert conn.close_code == 4401
    assert conn.close_reason == (
        "different tokens sent (the subprotocols and ?token=): send one token, one way"
    )


async def test_websocket_with_the_same_token_in_subprotocols_and_parameter_is_served(
    gateway: Gateway,
) -> None:
    same = token("alice")
    url = gateway.ws_url(token=same)
    async with connect(url, subprotocols=["bearer", same], open_timeout=WAIT) as conn:  # type: ignore[list-item]
        frame = await asyncio.wait_for(conn.recv(), WAIT)
    assert json.loads(frame)["type"] == "ready"
