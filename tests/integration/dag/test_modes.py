"""Execution modes: dry-run calls nothing and estimates; shadow runs for real, leaves no trace."""

from __future__ import annotations

from typing import Any

import pytest

from ...platform_stack import Stack
from .conftest import Author, LocalWeb, steps_of


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    """Every test here shares one platform (each has its own user)."""
    return module_stack


def pipeline(web: LocalWeb) -> dict[str, Any]:
    return {
        "name": "pipeline",
        "variables": {"kind": "technical"},
        "steps": [
            {"id": "research", "agent": "hisui", "prompt": "Research the internals of queues"},
            {"id": "fetch", "type": "tool_call", "toolName": "http-get",
             "toolInput": {"url": web.url("/data")}},
            {"id": "check", "type": "condition", "if": "{{kind}} == 'technical'",
             "then": "draft", "else": "story", "dependsOn": ["research", "fetch"]},
            {"id": "draft", "agent": "kohaku", "prompt": "Draft:\n{{steps.research.output}}"},
            {"id": "story", "agent": "kohaku", "prompt": "A story"},
            {"id": "review", "type": "handoff", "agent": "ruri", "handoffFrom": "research",
             "prompt": "Review it", "dependsOn": ["draft", "story"]},
            {"id": "wait", "type": "delay", "delay": "1h", "dependsOn": ["review"]},
            {"id": "tell", "type": "notify", "notifyMsg": "done", "dependsOn": ["wait"]},
        ],
    }  # fmt: skip


async def test_dry_run_calls_nothing_and_estimates_each_agent_step(
    author: Author, task_calls: list[dict[str, Any]], web: LocalWeb
) -> None:
    web.pages["/data"] = "data"
    run = await author.run_to_end(pipeline(web), mode="dry_run")

    assert run["status"] == "success", run
    assert run["mode"] == "dry_run"
    assert task_calls == [] and web.requests == []
    steps = steps_of(run)
    assert steps["check"]["output"] == "draft"  # conditions are evaluated for real
    assert steps["story"]["status"] == "skipped"
    agent_steps = [steps[s] for s in ("research", "draft", "review")]
    for step in agent_steps:
        assert step["status"] == "success" and step["output"].startswith("(dry-run) agent ")
        assert step["tokens_in"] > 0 and step["tokens_out"] > 0 and step["cost_usd"] > 0
    assert steps["wait"]["output"] == "(dry-run) would wait 1h"
    assert steps["fetch"]["output"].startswith("(dry-run) would call tool http-get")
    estimate = run["estimate"]
    assert estimate["tokens_in"] == sum(s["tokens_in"] for s in agent_steps)
    assert estimate["tokens_out"] == sum(s["tokens_out"] for s in agent_steps)
    assert abs(estimate["cost_usd"] - sum(s["cost_usd"] for s in agent_steps)) < 1e-9
    assert run["messages"] == [] and run["handoffs"] == []
    listed = await author.get("/workflow-runs")
    assert [(r["run_id"], r["mode"]) for r in listed["runs"]] == [(run["run_id"], "dry_run")]


async def test_shadow_runs_for_real_but_is_never_listed_and_keeps_no_messages(
    stack: Stack, author: Author, task_calls: list[dict[str, Any]]
) -> None:
    document = {
        "name": "shadowed",
        "steps": [
            {"id": "draft", "agent": "kohaku", "prompt": "Write about shadows"},
            {"id": "review", "type": "handoff", "agent": "ruri", "handoffFrom": "draft",
             "prompt": "Review it", "dependsOn": ["draft"]},
        ],
    }  # fmt: skip
    run = await author.run_to_end(document, mode="shadow")

    assert run["status"] == "success" and run["mode"] == "shadow", run
    assert [c["step_id"] for c in task_calls] == ["draft", "review"]  # the agents really ran
    assert all(c["shadow"] for c in task_calls)
    assert stack.agent_runner is not None
    results = stack.agent_runner.tasks.results
    for step in ("draft", "review"):  # the agent-runner kept no result, output or cost either
        assert await results.get(author.name, f"{run['run_id']}:{step}:1") is None
    assert steps_of(run)["review"]["output"].startswith("Review: ")
    assert run["messages"] == []
    assert (await author.get("/workflow-runs"))["runs"] == []
    assert (await author.get("/workflows/shadowed/runs"))["runs"] == []
    assert (await author.get("/workflow-runs", workflow="shadowed"))["runs"] == []

    live = await author.run("shadowed")
    await author.wait(live["run_id"])
    listed = await author.get("/workflow-runs")
    assert [r["run_id"] for r in listed["runs"]] == [live["run_id"]]
    assert "shadow" not in task_calls[-1]  # left off the wire at its default (older readers)
    assert await results.get(author.name, f"{live['run_id']}:draft:1") is not None


async def test_a_dry_runs_costs_are_sent_as_decimals(author: Author) -> None:
    # Summed as floats, a 12-step dry run was sent as "cost_usd":0.0050539999999999995.
    steps = [{"id": f"s{i}", "prompt": "x" * 20} for i in range(12)]
    run = await author.run_to_end({"name": "twelve", "steps": steps}, mode="dry_run")
    # the default prices: (5 tokens * $0.001 + 500 * $0.002) / 1000 each
    assert {s["cost_usd"] for s in run["steps"]} == {0.001005}
    assert run["cost_usd"] == run["estimate"]["cost_usd"] == 0.01206
    sent = (await author.detail(run["run_id"])).text + str(await author.get("/workflow-runs"))
    assert "99999" not in sent and "00000000" not in sent, sent
