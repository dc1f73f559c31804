"""Timing: latency percentiles of awaited operations, sequential or from N concurrent workers."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from bench.registry import Row


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
