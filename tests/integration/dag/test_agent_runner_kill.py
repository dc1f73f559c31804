"""The agent-runner killed (SIGKILL) while a step's model call is in flight, and restarted on
its folder, as `baton up` restarts it: the step is asked again under the same key and the run
goes on, instead of waiting for an answer the dead process will never send until the step's
timeout fails it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nats
import pytest

from baton_contracts import HEALTH_QUERIES, RemoteError
from baton_messaging import request

from ...platform_stack import Stack
from .conftest import Author, steps_of


class AgentRunnerProcess:
    """`python -m baton_agent_runner` on the test's NATS, a SQLite file and a data folder."""

    def __init__(self, nats_url: str, folder: Path) -> None:
        self.folder = folder
        self.env = {
            **os.environ,
            "BATON_NATS_URL": nats_url,
            "BATON_DATABASE_URL": f"sqlite+aiosqlite:///{folder / 'agent.db'}",
            "BATON_DATA_DIR": str(folder / "data"),
            "BATON_QDRANT_PATH": str(folder / "qdrant"),
            "BATON_MEMORY_BACKEND": "sql",
        }
        self.process: subprocess.Popen[bytes] | None = None

    def spawn(self) -> subprocess.Popen[bytes]:
        with (self.folder / "agent.log").open("ab") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "baton_agent_runner"],
                env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip

    async def start(self, nats_url: str) -> None:
        """Spawn it and wait until it answers its health query."""
        self.process = self.spawn()
        nc = await nats.connect(nats_url)
        try:
            # Generous: a cold interpreter on a busy 2-core machine takes seconds to import.
            for _ in range(1200):
                assert self.process.poll() is None, "the agent-runner exited during start"
                with contextlib.suppress(RemoteError):
                    await request(nc, HEALTH_QUERIES["agent"](), timeout=0.5)
                    return
                await asyncio.sleep(0.05)
            raise AssertionError("the agent-runner never answered its health query")
        finally:
            await nc.close()

    def claims(self) -> list[str]:
        """The keys the agent-runner has claimed: the model calls it has begun."""
        with (
            contextlib.closing(sqlite3.connect(self.folder / "agent.db")) as db,
            contextlib.suppress(sqlite3.OperationalError),  # no table yet
        ):
            return [key for (key,) in db.execute("SELECT idempotency_key FROM agent_claims")]
        return []

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(15)


@pytest.fixture
def agent_process(tmp_path: Path, nats_url: str) -> Iterator[AgentRunnerProcess]:
    folder = tmp_path / "agent-runner"
    folder.mkdir()
    process = AgentRunnerProcess(nats_url, folder)
    yield process
    process.stop()


async def test_a_step_in_flight_when_the_agent_runner_is_killed_is_answered_by_its_restart(
    author: Author, stack: Stack, nats_url: str, agent_process: AgentRunnerProcess
) -> None:
    await stack.stop_agent_runner()  # this test's agent-runner is a process it can kill
    await agent_process.start(nats_url)
    document = {
        "name": "killed-agent",
        "steps": [
            # Far longer than the test waits: a step left to its timeout fails the test.
            {"id": "think", "agent": "hisui", "prompt": "Research kills [[sleep:1]]",
             "timeout": "10m"},
            {"id": "after", "prompt": "Then:\n{{steps.think.output}}", "dependsOn": ["think"]},
        ],
    }  # fmt: skip
    await author.created(document)
    run_id = (await author.run("killed-agent"))["run_id"]
    for _ in range(400):  # until the model call has begun
        if agent_process.claims():
            break
        await asyncio.sleep(0.025)
    assert agent_process.claims() == [f"{run_id}:think:1"]

    agent_process.kill()
    await agent_process.start(nats_url)
    run = await author.wait(run_id, timeout=60)

    assert run["status"] == "success", run
    assert steps_of(run)["think"]["attempts"] == 1  # asked again under the same key
    assert steps_of(run)["after"]["status"] == "success"
