"""The platform as real processes for end-to-end benchmarks: NATS, workflow service, gateway."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import nats

from baton_auth import mint_token
from baton_contracts import HEALTH_QUERIES, RemoteError
from baton_messaging import request
from baton_messaging.embedded import EmbeddedNatsServer, free_port

SECRET = "bench-secret-bench-secret-bench-secret!!"


@dataclass(frozen=True)
class Platform:
    """Where the running platform answers."""

    gateway_url: str
    nats_url: str
    pids: dict[str, int] = field(default_factory=dict)
    """Each process of the platform by name (`workflow`, `gateway`, `agent-runner`, `nats`)."""

    def headers(self, user: str) -> dict[str, str]:
        """A bearer header for `user`, minted once per user, as a real client keeps its token
        (minting one per request cost the load generator about 14 us of CPU each time, taken
        from the platform it measures on the same cores)."""
        return {"Authorization": _bearer(user)}


@functools.lru_cache(maxsize=4096)
def _bearer(user: str) -> str:
    return f"Bearer {mint_token(SECRET, user)}"


def spawn(module: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`python -m module` with `env` over this process's environment, its output in `log`."""
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", module], env={**os.environ, **env},
                                stdout=out, stderr=subprocess.STDOUT)  # fmt: skip


def stop_process(process: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """SIGTERM, then SIGKILL if the process has not exited within `grace` seconds."""
    process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()


async def _wait_ready(
    platform: Platform, processes: list[subprocess.Popen[bytes]], owners: list[str]
) -> None:
    nc = await nats.connect(platform.nats_url)
    try:
        async with httpx.AsyncClient() as http:
            for _ in range(300):
                if any(p.poll() is not None for p in processes):
                    raise RuntimeError("a service exited during start; see the bench logs")
                with contextlib.suppress(httpx.HTTPError, RemoteError):
                    up = await http.get(f"{platform.gateway_url}/health")
                    for owner in owners:
                        await request(nc, HEALTH_QUERIES[owner].model_validate({}), timeout=0.5)
                    if up.status_code == 200:
                        return
                await asyncio.sleep(0.1)
    finally:
        await nc.close()
    raise RuntimeError("the platform did not become ready")


@contextlib.asynccontextmanager
async def running_platform(
    work: Path,
    database_url: str,
    definitions: Path,
    agent_database_url: str | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Platform]:
    """NATS, `python -m baton_workflow` and `python -m baton_notifier`, stopped on exit.

    With `agent_database_url`, the agent-runner runs too (scripted model, Qdrant folder).
    `env` is given to every service over the bench's own settings.
    """
    server = EmbeddedNatsServer(store_dir=work / "nats")
    server.start()
    port = free_port()
    common = {"BATON_NATS_URL": server.url, "BATON_LOG_LEVEL": "WARNING", **(env or {})}
    processes = [
        spawn("baton_workflow", {**common, "BATON_DATABASE_URL": database_url,
                                 "BATON_WORKFLOW_DEFINITIONS_DIR": str(definitions)},
              work / "workflow.log"),
        spawn("baton_notifier", {**common, "BATON_JWT_SECRET": SECRET,
                                 "BATON_HTTP_PORT": str(port)}, work / "notifier.log"),
    ]  # fmt: skip
    owners = ["workflow"]
    if agent_database_url is not None:
        owners.append("agent")
        processes.append(
            spawn("baton_agent_runner", {**common, "BATON_DATABASE_URL": agent_database_url,
                                         "BATON_QDRANT_PATH": str(work / "qdrant")},
                  work / "agent-runner.log")
        )  # fmt: skip
    names = ["workflow", "gateway", "agent-runner"][: len(processes)]
    pids = {name: process.pid for name, process in zip(names, processes, strict=True)}
    if server.pid is not None:
        pids["nats"] = server.pid
    platform = Platform(gateway_url=f"http://127.0.0.1:{port}", nats_url=server.url, pids=pids)
    try:
        await _wait_ready(platform, processes, owners)
        yield platform
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        server.stop()
