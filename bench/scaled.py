"""The issues' speed targets, scaled from this machine to the hardware the issues measured on.

Issues 3 and 4 give their targets beside references measured on their own hardware: PydanticAI's
`agent.run()` with `NativeOutput` at 1.7 ms (issue 4), LangGraph's PostgreSQL checkpointer at
about 550 durable steps/s and a resume at 3.4 ms p50 (issue 3). `make bench` measures the same
references on this machine (`reference.pydantic_ai`, `reference.langgraph`), so each target row
can be read on the issues' hardware: a rate times the machine's factor, a latency divided by it.
The three references give three factors, and they disagree (a machine may be slower at a tight
loop than at a cold turn, or the other way round); all are shown, and a target is only said to
be met, or short, when every reading agrees.

Only references measured in the same run as the target row are used: a machine's speed drifts
from one hour to the next, and rows kept from an earlier run may be from another machine. The
transition and chat target rows also time `agent.run()` just before and after their own trials
(`bench.beside`), which gives a fourth reading, of the host as it was while the row ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

AGENT_RUN_MS = 1.7  # issue 4: one agent.run() with NativeOutput on its hardware
LANGGRAPH_STEPS_PER_S = 550.0  # issue 3: LangGraph's durable steps/s on its hardware
LANGGRAPH_RESUME_MS = 3.4  # issue 3: LangGraph's resume, p50, on its hardware

AGENT_RUN = ("reference.pydantic_ai", "agent.run(), NativeOutput")
LANGGRAPH_RUNS = ("reference.langgraph", "linear a -> b -> c -> d (4 nodes), 100 runs in flight")
LANGGRAPH_RESUME = (
    "reference.langgraph",
    "resume an interrupted thread with one value, sequential",
)


@dataclass(frozen=True)
class Target:
    """One speed target of an issue: a row's rate (at least `value`) or latency (under it)."""

    issue: int
    what: str
    case: str
    label: str
    metric: str  # "ops_per_s", "p50_ms" or "p95_ms"
    value: float

    @property
    def is_rate(self) -> bool:
        return self.metric == "ops_per_s"


TARGETS = (
    Target(3, "2,000 transitions/s, 50 instances", "workflow.transition.postgres",
           "PostgreSQL: 50 instances", "ops_per_s", 2000.0),
    Target(3, "transition p50 < 3 ms, PostgreSQL", "workflow.transition.postgres",
           "PostgreSQL: 1 instance", "p50_ms", 3.0),
    Target(3, "transition p50 < 3 ms, SQLite", "workflow.transition.sqlite",
           "SQLite: 1 instance", "p50_ms", 3.0),
    Target(4, "chat turn p50 < 6 ms, one conversation", "chat.turn.postgres",
           "PostgreSQL: 1 conversation", "p50_ms", 6.0),
    Target(4, "300 turns/s, 50 conversations", "chat.turn.postgres",
           "PostgreSQL: 50 conversations", "ops_per_s", 300.0),
    Target(4, "memory search p95 < 20 ms, 1,000 facts", "agent.memory_search",
           "search top 5 of 1,000 facts (hash embedder), sequential", "p95_ms", 20.0),
)  # fmt: skip


@dataclass(frozen=True)
class Factor:
    """How many times as slow as the issues' hardware this machine was, by one reference."""

    by: str
    times: float


@dataclass(frozen=True)
class Reading:
    """One target row as measured, and as it would read on the issues' hardware."""

    target: Target
    measured: float
    scaled: list[tuple[Factor, float]]

    def met(self, value: float) -> bool:
        t = self.target
        return value >= t.value if t.is_rate else value < t.value

    @property
    def verdict(self) -> str:
        """`met` or `short` when every scaled reading agrees, else `unclear`."""
        outcomes = {self.met(value) for _, value in self.scaled}
        if outcomes == {True}:
            return "met"
        if outcomes == {False}:
            return "short"
        return "unclear"


def _row(cases: dict[str, Any], case: str, label: str) -> tuple[str, dict[str, Any]] | None:
    entry = cases.get(case)
    if entry is None:
        return None
    for row in entry["rows"]:
        if row["label"] == label:
            return entry["date"], row
    return None


def factors(cases: dict[str, Any], date: str) -> list[Factor]:
    """This machine's factors against the issues' hardware, from references run at `date`."""
    found: list[Factor] = []
    agent = _row(cases, *AGENT_RUN)
    if agent is not None and agent[0] == date and agent[1]["ops_per_s"] > 0:
        # A sequential row: one run's time is the inverse of the rate.
        found.append(Factor("agent.run()", 1000.0 / agent[1]["ops_per_s"] / AGENT_RUN_MS))
    runs = _row(cases, *LANGGRAPH_RUNS)
    if runs is not None and runs[0] == date and runs[1]["ops_per_s"] > 0:
        found.append(Factor("LangGraph steps/s", LANGGRAPH_STEPS_PER_S / runs[1]["ops_per_s"]))
    resume = _row(cases, *LANGGRAPH_RESUME)
    if resume is not None and resume[0] == date and resume[1].get("p50_ms"):
        found.append(Factor("LangGraph resume", resume[1]["p50_ms"] / LANGGRAPH_RESUME_MS))
    return found


def beside(row: dict[str, Any]) -> list[Factor]:
    """The factor of the `agent.run()` timed beside the row itself, when it was."""
    ms = row.get("agent_run_ms")
    return [Factor("agent.run() beside the row", ms / AGENT_RUN_MS)] if ms else []


def readings(cases: dict[str, Any]) -> list[Reading]:
    """Every target row with at least one factor (references of its run, or `agent.run()`
    timed beside it), scaled by each."""
    out = []
    for target in TARGETS:
        found = _row(cases, target.case, target.label)
        if found is None or found[1].get(target.metric) is None:
            continue
        date, row = found
        by = [*factors(cases, date), *beside(row)]
        if not by:
            continue
        measured = float(row[target.metric])
        scaled = [(f, measured * f.times if target.is_rate else measured / f.times) for f in by]
        out.append(Reading(target, measured, scaled))
    return out


def render(cases: dict[str, Any]) -> list[str]:
    """The section of docs/benchmarks.md that reads each target on the issues' hardware."""
    found = readings(cases)
    if not found:
        return []
    lines = [
        "## The targets on the issues' hardware",
        "",
        "Issues 3 and 4 measured their references on their own hardware: `agent.run()` with",
        f"`NativeOutput` at {AGENT_RUN_MS} ms, LangGraph at about {LANGGRAPH_STEPS_PER_S:.0f} "
        f"durable steps/s and its resume at {LANGGRAPH_RESUME_MS} ms",
        "p50. Each target row below is read on that hardware by the references measured in the",
        "same run, and by `agent.run()` timed just before and after the row's own trials (how",
        "many times as slow as that hardware this machine was): a rate times the factor, a",
        "latency divided by it. The factors disagree from one machine to another, and a host's",
        "speed drifts within a run, so a target is said to be met, or short, only when every",
        "reading agrees (`bench/scaled.py`, `bench/beside.py`).",
        "",
        "| issue | target | measured | on the issues' hardware | verdict |",
        "|--:|---|--:|---|---|",
    ]
    for r in found:
        unit = "/s" if r.target.is_rate else " ms"
        number = "{:,.0f}" if r.target.is_rate else "{:.2f}"
        each = "; ".join(
            f"{number.format(value)}{unit} by {f.by} (x{f.times:.2f})" for f, value in r.scaled
        )
        lines.append(
            f"| {r.target.issue} | {r.target.what} | {number.format(r.measured)}{unit} "
            f"| {each} | {r.verdict} |"
        )
    lines.append("")
    return lines
