"""Bad input and faults: bad tokens, bad frames, a gateway restart, and NATS going away."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
from datetime import timedelta

import httpx
import nats
import pytest
from nats.aio.client import Client
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from baton_auth import mint_token
from baton_contracts import Event
from baton_messaging.broker import declare_streams
from baton_messaging.embedded import EmbeddedNatsServer
from baton_notifier.adapters.live_jetstream import EVENTS_STREAM
from baton_notifier.domain.live import CLOSE_INTERNAL, STREAM_RESET_REASON

from .conftest import (
    SECRET,
    WAIT,
    Driver,
    Gateway,
    GatewayFactory,
    bearer,
    new_user,
    publish,
    sse_client,
    step_changed,
    token,
    ws_client,
)

FEED_LOGGER = "baton_notifier.adapters.live_jetstream"
EXPIRED = mint_token(SECRET, "old", ttl=timedelta(seconds=-60))
FORGED = mint_token("another-secret-that-is-long-enough!!", "mallory")


@pytest.mark.parametrize(
    ("query", "subprotocols", "reason"),
    [
        ("", None, "missing token"),
        (f"?token={EXPIRED}", None, "token has expired"),
        (f"?token={FORGED}", None, "token signature does not verify"),
        ("", ["bearer", EXPIRED], "token has expired"),
        ("?token=not-a-jwt", None, "token is not a JWT: it should be three parts"),
    ],
)
async def test_websocket_without_a_valid_token_is_closed_with_4401(
    gateway: Gateway, query: str, subprotocols: list[str] | None, reason: str
) -> None:
    url = f"ws://127.0.0.1:{gateway.port}/ws{query}"
    async with connect(url, subprotocols=subprotocols, open_timeout=WAIT) as conn:  # type: ignore[arg-type]
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(conn.recv(), WAIT)
    assert conn.close_code == 4401
    assert conn.close_reason.startswith(reason)


async def test_a_websocket_without_a_token_is_told_how_a_websocket_sends_one(
    gateway: Gateway,
) -> None:
    # The reason used to say "send 'Authorization: Bearer <jwt>'", which /ws never reads.
    url = f"ws://127.0.0.1:{gateway.port}/ws"
    headers = {"Authorization": f"Bearer {token('ann')}"}
    async with connect(url, additional_headers=headers, open_timeout=WAIT) as conn:
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(conn.recv(), WAIT)
    assert conn.close_code == 4401
    assert (
        conn.close_reason
        == "missing token: send ?token=<jwt> or the subprotocols ['bearer', '<jwt>']"
    )


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ({"last_seq": "-1"}, "last_seq must be a whole number >= 0, or <epoch>-<seq>"),
        ({"last_seq": "x"}, "last_seq must be a whole number >= 0, or <epoch>-<seq>"),
        ({"last_seq": "x-5"}, "last_seq must be a whole number >= 0, or <epoch>-<seq>"),
        ({"last_seq": "5", "epoch": "x"}, "epoch must be the epoch a frame carried"),
        ({"instance_id": "a.b"}, "instance_id must"),
        # An empty filter is refused, not widened to every instance.
        ({"instance_id": ""}, "instance_id must not be empty"),
        # An empty resume point is refused, not read as "live only" (missed events skipped).
        ({"last_seq": ""}, "last_seq must not be empty"),
        ({"last_seq": "5", "epoch": ""}, "epoch must not be empty"),
    ],
)
async def test_websocket_with_malformed_parameters_is_closed_with_4400(
    gateway: Gateway, params: dict[str, str], reason: str
) -> None:
    async with ws_client(gateway, "ann", **params) as client:
        with pytest.raises(ConnectionClosed):
            await client.frame()
    assert client.conn.close_code == 4400
    assert client.conn.close_reason.startswith(reason), client.conn.close_reason


@pytest.mark.parametrize(
    ("auth", "reason"),
    [
        ({}, "missing"),
        ({"token": EXPIRED}, "expired"),
        ({"Authorization": f"Bearer {FORGED}"}, "bad_signature"),
        ({"token": "not-a-jwt"}, "malformed"),
    ],
)
async def test_sse_without_a_valid_token_is_401_with_the_error_body(
    gateway: Gateway, auth: dict[str, str], reason: str
) -> None:
    params = {k: v for k, v in auth.items() if k == "token"}
    headers = {k: v for k, v in auth.items() if k != "token"}
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        response = await http.get("/api/events", params=params, headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "unauthorized"
    assert response.json()["error"]["details"] == [{"field": "token", "message": reason}]


async def test_sse_with_two_authorization_headers_is_401_not_the_first_taken(
    gateway: Gateway,
) -> None:
    # HTTPBearer read the first of the two, as the API routes did: alice's stream was opened
    # for a request that also claimed to be bob.
    headers = [
        ("Authorization", f"Bearer {token('alice')}"),
        ("Authorization", f"Bearer {token('bob')}"),
    ]
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        response = await http.get("/api/events", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "Authorization header sent 2 times; send one"
    assert response.json()["error"]["details"] == [{"field": "token", "message": "malformed"}]


@pytest.mark.parametrize(
    ("headers", "params", "field", "message"),
    [
        # The error names what the client sent: an EventSource's author never wrote last_seq.
        ({"Last-Event-ID": "x"}, {}, "header.last-event-id", "Last-Event-ID must be a whole"),
        # An id as the gateway writes it is <epoch>-<seq>: each part is checked.
        ({"Last-Event-ID": "x-5"}, {}, "header.last-event-id", "Last-Event-ID must be a whole"),
        ({"Last-Event-ID": "5-x"}, {}, "header.last-event-id", "Last-Event-ID must be a whole"),
        ({}, {"last_seq": "5", "epoch": "x"}, "query.epoch", "epoch must be the epoch a frame"),
        ({}, {"last_seq": "-1"}, "query.last_seq", "last_seq must be a whole number >= 0"),
        ({}, {"last_seq": "9" * 20}, "query.last_seq", "last_seq must have at most 19 digits"),
        ({"Last-Event-ID": "5"}, {"instance_id": "a.b"}, "query.instance_id", "instance_id must"),
        # `?instance_id=` is a filter sent empty: refused, never read as "every instance".
        ({}, {"instance_id": ""}, "query.instance_id", "instance_id must not be empty"),
        ({}, {"last_seq": ""}, "query.last_seq", "last_seq must not be empty"),
        ({}, {"last_seq": "5", "epoch": ""}, "query.epoch", "epoch must not be empty"),
        # An empty Last-Event-ID is no resume point: the query's is read instead.
        ({"Last-Event-ID": ""}, {"last_seq": "x"}, "query.last_seq", "last_seq must be a whole"),
    ],
)
async def test_sse_with_a_malformed_resume_point_is_422_naming_what_was_sent(
    gateway: Gateway,
    headers: dict[str, str],
    params: dict[str, str],
    field: str,
    message: str,
) -> None:
    headers = {"Authorization": f"Bearer {token('ann')}", **headers}
    async with httpx.AsyncClient(base_url=gateway.http_url) as http:
        response = await http.get("/api/events", headers=headers, params=params)
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert detail["field"] == field and detail["message"].startswith(message), detail


async def test_malformed_frames_get_error_frames_and_the_connection_stays(
    gateway: Gateway, nc: Client
) -> None:
    lou = new_user("lou")
    async with ws_client(gateway, lou) as client:
        await client.ready()
        # Nested past what the JSON parser recurses into: malformed too, not a dropped socket.
        too_deep = "[" * 50_000
        for bad in ["not json", "[1, 2]", '{"type": "subscribe"}', b"\x00\x01", too_deep]:
            await client.send(bad)
            error = await client.frame()
            assert error["type"] == "error" and error["error"]["code"] == "invalid", error
        await client.send('{"type": "ping"}')
        assert await client.frame() == {"type": "pong"}
        seq = await publish(nc, step_changed(lou, "i1", 0))
        assert (await client.events(1))[0]["seq"] == seq


async def test_a_client_frame_over_64_kib_closes_the_socket_with_1009(gateway: Gateway) -> None:
    async with ws_client(gateway, new_user("max")) as client:
        await client.ready()
        await client.send('{"type": "ping", "pad": "' + "x" * (64 * 1024) + '"}')
        with pytest.raises(ConnectionClosed) as closed:
            await client.frame()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_clients_of_a_restarted_gateway_miss_nothing(
    gateways: GatewayFactory, driver: Driver
) -> None:
    mia = new_user("mia")
    instance = await driver.start(mia)
    first = await gateways()
    async with ws_client(first, mia) as client:
        await client.ready()
        await driver.advance(mia, instance)
        last_seq = (await client.events(1))[0]["seq"]
        await first.stop()
        with pytest.raises(ConnectionClosed):
            await client.frame()
        # The gateway's own close, not uvicorn's (1012, no reason), which came first before.
        assert client.conn.close_code == 1001
        assert client.conn.close_reason == "gateway stopping; reconnect with last_seq"
    for _ in range(3):
        await driver.advance(mia, instance)
    second = await gateways()
    async with ws_client(second, mia, last_seq=last_seq) as client:
        missed = await client.ready()
        assert [f["payload"]["current_step"] for f in missed] == ["s2", "s3", "s4"]
        await driver.advance(mia, instance)
        assert (await client.events(1))[0]["payload"]["current_step"] == "s5"


async def test_a_stream_that_starts_as_the_gateway_stops_is_ended_so_the_stop_finishes(
    gateway: Gateway,
) -> None:
    # A request already let in when the stop began subscribes after every session was ended;
    # left open, it kept uvicorn (and so the gateway process) waiting until killed.
    gateway.notifier.end_live()  # what the stop does first
    async with sse_client(gateway, bearer(new_user("nia"))) as client:
        closed = await client.next()
    assert (closed.event, closed.data["code"]) == ("closed", 1001)


async def test_nats_outage_keeps_sockets_open_and_delivery_catches_up(
    own_nats: EmbeddedNatsServer, gateways: GatewayFactory
) -> None:
    gateway = await gateways(own_nats.url)
    ned = new_user("ned")
    async with (
        ws_client(gateway, ned) as ws,
        sse_client(gateway, {"Authorization": f"Bearer {token(ned)}"}) as sse,
        httpx.AsyncClient(base_url=gateway.http_url) as http,
    ):
        await ws.ready()
        ready = await sse.next()
        assert ready.event == "ready"
        own_nats.stop()
        await _until_health(http, 503)
        await ws.send('{"type": "ping"}')
        assert await ws.frame() == {"type": "pong"}  # the socket outlived NATS

        own_nats.start()
        await _until_health(http, 200)
        nc = await nats.connect(own_nats.url)
        try:
            seqs = [await publish(nc, step_changed(ned, "i1", n)) for n in range(3)]
        finally:
            await nc.close()
        assert [f["seq"] for f in await ws.events(3)] == seqs
        # NATS came back with its store: the same stream, so the same epoch (no resync).
        epoch = ready.data["epoch"]
        assert [(await sse.next()).id for _ in seqs] == [f"{epoch}-{seq}" for seq in seqs]


async def test_a_nats_outage_is_one_warning_of_the_live_feed_and_one_line_when_it_resumes(
    own_nats: EmbeddedNatsServer, gateways: GatewayFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # The feed retries every heartbeat and said each failure again (`live feed: nats:
    # timeout; resuming after seq 5`): one WARNING every few seconds for as long as NATS
    # was away, on top of the broker's own `lost the connection` line.
    gateway = await gateways(own_nats.url)  # heartbeat 0.5 s: a retry every half second
    feed = gateway.notifier.live_feed
    assert feed is not None
    with caplog.at_level(logging.DEBUG, logger=FEED_LOGGER):
        async with httpx.AsyncClient(base_url=gateway.http_url) as http:
            before = feed.last_seq
            own_nats.stop()
            await _until_health(http, 503)
            await asyncio.sleep(8)  # each retry waits out a 5 s JetStream request, then 0.5 s
            own_nats.start()
            await _until_health(http, 200)
        nc = await nats.connect(own_nats.url)
        try:
            seq = await publish(nc, step_changed(new_user("oda"), "i1", 1))
        finally:
            await nc.close()
        await gateway.caught_up(seq)
    feed_lines = [r for r in caplog.records if r.name == FEED_LOGGER]
    warnings = [r.getMessage() for r in feed_lines if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("live feed: ") and "; resuming after seq " in warnings[0]
    resumed = [r.getMessage() for r in feed_lines if r.levelno == logging.INFO]
    assert len(resumed) == 1, resumed
    # Where it resumed, not where the events it was handed while resuming took it.
    assert resumed[0].startswith(f"live feed: resumed after seq {before} ("), resumed


async def _until_health(http: httpx.AsyncClient, status: int) -> None:
    for _ in range(int(WAIT * 10)):
        if (await http.get("/health")).status_code == status:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"/health never answered {status}")


async def test_plain_http_on_the_websocket_path_is_426_saying_how_to_connect(
    gateway: Gateway,
) -> None:
    # It was a 404 "not found", which reads like a wrong path.
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"http://127.0.0.1:{gateway.port}/ws")
    assert answer.status_code == 426, answer.text
    assert answer.headers["upgrade"] == "websocket"
    error = answer.json()["error"]
    assert error["code"] == "upgrade_required"
    assert "WebSocket client" in error["message"] and "/api/events" in error["message"]


@pytest.mark.parametrize("path", ["/api/events", "/ws/", "/events"])
async def test_a_websocket_on_another_path_is_404_saying_where_live_events_are(
    gateway: Gateway, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    # It was uvicorn's bare 403 with no body, which reads like a refused token. And uvicorn
    # logged each denial as an ERROR ("... without completing handshake").
    with pytest.raises(InvalidStatus) as refused:
        await connect(f"ws://127.0.0.1:{gateway.port}{path}", subprotocols=["bearer", "x"])
    answer = refused.value.response
    assert answer.status_code == 404
    error = json.loads(answer.body or b"")["error"]
    assert error["code"] == "not_found"
    assert f"no WebSocket endpoint at {path}" in error["message"]
    assert "/ws" in error["message"] and "GET /api/events" in error["message"]
    await asyncio.sleep(0.1)  # uvicorn logs once the app has returned
    # The gateway's own loggers and uvicorn's: a NATS client another test left reconnecting
    # on the session's loop logs its failures (`nats.aio.client`) into any test's records.
    ours = [r for r in caplog.records if r.name.startswith(("uvicorn", "baton"))]
    assert [r.getMessage() for r in ours if r.levelno >= logging.ERROR] == []


async def test_a_reset_events_stream_ends_sessions_for_a_resync_and_live_delivery_goes_on(
    own_nats: EmbeddedNatsServer, gateways: GatewayFactory
) -> None:
    # NATS came back without its store: the stream's seqs started over at 1, and the feed,
    # waiting for seqs past the old position, handed on nothing while /health said 200
    # (found by a review of the live feed).
    gateway = await gateways(own_nats.url)
    rae = new_user("rae")
    nc = await nats.connect(own_nats.url)
    try:
        for n in range(5):
            await publish(nc, step_changed(rae, "old", n))
    finally:
        await nc.close()
    await gateway.caught_up(5)
    async with ws_client(gateway, rae) as ws:
        await ws.ready()
        own_nats.stop()
        shutil.rmtree(own_nats.store_dir)
        own_nats.start()
        nc = await nats.connect(own_nats.url)
        try:
            await declare_streams(nc.jetstream(), [EVENTS_STREAM])  # as a service's start does
            with pytest.raises(ConnectionClosed) as closed:
                await ws.frame(timeout=WAIT)  # the feed notices within 3 heartbeats
            assert closed.value.rcvd is not None
            assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (
                CLOSE_INTERNAL,
                STREAM_RESET_REASON,
            )
            seqs = [await publish(nc, step_changed(rae, "new", n)) for n in range(3)]
        finally:
            await nc.close()
    assert seqs == [1, 2, 3]
    # Its client reconnects with the last seq it saw, which the new stream does not know.
    async with ws_client(gateway, rae, last_seq="5") as ws:
        assert [f["type"] for f in await ws.ready()] == ["resync"]
    async with ws_client(gateway, rae, last_seq="0") as ws:
        assert [f["seq"] for f in await ws.ready()] == seqs
        live = await _publish_one(own_nats.url, step_changed(rae, "new", 3))
        assert [f["seq"] for f in await ws.events(1)] == [live]


async def _publish_one(url: str, event: Event) -> int:
    nc = await nats.connect(url)
    try:
        return await publish(nc, event)
    finally:
        await nc.close()
