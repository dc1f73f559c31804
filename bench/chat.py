"""One conversation turn end to end: HTTP in, scripted agent, durable transition, reply out."""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

from bench.beside import median_beside
from bench.http import LeanHttp
from bench.measure import budget_note, concurrent, cpu_note, sequential
from bench.platform import Platform, running_platform
from bench.postgres import fresh_database
from bench.registry import Options, Row, case

STEPS = 20  # greeter steps in a row; the greeter closes a step once the chat has 3 user turns
TARGET_P50_MS, TARGET_PER_S = 6.0, 300.0  # issue 4


def _chat_definition(folder: Path, count: int = STEPS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    steps = [
        {"id": f"s{i:02d}", "agent_slug": "greeter", "min_messages": 0, "max_messages": 50,
         "completion_criteria": [{"checker": "agent_signal"}],
         "next_step": f"s{i + 1:02d}" if i + 1 < count else None}
        for i in range(count)
    ]  # fmt: skip
    (folder / "chat.json").write_text(json.dumps({"id": "bench-chat", "steps": steps}))
    return folder


class Chatter:
    """Users chatting through the gateway; a finished instance is replaced by a new one."""

    def __init__(self, platform: Platform, http: LeanHttp) -> None:
        self.platform, self.http = platform, http
        self.instances: dict[str, str] = {}

    async def _instance(self, user: str) -> str:
        if user not in self.instances:
            reply = await self.http.post("/api/workflows", json={"workflow_id": "bench-chat"},
                                         headers=self.platform.headers(user))  # fmt: skip
            self.instances[user] = reply.json()["instance_id"]
        return self.instances[user]

    async def turn(self, user: str) -> None:
        """One message and the agent's answer; the step moves on most turns."""
        instance = await self._instance(user)
        reply = await self.http.post(
            f"/api/workflows/{instance}/messages",
            json={"text": "hello there", "client_message_id": uuid.uuid4().hex},
            headers=self.platform.headers(user),
        )
        if reply.status_code != 200:
            raise RuntimeError(f"turn failed: {reply.status_code} {reply.text}")
        if reply.json()["progress"]["status"] == "completed":
            del self.instances[user]


@asynccontextmanager
async def chatter(
    database_url: str,
    agent_database_url: str,
    steps: int = STEPS,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Chatter]:
    """A running platform whose chat workflow has `steps` steps, `env` given to its services."""
    with tempfile.TemporaryDirectory(prefix="baton-bench-") as tmp:
        work = Path(tmp)
        defs = _chat_definition(work / "defs", steps)
        async with (
            running_platform(work, database_url, defs, agent_database_url, env) as platform,
            LeanHttp(platform.gateway_url, 100, timeout=30) as http,
        ):
            yield Chatter(platform, http)


@case("chat.turn.postgres", "HTTP message -> scripted agent -> durable transition -> reply, PG")
async def turn_postgres(opts: Options) -> list[Row]:
    async with (
        fresh_database(opts.postgres_url) as workflow_url,
        fresh_database(opts.postgres_url) as agent_url,
        chatter(workflow_url, agent_url) as c,
    ):
        for _ in range(5):
            await c.turn("warm")
        rows = []
        for measure, by, target, per_s in (
            (lambda: sequential("PostgreSQL: 1 conversation", opts.size(300, 30),
                                lambda i: c.turn("solo")),
             "p50_ms", lambda r: ("p50 < 6 ms", (r.p50_ms or 0) < TARGET_P50_MS), None),
            (lambda: concurrent("PostgreSQL: 50 conversations", 50, opts.size(20, 3),
                                lambda w, i: c.turn(f"u{w}")),
             "ops_per_s", lambda r: ("300 turns/s", r.ops_per_s >= TARGET_PER_S), TARGET_PER_S),
        ):  # fmt: skip
            row, cpu, trials = await median_beside(opts, measure, by)
            what, met = target(row)
            note = f"target {what}: {'met' if met else 'not met'}{trials}"
            note += cpu_note(cpu, row.ops, "turn")
            if per_s is not None:
                note += budget_note(cpu, row.ops, "turn", per_s)
            rows.append(replace(row, note=note))
        return rows
