"""The gateway's floor: what one request costs FastAPI on uvicorn with nothing behind it.

Every gateway request (a signal, a chat turn) pays for uvicorn's HTTP protocol, FastAPI's
routing, dependency solving, body validation and response serialisation before anything of
Baton's. `bench.bare_http` is that framework and nothing else, run as the gateway is run; the
bench client sends it signal-shaped requests. Its CPU per request, set against the gateway's
in `workflow.transition.postgres`, says how much of the gateway's share is the framework's.
"""

from __future__ import annotations

import asyncio
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from baton_messaging.embedded import free_port
from bench.http import LeanHttp
from bench.measure import concurrent, process_cpu_seconds, sequential
from bench.platform import spawn, stop_process
from bench.registry import Options, Row, case

_PATH = "/api/workflows/{}/signal"
_HEADERS = {"Authorization": "Bearer not-checked"}


async def _signal(http: LeanHttp, instance: str) -> None:
    reply = await http.post(_PATH.format(instance), json={"action": "complete_step"},
                            headers=_HEADERS)  # fmt: skip
    if reply.status_code != 200:
        raise RuntimeError(f"bare FastAPI answered {reply.status_code}: {reply.text}")


async def _wait_ready(http: LeanHttp, process: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError("bench.bare_http exited during start; see its log")
        try:
            if (await http.get("/health")).status_code == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.05)
    raise RuntimeError("bench.bare_http did not answer /health")


@case("reference.fastapi", "the gateway's floor: one FastAPI route on uvicorn, nothing behind it")
async def bare_fastapi(opts: Options) -> list[Row]:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="baton-bench-") as tmp:
        process = spawn("bench.bare_http", {"BATON_HTTP_PORT": str(port)}, Path(tmp) / "log")
        try:
            async with LeanHttp(f"http://127.0.0.1:{port}", 100) as http:
                await _wait_ready(http, process)
                for _ in range(opts.size(300, 30)):
                    await _signal(http, "warm")
                rows = []
                for label, measure in (
                    ("signal-shaped POST, sequential",
                     lambda: sequential("", opts.size(2000, 50), lambda i: _signal(http, "i1"))),
                    ("the same, 50 at once",
                     lambda: concurrent("", 50, opts.size(100, 2),
                                        lambda w, i: _signal(http, f"i{w}"))),
                ):  # fmt: skip
                    before = process_cpu_seconds(process.pid)
                    row = await measure()
                    per_request = (process_cpu_seconds(process.pid) - before) * 1000 / row.ops
                    note = f"server CPU ms per request: {per_request:.3f}"
                    rows.append(replace(row, label=label, note=note))
                return rows
        finally:
            stop_process(process)
