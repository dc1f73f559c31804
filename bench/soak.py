"""A soak: thousands of chat turns, each platform process's resident memory read as they go.

docs/running.md says process memory is bounded (folded instances by BATON_INSTANCE_CACHE_MB, a
lock only while it is held, live queues by their size). Speed cases run too briefly to see a
leak, so this case runs many turns, with new users and new instances all the time, and reads
every process's RSS (`/proc/<pid>/status`) after a warm-up and then every few hundred turns.

The instance cache is given a small budget (`CACHE_MB`), so that it is full before the
warm-up ends: at the default 256 MiB it would fill during the whole run and hide any other
growth. No figure is a target; each row reads its trend, and says whether it rose beyond the
checkpoints' own scatter.
"""

from __future__ import annotations

import math
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.chat import Chatter, chatter
from bench.measure import concurrent
from bench.postgres import fresh_database
from bench.registry import Options, Row, case

CONVERSATIONS = 20  # at a time, each worker one user after another
STEPS = 4  # the greeter closes a step every 3 user turns: a new instance every 12 turns
TURNS_PER_USER = 24  # then the worker's next turn is a new user's
CACHE_MB = 4  # BATON_INSTANCE_CACHE_MB: reached within the warm-up
PER = 10_000  # growth is given per this many turns


@dataclass(frozen=True)
class Reading:
    """One process at one checkpoint."""

    rss_mib: float
    threads: int
    fds: int


def read_process(pid: int) -> Reading | None:
    """RSS, threads and open files of `pid` (Linux), None when it cannot be read."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = sum(1 for _ in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kib = int(fields.get("VmRSS", "0 kB").split()[0])
    return Reading(rss_kib / 1024, int(fields.get("Threads", "0")), fds)


def slope(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The least-squares slope of (x, y) points and its standard error (0 with < 3 points)."""
    n = len(points)
    if n < 2:
        return 0.0, 0.0
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0, 0.0
    b = sum((x - mx) * (y - my) for x, y in points) / sxx
    if n < 3:
        return b, 0.0
    residuals = sum((y - my - b * (x - mx)) ** 2 for x, y in points)
    return b, math.sqrt(residuals / (n - 2) / sxx)


class Soak:
    """Turns from `CONVERSATIONS` workers; each worker's user changes every `TURNS_PER_USER`."""

    def __init__(self, chat: Chatter) -> None:
        self.chat = chat
        self.done = [0] * CONVERSATIONS
        self.latencies: list[float] = []  # p50 ms of each stretch between checkpoints

    async def turn(self, worker: int) -> None:
        user = f"soak-w{worker}-u{self.done[worker] // TURNS_PER_USER}"
        self.done[worker] += 1
        await self.chat.turn(user)

    async def run(self, turns: int) -> None:
        per_worker = max(1, turns // CONVERSATIONS)
        row = await concurrent("", CONVERSATIONS, per_worker, lambda w, i: self.turn(w))
        self.latencies.append(row.p50_ms or 0.0)

    @property
    def turns(self) -> int:
        return sum(self.done)


def _note(name: str, marks: list[tuple[int, dict[str, Reading]]]) -> str:
    points = [(turns, seen[name].rss_mib) for turns, seen in marks if name in seen]
    if len(points) < 2:
        return "RSS could not be read"
    first, last = marks[0][1][name], marks[-1][1][name]
    per, error = (v * PER for v in slope(points))
    late, late_error = (v * PER for v in slope(points[len(points) // 2 :]))
    if per <= 2 * error:
        verdict = "looks bounded: no rise beyond the checkpoints' scatter"
    elif late <= 2 * late_error:
        verdict = "rose early, flat over the last half"
    else:
        verdict = "still growing at the end"
    return (
        f"RSS {first.rss_mib:.1f} MiB after the warm-up ({marks[0][0]:,} turns), "
        f"{last.rss_mib:.1f} MiB at the end ({marks[-1][0]:,}); growth per {PER:,} turns: "
        f"{per:+.1f} MiB (± {error:.1f}, least squares over {len(points)} checkpoints), "
        f"last half {late:+.1f}; {verdict}; threads {first.threads} -> {last.threads}, "
        f"open files {first.fds} -> {last.fds}"
    )


async def soak(label: str, workflow_url: str, agent_url: str, opts: Options) -> list[Row]:
    warm, every = opts.size(2_000, 100), opts.size(1_000, 60)
    checkpoints = opts.size(18, 5)
    env = {"BATON_INSTANCE_CACHE_MB": str(CACHE_MB)}
    async with chatter(workflow_url, agent_url, STEPS, env) as chat:
        pids, driver = chat.platform.pids, Soak(chat)
        await driver.run(warm)
        marks = [(driver.turns, _read(pids))]
        start = time.perf_counter()
        for _ in range(checkpoints):
            await driver.run(every)
            marks.append((driver.turns, _read(pids)))
        elapsed = time.perf_counter() - start
    measured = driver.turns - marks[0][0]
    p50s = driver.latencies[1:]
    rows = [
        Row(f"{label}: {driver.turns:,} turns, {CONVERSATIONS} conversations", measured,
            measured / elapsed,
            note=f"after {marks[0][0]:,} warm-up turns; {elapsed:.0f} s; p50 per stretch of "
            f"{every:,} turns {min(p50s):.1f} to {max(p50s):.1f} ms (last {p50s[-1]:.1f}); "
            f"BATON_INSTANCE_CACHE_MB={CACHE_MB}, a new instance every {STEPS * 3} turns, "
            f"a new user every {TURNS_PER_USER} turns of a conversation"),
    ]  # fmt: skip
    for name in pids:
        rows.append(
            Row(f"{label}: {name} RSS", measured, measured / elapsed, note=_note(name, marks))
        )
    return rows


def _read(pids: dict[str, int]) -> dict[str, Reading]:
    readings = {name: read_process(pid) for name, pid in pids.items()}
    return {name: r for name, r in readings.items() if r is not None}


@case("soak.chat", "chat turns for minutes: each process's RSS after a warm-up and as it goes, PG")
async def soak_postgres(opts: Options) -> list[Row]:
    async with (
        fresh_database(opts.postgres_url) as workflow_url,
        fresh_database(opts.postgres_url) as agent_url,
    ):
        return await soak("PostgreSQL", workflow_url, agent_url, opts)


@case("soak.chat.sqlite", "chat turns for minutes: each process's RSS as it goes, SQLite")
async def soak_sqlite(opts: Options) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="baton-bench-db-") as tmp:
        workflow_url = f"sqlite+aiosqlite:///{tmp}/workflow.db"
        return await soak("SQLite", workflow_url, f"sqlite+aiosqlite:///{tmp}/agent.db", opts)
