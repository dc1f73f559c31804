"""Asking a service whether it is ready: HTTP `GET /health` or the NATS `<owner>.query.health`."""

from __future__ import annotations

import contextlib
import json

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
    try:
        response = await client.get(url, timeout=PROBE_TIMEOUT)
        if response.status_code != 200:
            return False
        read_body(response, HEALTH)  # a 200 from something else on the port is not the gateway
    except (httpx.HTTPError, UnreadableBody):
        return False
    return True


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


class HealthProber:
    """Probes services; keeps one HTTP client and one NATS connection for all of them."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._http = httpx.AsyncClient()
        self._nats: NatsClient | None = None

    async def healthy(self, spec: ServiceSpec) -> bool:
        """One probe of one service; any failure to answer counts as not healthy."""
        if isinstance(spec.health, HttpHealth):
            base = http_base_url(self._runtime.http_host, self._runtime.http_port)
            return await http_healthy(self._http, base + spec.health.path)
        return await self._nats_healthy(spec.health)

    async def _nats_healthy(self, health: NatsHealth) -> bool:
        query = HEALTH_QUERIES[health.owner]()  # type: ignore[call-arg]  # `type` has a default
        try:
            client = await self._connection()
            reply = await client.request(
                query.wire_subject(), query.to_bytes(), timeout=PROBE_TIMEOUT
            )
        except Exception:  # no responders, timeout, connection refused: all mean "not yet"
            return False
        return health_reply_ok(reply.data)

    async def _connection(self) -> NatsClient:
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
            with contextlib.suppress(Exception):
                await self._nats.close()
