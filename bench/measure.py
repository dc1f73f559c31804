"""Timing: latency percentiles of awaited operations, sequential or from N concurrent workers.

Also CPU time per process (Linux), which says where an operation's time goes when the
wall clock is shared with other work on a small machine.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal

from bench.registry import Row

REFERENCE_ITERATIONS = 2_000_000


def reference_ms(repeats: int = 5) -> float:
    """Milliseconds this machine takes, right now, for a fixed pure-Python loop (median).

    Shared and virtual machines differ, and one machine's speed drifts with its neighbours;
    every case's result is written with this figure beside it, so that runs on different
    machines or days can be compared by it (lower is faster).
    """
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        total, seen = 0, {}
        for i in range(REFERENCE_ITERATIONS):
            total += i * 3 % 7
            if not i % 1000:
                seen[i] = total
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def percentile(samples: list[float], q: float) -> float:
    """The q-th percentile (0..100) of samples, in the samples' unit."""
    if len(samples) < 2:
        return samples[0] if samples else 0.0
    return statistics.quantiles(samples, n=100, method="inclusive")[int(q) - 1]


async def sequential(label: str, count: int, op: Callable[[int], Awaitable[object]]) -> Row:
    """Run op(0..count-1) one after another."""
    latencies: list[float] = []
    start = time.perf_counter()
    for i in range(count):
        t0 = time.perf_counter()
        await op(i)
        latencies.append(time.perf_counter() - t0)
    return _row(label, latencies, time.perf_counter() - start)


def spin(seconds: float) -> None:
    """Keep this process busy on its core for `seconds`, touching next to nothing in memory."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def sequential_after_work(
    label: str, count: int, op: Callable[[int], Awaitable[object]], work_seconds: float
) -> tuple[Row, float]:
    """`sequential`, with `work_seconds` of other work (`spin`) before each op; the row, whose
    latencies are the ops' alone, and the CPU seconds the ops alone took.

    A process of a platform seldom runs its part of a request back to back with the last one:
    it runs something else, or waits, in between. On some machines that alone makes the next
    run cost more (caches and predictors taken over meanwhile); this measures by how much."""
    latencies: list[float] = []
    cpu = 0.0
    start = time.perf_counter()
    for i in range(count):
        spin(work_seconds)
        c0, t0 = time.process_time(), time.perf_counter()
        await op(i)
        latencies.append(time.perf_counter() - t0)
        cpu += time.process_time() - c0
    return _row(label, latencies, time.perf_counter() - start), cpu


async def concurrent(
    label: str, workers: int, per_worker: int, op: Callable[[int, int], Awaitable[object]]
) -> Row:
    """Run op(worker, i) from `workers` tasks at once, each doing `per_worker` operations."""
    latencies: list[float] = []

    async def worker(w: int) -> None:
        for i in range(per_worker):
            t0 = time.perf_counter()
            await op(w, i)
            latencies.append(time.perf_counter() - t0)

    start = time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(workers)))
    return _row(label, latencies, time.perf_counter() - start)


def _row(label: str, latencies: list[float], elapsed: float) -> Row:
    ms = [s * 1000 for s in latencies]
    return Row(
        label=label,
        ops=len(ms),
        ops_per_s=len(ms) / elapsed,
        p50_ms=percentile(ms, 50),
        p95_ms=percentile(ms, 95),
        p99_ms=percentile(ms, 99),
    )


_SERVICES = {
    "baton_workflow": "workflow",
    "baton_agent_runner": "agent-runner",
    "baton_notifier": "gateway",
}


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of one process so far (Linux; 0 elsewhere)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> dict[str, float]:
    """CPU seconds used so far by this process, each platform process it spawned, and every
    PostgreSQL server process on the machine (Linux)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    out: dict[str, float] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue  # gone already, or not Linux
        fields = stat[stat.rindex(")") + 2 :].split()
        pid, ppid, used = int(entry.name), int(fields[1]), (int(fields[11]) + int(fields[12]))
        if stat[stat.index("(") + 1 : stat.rindex(")")] == "postgres":
            # The server's backends and background writers: the database's share of the work.
            out["postgres"] = out.get("postgres", 0.0) + used / tick
        elif pid == os.getpid():
            out["bench client"] = used / tick
        elif ppid == os.getpid():
            name = next((_SERVICES[a] for a in argv if a in _SERVICES), Path(argv[0]).name)
            out[name] = out.get(name, 0.0) + used / tick
    return out


async def with_cpu(measure: Callable[[], Awaitable[Row]]) -> tuple[Row, dict[str, float]]:
    before = cpu_seconds()
    row = await measure()
    after = cpu_seconds()
    return row, {k: v - before.get(k, 0.0) for k, v in after.items()}


def checked_trials(trials: int) -> int:
    """`trials` when it can have a median (odd and positive), else ValueError."""
    if trials < 1 or trials % 2 == 0:
        raise ValueError(f"trials: must be a positive odd number, got {trials}")
    return trials


async def median_of(
    trials: int,
    measure: Callable[[], Awaitable[Row]],
    by: Literal["ops_per_s", "p50_ms"],
    unit: str = "ops/s",
) -> tuple[Row, dict[str, float], str]:
    """Run `measure` `trials` times (an odd number); the median trial by `by`, its CPU seconds
    per process, and a note giving every trial's figure in run order (empty for one trial).

    A shared machine's speed drifts by a tenth or more from one run to the next; the median of
    a few trials, with the spread beside it, keeps one lucky or unlucky run from deciding a
    target. `unit` names what the row's ops are, for the note (`runs/s`, say).

    With more than one trial, one more run comes first and is not counted: the first run at a
    new concurrency pays for what the platform sets up once (the append pool growing to it, a
    PostgreSQL backend and prepared statements per new connection). In twenty runs of the
    50-instance transition case on 2026-11-29 the first trial was the slowest in eighteen, by
    about a tenth, so the median was taken over one cold and two warm trials.
    """
    if checked_trials(trials) > 1:
        await measure()  # the warm-up run
    runs = [await with_cpu(measure) for _ in range(trials)]
    row, cpu = sorted(runs, key=lambda run: getattr(run[0], by) or 0.0)[trials // 2]
    if trials == 1:
        return row, cpu, ""
    if by == "ops_per_s":
        figures = ", ".join(_rate(r.ops_per_s) for r, _ in runs)
        return row, cpu, f"; median of {trials} trials after a warm-up run ({figures} {unit})"
    figures = ", ".join(f"{r.p50_ms or 0.0:.2f}" for r, _ in runs)
    return row, cpu, f"; median of {trials} trials by p50 after a warm-up run ({figures} ms)"


def _rate(per_s: float) -> str:
    return f"{per_s:,.0f}" if per_s >= 100 else f"{per_s:.1f}"


def cpu_note(cpu: dict[str, float], ops: int, unit: str) -> str:
    """`; CPU ms per <unit>: gateway 1.2, workflow 3.4, ...` (empty without CPU figures)."""
    if not cpu or not ops:
        return ""
    per_op = ", ".join(f"{k} {v * 1000 / ops:.2f}" for k, v in sorted(cpu.items()) if v > 0)
    return f"; CPU ms per {unit}: {per_op}"


def budget_note(cpu: dict[str, float], ops: int, unit: str, target_per_s: float) -> str:
    """`; at 2,000/s these 2 cores give each transition 1.00 CPU ms in all; it took 2.36`.

    A throughput target on one machine is a CPU budget per operation shared by every process
    (the bench client and PostgreSQL too): what the target allows against what was spent.
    """
    cores = os.cpu_count() or 1
    if not cpu or not ops or target_per_s <= 0:
        return ""
    used = sum(cpu.values()) * 1000 / ops
    allowed = cores * 1000 / target_per_s
    return (
        f"; at {target_per_s:,.0f}/s these {cores} cores give each {unit} {allowed:.2f} CPU ms "
        f"in all; it took {used:.2f}"
    )
