"""A run harness for the DAG scheduler: given (past events) / when (decide at a time) / then."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from baton_workflow.domain.dag.actions import CallAgent, CallSkill, CallTool, in_flight
from baton_workflow.domain.dag.events import (
    ConditionEvaluated,
    FailureStatus,
    NotificationRequested,
    RunCompleted,
    RunEvent,
    RunMode,
    StepFailed,
    StepSkipped,
)
from baton_workflow.domain.dag.fold import fold
from baton_workflow.domain.dag.parsing import parse_definition
from baton_workflow.domain.dag.pricing import PricingTable
from baton_workflow.domain.dag.scheduler import Decision, decide, start_run
from baton_workflow.domain.dag.state import RunState
from baton_workflow.domain.dag.timeouts import DefaultTimeouts

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def brief(events: tuple[RunEvent, ...] | list[RunEvent]) -> list[tuple[Any, ...]]:
    """Events as short tuples: (kind, step, detail) - what a test reads at a glance."""
    out: list[tuple[Any, ...]] = []
    for event in events:
        kind = event.type.removeprefix("workflow_run.")
        if isinstance(event, StepSkipped):
            out.append((kind, event.step_id, event.reason))
        elif isinstance(event, StepFailed):
            out.append((kind, event.step_id, event.status))
        elif isinstance(event, ConditionEvaluated):
            out.append((kind, event.step_id, event.branch))
        elif isinstance(event, RunCompleted):
            out.append((kind, event.status))
        elif isinstance(event, NotificationRequested):
            out.append((kind, event.kind, event.text))
        else:
            out.append((kind, getattr(event, "step_id", None)))
    return out


class Run:
    """One run driven by hand: decide at a time, then play the executor's results."""

    def __init__(
        self,
        document: dict[str, Any],
        *,
        mode: RunMode = "live",
        variables: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        pricing: PricingTable | None = None,
        budget_usd: float | None = None,
        timeouts: DefaultTimeouts | None = None,
    ) -> None:
        self.definition = parse_definition(document, env_allowlist=set(env or {}))
        self.pricing = pricing
        self.timeouts = timeouts
        self.now = T0
        self.events: list[RunEvent] = [
            start_run(
                self.definition,
                run_id="run-1",
                now=T0,
                variables=variables,
                env=env,
                mode=mode,
                budget_usd=budget_usd,
            )
        ]

    @property
    def state(self) -> RunState:
        state = fold(self.events)
        assert state is not None
        return state

    def decide(self, seconds: float | None = None) -> Decision:
        if seconds is not None:
            self.now = at(seconds)
        decision = decide(self.state, self.now, pricing=self.pricing, timeouts=self.timeouts)
        self.events.extend(decision.events)
        return decision

    def call(self, step_id: str) -> CallAgent | CallSkill | CallTool:
        calls = {c.step_id: c for c in in_flight(self.state)}
        assert step_id in calls, f"{step_id} is not in flight; in flight: {sorted(calls)}"
        return calls[step_id]

    def succeed(self, step_id: str, output: str = "", **extra: Any) -> None:
        self.events.append(self.call(step_id).succeeded(self.now, output, **extra))

    def fail(self, step_id: str, error: str = "boom", status: FailureStatus = "error") -> None:
        self.events.append(self.call(step_id).failed(self.now, error, status=status))

    def statuses(self) -> dict[str, str]:
        return {step_id: s.status for step_id, s in self.state.steps.items()}


def workflow(*steps: dict[str, Any], **top: Any) -> dict[str, Any]:
    """A workflow document named "wf" with these steps (and top-level fields)."""
    return {"name": "wf", "steps": list(steps), **top}


# The seed's examples (seed 004), each made a whole workflow where the seed shows one step.
RESEARCH = {
    "name": "research-and-summarize",
    "description": "Gather information and write a summary",
    "variables": {"topic": "AI agents"},
    "timeout": "30m",
    "steps": [
        {
            "id": "research",
            "agent": "hisui",
            "prompt": (
                "Search and organize the latest developments in {{topic}}, listing 5 key points"
            ),
        },
        {
            "id": "summarize",
            "agent": "kohaku",
            "prompt": "Write a 300-word summary based on the following:\n{{steps.research.output}}",
            "dependsOn": ["research"],
        },
    ],
}
CONDITION = workflow(
    {
        "id": "check-type",
        "type": "condition",
        "if": "{{type}} == 'technical'",
        "then": "tech-research",
        "else": "creative-draft",
    },
    {"id": "tech-research", "agent": "hisui", "prompt": "Research {{topic}} in depth"},
    {"id": "creative-draft", "agent": "kohaku", "prompt": "Draft a story about {{topic}}"},
    {
        "id": "publish",
        "agent": "ruri",
        "prompt": "Publish: {{steps.tech-research.output}}{{steps.creative-draft.output}}",
        "dependsOn": ["tech-research", "creative-draft"],
    },
    variables={"type": "technical", "topic": "agents"},
)
PARALLEL = workflow(
    {
        "id": "gather",
        "type": "parallel",
        "parallel": [
            {"id": "search-papers", "agent": "hisui", "prompt": "Search for papers"},
            {"id": "search-code", "agent": "kokuyou", "prompt": "Search open-source projects"},
        ],
    },
    {
        "id": "report",
        "agent": "kohaku",
        "prompt": "Papers: {{steps.search-papers.output}}\nAll: {{steps.gather.output}}",
        "dependsOn": ["gather"],
    },
)
HANDOFF = workflow(
    {
        "id": "draft",
        "agent": "kohaku",
        "prompt": "Write an article about {{topic}}",
        "model": "claude-sonnet-4-20250514",
        "timeout": "10m",
    },
    {
        "id": "review",
        "type": "handoff",
        "agent": "ruri",
        "handoffFrom": "draft",
        "prompt": "Review and revise the article",
        "dependsOn": ["draft"],
    },
    variables={"topic": "AI agents"},
)
TOOL_CALL = workflow(
    {
        "id": "fetch-data",
        "type": "tool_call",
        "toolName": "http-get",
        "toolInput": {"url": "https://api.example.com/data?q={{topic}}"},
    },
    {
        "id": "search",
        "type": "skill",
        "skill": "web-search",
        "skillArgs": ["{{topic}}", "--depth", "3"],
    },
    variables={"topic": "AI agents"},
)
DELAY = workflow(
    {"id": "wait", "type": "delay", "delay": "30s"},
    {"id": "after", "prompt": "Go on", "dependsOn": ["wait"]},
)
NOTIFY = workflow(
    {"id": "review", "agent": "ruri", "prompt": "Review"},
    {
        "id": "notify-done",
        "type": "notify",
        "notifyMsg": "Task complete: {{steps.review.output}}",
        "notifyTo": "telegram",
        "dependsOn": ["review"],
    },
)
RETRY = workflow(
    {
        "id": "flaky-step",
        "agent": "hisui",
        "prompt": "...",
        "onError": "retry",
        "retryMax": 3,
        "retryDelay": "10s",
    }
)
SEED_EXAMPLES = {
    "research-and-summarize": RESEARCH,
    "condition": CONDITION,
    "parallel": PARALLEL,
    "handoff": HANDOFF,
    "tool_call": TOOL_CALL,
    "delay": DELAY,
    "notify": NOTIFY,
    "retry": RETRY,
}
