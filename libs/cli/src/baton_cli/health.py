"""Asking a service whether it is ready: HTTP `GET /health` or the NATS `<owner>.query.health`."""

from __future__ import annotations

import asyncio
import contextlib
import json
from enum import Enum

import httpx
from nats.aio.client import Client as NatsClient

from baton_cli.gateway_bodies import HEALTH, UnreadableBody, read_body
from baton_cli.services import HttpHealth, NatsHealth, Runtime, ServiceSpec
from baton_contracts import HEALTH_QUERIES
from baton_messaging.health import connect_once

PROBE_TIMEOUT = 1.0


def http_base_url(host: str, port: int) -> str:
    """Where to reach an HTTP server bound to `host` (a wildcard bind is reached on loopback)."""
    reach = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    if ":" in reach:
        reach = f"[{reach}]"
    return f"http://{reach}:{port}"


async def http_healthy(client: httpx.AsyncClient, url: str) -> bool:
    """True when `url` answers 200 with the gateway's health body (`{"status": "ok", ...}`)."""
    return await http_answer(client, url) is Answer.HEALTHY


def health_reply_ok(data: bytes) -> bool:
    """True for a `ReplyOk` whose result is a `HealthStatus` with `healthy: true`."""
    try:
        reply = json.loads(data)
    except ValueError:
        return False
    if not isinstance(reply, dict) or reply.get("ok") is not True:
        return False
    result = reply.get("result")
    return isinstance(result, dict) and result.get("healthy") is True


class Answer(Enum):
    """What one probe of a service found."""

    HEALTHY = "healthy"
    UNHEALTHY = "unhealthy"
    """It answered, and said it is not healthy (its database is down, say): it is alive."""
    SILENT = "silent"
    """It did not answer: no reply in time, no responder, no HTTP response."""
    NATS_UNREACHABLE = "nats unreachable"
    """NATS itself did not answer, so the service could not be asked: no fault of its own."""


async def http_answer(
    client: httpx.AsyncClient, url: str, timeout: float = PROBE_TIMEOUT
) -> Answer:
    """How the gateway at `url` answers: any HTTP response is an answer; healthy only a 200
    with the gateway's health body (a 200 from something else on the port is not the gateway)."""
    try:
        response = await client.get(url, timeout=timeout)
    except httpx.HTTPError:
        return Answer.SILENT
    if response.status_code != 200:
        return Answer.UNHEALTHY
    try:
        read_body(response, HEALTH)
    except UnreadableBody:
        return Answer.UNHEALTHY
    return Answer.HEALTHY


class HealthProber:
    """Probes services; keeps one HTTP client and one NATS connection for all of them."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._http = httpx.AsyncClient()
        self._nats: NatsClient | None = None
        # Services are probed at once (a restart's wait, the liveness watch of the others):
        # without it two probes could each open a connection, and one would never be closed.
        self._connecting = asyncio.Lock()

    async def healthy(self, spec: ServiceSpec) -> bool:
        """One probe of one service; any failure to answer counts as not healthy."""
        return await self.answer(spec) is Answer.HEALTHY

    async def answer(self, spec: ServiceSpec, timeout: float = PROBE_TIMEOUT) -> Answer:
        """One probe of one service, waiting `timeout` for its answer, telling a service that
        answered unhealthy, one that did not answer, and a NATS that did not answer apart."""
        if isinstance(spec.health, HttpHealth):
            base = http_base_url(self._runtime.http_host, self._runtime.http_port)
            return await http_answer(self._http, base + spec.health.path, timeout)
        return await self._nats_answer(spec.health, timeout)

    async def _nats_answer(self, health: NatsHealth, timeout: float) -> Answer:
        query = HEALTH_QUERIES[health.owner]()  # type: ignore[call-arg]  # `type` has a default
        try:
            client = await self._connection()
        except Exception:  # refused, or no answer within the timeout
            return Answer.NATS_UNREACHABLE
        try:
            reply = await client.request(query.wire_subject(), query.to_bytes(), timeout=timeout)
        except Exception:  # no responders, timeout, connection lost
            # Whose silence: a frozen or restarting NATS leaves every request unanswered too.
            return Answer.SILENT if await self._nats_answers(client) else Answer.NATS_UNREACHABLE
        return Answer.HEALTHY if health_reply_ok(reply.data) else Answer.UNHEALTHY

    async def _nats_answers(self, client: NatsClient) -> bool:
        """True when the server answers a PING within the probe timeout; else the connection
        is dropped, and the next probe connects anew."""
        try:
            async with asyncio.timeout(PROBE_TIMEOUT):  # nats-py's own takes whole seconds
                await client.flush()
        except Exception:
            if self._nats is client:
                self._nats = None
            await _close_within(client, PROBE_TIMEOUT)
            return False
        return True

    async def _connection(self) -> NatsClient:
        async with self._connecting:
            if self._nats is None or self._nats.is_closed:
                # `connect_once` never reconnects (nats-py would retry a refused connect inside
                # this call, far past the caller's start timeout): a connection that drops is
                # closed, and the next probe connects anew.
                self._nats = await connect_once(self._runtime.nats_url, PROBE_TIMEOUT)
            return self._nats

    async def close(self) -> None:
        """Release the HTTP client and the NATS connection."""
        await self._http.aclose()
        if self._nats is not None and not self._nats.is_closed:
            await _close_within(self._nats, PROBE_TIMEOUT)


async def _close_within(client: NatsClient, timeout: float) -> None:
    """Close `client`, not waiting on a server that does not read (a frozen NATS)."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(timeout):
            await client.close()
