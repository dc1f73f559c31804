"""The machine description, the Rich table, and docs/benchmarks.md (rewritten, rows kept)."""

from __future__ import annotations

import json
import os
import platform
import re
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench import scaled
from bench.registry import Row

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
_DATA = re.compile(r"<!-- bench-data\n(.*?)\n-->", re.DOTALL)


def machine() -> dict[str, str]:
    """CPU model, cores, RAM, OS and Python of this machine."""
    cpu = platform.processor() or platform.machine()
    ram = ""
    if Path("/proc/cpuinfo").exists():
        found = re.search(r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text())
        cpu = found.group(1).strip() if found else cpu
    if Path("/proc/meminfo").exists():
        found = re.search(r"MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text())
        ram = f"{int(found.group(1)) / 1024 / 1024:.1f} GiB" if found else ""
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "ram": ram or "unknown",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def print_table(console: Console, results: dict[str, list[Row]]) -> None:
    """Print one table of every row that ran."""
    table = Table(title="Baton benchmarks")
    for column in ("case", "row", "ops", "ops/s", "p50 ms", "p95 ms", "p99 ms", "note"):
        table.add_column(column, justify="right" if "ops" in column or "ms" in column else "left")
    for name, rows in results.items():
        for row in rows:
            table.add_row(name, *_cells(asdict(row)))
    console.print(table)


def write_doc(
    results: dict[str, list[Row]], skipped: dict[str, str], references: dict[str, float]
) -> Path:
    """Rewrite docs/benchmarks.md: this run's rows replace their case's, other cases stay.

    `references` holds each case's `reference_ms`, measured just before it ran.
    """
    data = _load()
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    for name, rows in results.items():
        data["cases"][name] = {"date": now, "rows": [asdict(r) for r in rows]}
        if name in references:
            data["cases"][name]["reference_ms"] = round(references[name], 1)
    data["machine"], data["date"] = machine(), now
    data["skipped"] = skipped
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(_render(data))
    return DOC


def _load() -> dict[str, Any]:
    if DOC.exists():
        found = _DATA.search(DOC.read_text())
        if found:
            return dict(json.loads(found.group(1)))
    return {"cases": {}}


def _cells(row: dict[str, Any]) -> list[str]:
    def ms(value: float | None) -> str:
        return "" if value is None else f"{value:.3f}"

    return [
        row["label"],
        str(row["ops"]),
        f"{row['ops_per_s']:,.0f}",
        ms(row["p50_ms"]),
        ms(row.get("p95_ms")),  # rows measured before p95 was reported have none
        ms(row["p99_ms"]),
        row["note"],
    ]


def _render(data: dict[str, Any]) -> str:
    m = data["machine"]
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`python -m bench`); do not edit by hand. Rows of cases that were",
        "not run this time are kept from their last run (see each case's date).",
        "",
        f"Last run: {data['date']} on {m['cpu']}, {m['cores']} cores, {m['ram']} RAM, "
        f"{m['os']}, Python {m['python']}.",
        "",
        "Each case also gives the reference loop: the milliseconds this machine took, just before",
        "the case ran, for a fixed pure-Python loop (`bench.measure.reference_ms`, median of 5;",
        "lower is faster). Compare runs on other machines or days by it.",
        "",
        "Notes give the CPU milliseconds per operation of each process: the services, NATS, the",
        "bench client, and `postgres` (every PostgreSQL server process of the machine). A",
        "throughput target's note also gives its CPU budget: the cores' milliseconds per second",
        "divided by the target rate, which every process on the machine shares. A target whose",
        "budget is below what one operation took cannot be met on these cores by waiting less:",
        "only less CPU per operation, or more cores, meets it. [performance.md](performance.md)",
        "reads these figures: where each operation's CPU goes, and what the open targets need.",
        "",
        "A row with a target is the median of its trials (`--trials`, 3 by default), run after",
        "one warm-up run of the same size that is not counted (the first run at a new",
        "concurrency grows pools and opens connections); its note gives every trial's figure in",
        "run order, and the CPU figures are the median trial's.",
        "",
        *scaled.render(data["cases"]),
    ]
    for name, entry in sorted(data["cases"].items()):
        reference = entry.get("reference_ms")  # cases last run before it was measured have none
        speed = f" Reference loop: {reference:.0f} ms." if reference is not None else ""
        lines += [f"## {name}", "", f"Run {entry['date']}.{speed}", ""]
        lines += [
            "| row | ops | ops/s | p50 ms | p95 ms | p99 ms | note |",
            "|---|--:|--:|--:|--:|--:|---|",
        ]
        lines += ["| " + " | ".join(_cells(row)) + " |" for row in entry["rows"]]
        lines.append("")
    for name, reason in sorted(data.get("skipped", {}).items()):
        lines.append(f"- skipped last run: `{name}`: {reason}")
    lines += ["", "<!-- bench-data", json.dumps(data, indent=1, sort_keys=True), "-->", ""]
    return "\n".join(lines)
