"""SIGKILL the workflow service mid-traffic: after restart the log explains every instance and
every committed event reaches JetStream exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import nats
from nats.aio.client import Client

from baton_contracts import HEALTH_QUERIES, RemoteError
from baton_contracts.workflow_api import (
    ExplainInstance,
    Explanation,
    GetInstanceEvents,
    GetProgress,
    ListActiveInstances,
    RecordExchange,
    StartWorkflow,
    TurnReply,
    WorkflowSignal,
)
from baton_messaging import request

from .conftest import FakeAgentRunner

ANNOUNCED = {
    "workflow.instance_started",
    "workflow.step_changed",
    "workflow.step_blocked",
    "workflow.instance_completed",
}


def spawn(nats_url: str, database_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "BATON_NATS_URL": nats_url,
        "BATON_DATABASE_URL": database_url,
        "BATON_CHECKER_TIMEOUT_SECONDS": "0.2",
    }
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "baton_workflow"], env=env, stdout=out, stderr=subprocess.STDOUT
        )


async def wait_healthy(nc: Client, process: subprocess.Popen[bytes]) -> None:
    # Generous: a cold interpreter on a busy 2-core CI machine takes seconds to import.
    for _ in range(600):
        assert process.poll() is None, "workflow service exited during start"
        with contextlib.suppress(RemoteError):
            await request(nc, HEALTH_QUERIES["workflow"](), timeout=0.5)
            return
        await asyncio.sleep(0.05)
    raise AssertionError("workflow service never answered its health query")


class Answers:
    """Counts answered requests; `reached` is set once `threshold` of them came back."""

    def __init__(self, threshold: int) -> None:
        self.count, self.threshold, self.reached = 0, threshold, asyncio.Event()

    def one_more(self) -> None:
        self.count += 1
        if self.count >= self.threshold:
            self.reached.set()


async def traffic(nc: Client, users: list[str], answers: Answers | None = None) -> None:
    """Each user starts an instance and records 40 exchanges."""
    done = answers or Answers(0)

    async def one(user: str) -> None:
        with contextlib.suppress(RemoteError):
            reply = await request(
                nc, StartWorkflow(user_id=user, workflow_id="onboarding"), timeout=2
            )
            instance = reply.instance.instance_id  # type: ignore[attr-defined]
            done.one_more()
            for n in range(40):
                signal_ = WorkflowSignal(action="complete_step") if n % 2 else None
                await request(
                    nc,
                    RecordExchange(
                        user_id=user, instance_id=instance, command_id=f"{user}-{n}", signal=signal_
                    ),
                    timeout=2,
                )
                done.one_more()

    await asyncio.gather(*(one(u) for u in users), return_exceptions=True)


async def published(nc: Client, prefix: str) -> Counter[str]:
    js = nc.jetstream()
    sub = await js.pull_subscribe("workflow.evt.>", durable=None)
    seen: Counter[str] = Counter()
    while True:
        try:
            batch = await sub.fetch(500, timeout=1)
        except TimeoutError:  # nats-py raises its own subclass, or asyncio's (the builtin)
            break
        for msg in batch:
            body = json.loads(msg.data)
            if body["user_id"].startswith(prefix):
                seen[body["event_id"]] += 1
            await msg.ack()
    await sub.unsubscribe()
    return seen


async def test_sigkill_mid_traffic_loses_and_doubles_nothing(
    nats_url: str, sqlite_url: str, tmp_path: Path, agent_runner: FakeAgentRunner
) -> None:
    # The agent-runner answers the checkers (no facts, no items: a step asked to complete is
    # blocked); without one, each such request is refused and records nothing.
    nc = await nats.connect(nats_url)
    prefix = f"k{uuid.uuid4().hex[:6]}"
    users = [f"{prefix}-{i}" for i in range(12)]
    first = spawn(nats_url, sqlite_url, tmp_path / "workflow.log")
    try:
        await wait_healthy(nc, first)
        answers = Answers(120)  # a quarter of the 492 requests, whatever the machine's speed
        load = asyncio.create_task(traffic(nc, users, answers))
        await asyncio.wait([load, asyncio.create_task(answers.reached.wait())], timeout=30,
                           return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
        assert not load.done(), "traffic ended before the kill; the test would prove nothing"
        first.send_signal(signal.SIGKILL)
        first.wait()
        await load
        second = spawn(nats_url, sqlite_url, tmp_path / "workflow.log")
        await wait_healthy(nc, second)
        await traffic(nc, users)  # the restarted service goes on from the log
        expected, instances = 0, 0
        for user in users:
            active = await _instance_ids(nc, user)
            instances += len(active)
            for instance in active:
                log = await request(
                    nc, GetInstanceEvents(user_id=user, instance_id=instance), timeout=2
                )
                versions = [e.version for e in log.events]  # type: ignore[attr-defined]
                assert versions == list(range(1, len(versions) + 1))
                expected += sum(e.type in ANNOUNCED for e in log.events)  # type: ignore[attr-defined]
        assert instances == len(users)
        seen = await published_when(nc, prefix, expected)
        assert sum(seen.values()) == len(seen), "an event was published twice"
        assert len(seen) == expected, (len(seen), expected)
    finally:
        for proc in (first, locals().get("second")):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(10)
        await nc.close()


async def published_when(nc: Client, prefix: str, expected: int) -> Counter[str]:
    """What JetStream holds once the relay has caught up (or after 30 s, whichever is first)."""
    seen: Counter[str] = Counter()
    for _ in range(60):
        seen = await published(nc, prefix)
        if len(seen) >= expected:
            break
        await asyncio.sleep(0.5)
    return seen


async def _instance_ids(nc: Client, user: str) -> list[str]:
    reply = await request(nc, ListActiveInstances(user_id=user), timeout=2)
    return [i.instance_id for i in reply.instances]  # type: ignore[attr-defined]


async def where(nc: Client, user: str, instance: str) -> tuple[str, int]:
    """The instance's current step and its message counter, as the progress query gives them."""
    progress = await request(nc, GetProgress(user_id=user, instance_id=instance), timeout=2)
    return progress.current_step, progress.messages_in_step  # type: ignore[attr-defined]


async def test_a_restarted_service_finds_the_instance_on_the_same_step_with_the_same_count(
    nats_url: str, sqlite_url: str, tmp_path: Path
) -> None:
    # A user mid-conversation must not be sent back to an earlier step, nor have the messages
    # they already wrote in this step forgotten, because the process was killed and restarted.
    nc = await nats.connect(nats_url)
    user = f"r{uuid.uuid4().hex[:6]}"
    first = spawn(nats_url, sqlite_url, tmp_path / "workflow.log")
    second = None
    try:
        await wait_healthy(nc, first)
        reply = await request(nc, StartWorkflow(user_id=user, workflow_id="onboarding"), timeout=2)
        instance = reply.instance.instance_id  # type: ignore[attr-defined]
        close = WorkflowSignal(action="complete_step")
        # greeting closes on its second message; then three of discovery's (at least) five.
        for n, signal_ in enumerate([None, close, None, None, None]):
            await request(
                nc,
                RecordExchange(
                    user_id=user, instance_id=instance, command_id=f"{user}-{n}", signal=signal_
                ),
                timeout=2,
            )
        before = await where(nc, user, instance)
        assert before == ("discovery", 3)

        first.send_signal(signal.SIGKILL)
        first.wait()
        second = spawn(nats_url, sqlite_url, tmp_path / "workflow.log")
        await wait_healthy(nc, second)

        assert await where(nc, user, instance) == before
        # The read row survived; the state the new process decides on is folded from the log.
        why = await request(nc, ExplainInstance(user_id=user, instance_id=instance), timeout=2)
        assert isinstance(why, Explanation)
        assert (why.current_step, why.messages_in_step) == before
        # And it counts on from there: the next message is the step's fourth.
        turn = await request(
            nc,
            RecordExchange(user_id=user, instance_id=instance, command_id=f"{user}-5"),
            timeout=2,
        )
        assert isinstance(turn, TurnReply)
        assert (turn.outcome, turn.instance.current_step) == ("stayed", "discovery")
        assert turn.instance.messages_in_step == 4
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(10)
        await nc.close()
