"""Seed 004's step-type examples run end to end over HTTP, offline, on the scripted agents."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import pytest

from ...platform_stack import Stack
from .conftest import Author, LocalWeb, steps_of


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    """Every test here shares one platform (each has its own user)."""
    return module_stack


def when(value: str) -> datetime:
    return datetime.fromisoformat(value)


def condition_workflow() -> dict[str, Any]:
    return {
        "name": "content-branch",
        "variables": {"type": "technical"},
        "steps": [
            {"id": "check-type", "type": "condition", "if": "{{type}} == 'technical'",
             "then": "tech-research", "else": "creative-draft"},
            {"id": "tech-research", "agent": "hisui", "prompt": "Research the internals of queues"},
            {"id": "creative-draft", "agent": "kohaku", "prompt": "Write a story about queues"},
            {"id": "publish", "dependsOn": ["tech-research", "creative-draft"],
             "prompt": "Publish:\n{{steps.tech-research.output}}{{steps.creative-draft.output}}"},
        ],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "taken", "not_taken"),
    [
        ("technical", "tech-research", "creative-draft"),
        ("creative", "creative-draft", "tech-research"),
    ],
)
async def test_condition_takes_one_branch_and_skips_the_other(
    author: Author, task_calls: list[dict[str, Any]], kind: str, taken: str, not_taken: str
) -> None:
    run = await author.run_to_end(condition_workflow(), variables={"type": kind})

    assert run["status"] == "success", run
    steps = steps_of(run)
    assert steps["check-type"]["output"] == taken
    assert steps[taken]["status"] == "success"
    assert steps[not_taken]["status"] == "skipped"
    assert steps["publish"]["status"] == "success"  # downstream still runs on its dependsOn
    assert [c["step_id"] for c in task_calls] == [taken, "publish"]
    assert steps[taken]["output"] in task_calls[1]["prompt"]


PARALLEL: dict[str, Any] = {
    "name": "gather",
    "steps": [
        {"id": "gather", "type": "parallel", "parallel": [
            {"id": "search-papers", "agent": "hisui",
             "prompt": "Search for papers on agents [[sleep:0.3]]"},
            {"id": "search-code", "agent": "kokuyou",
             "prompt": "Search open-source projects on agents [[sleep:0.3]]"},
        ]},
        {"id": "report", "agent": "kohaku", "dependsOn": ["gather"],
         "prompt": "Papers:\n{{steps.search-papers.output}}\nAll:\n{{steps.gather.output}}"},
    ],
}  # fmt: skip


async def test_parallel_sub_steps_overlap_and_join_their_outputs(
    author: Author, task_calls: list[dict[str, Any]]
) -> None:
    run = await author.run_to_end(PARALLEL)

    assert run["status"] == "success", run
    steps = steps_of(run)
    papers, code = steps["search-papers"], steps["search-code"]
    assert papers["parent"] == code["parent"] == "gather"
    # Both were running at once: each started before the other finished.
    assert max(when(papers["started_at"]), when(code["started_at"])) < min(
        when(papers["finished_at"]), when(code["finished_at"])
    )
    assert steps["gather"]["output"] == papers["output"] + "\n---\n" + code["output"]
    report = next(c for c in task_calls if c["step_id"] == "report")
    assert report["prompt"].startswith("Papers:\n" + papers["output"] + "\nAll:\n")
    assert steps["gather"]["output"] in report["prompt"]


HANDOFF: dict[str, Any] = {
    "name": "draft-and-review",
    "steps": [
        {"id": "draft", "agent": "kohaku", "prompt": "Write an article about durable workflows"},
        {"id": "review", "type": "handoff", "agent": "ruri", "handoffFrom": "draft",
         "prompt": "Review and revise the article", "dependsOn": ["draft"]},
    ],
}  # fmt: skip


async def test_handoff_gives_the_whole_source_output_to_the_receiving_agent(
    author: Author, task_calls: list[dict[str, Any]]
) -> None:
    run = await author.run_to_end(HANDOFF)

    assert run["status"] == "success", run
    steps = steps_of(run)
    draft = steps["draft"]["output"]
    asked = task_calls[1]
    assert (asked["agent"], asked["step_id"]) == ("ruri", "review")
    assert asked["context"] == draft and asked["context_from"] == "draft"
    assert asked["prompt"] == "Review and revise the article"
    assert steps["review"]["output"].startswith("Review: " + draft[:40])
    assert [(h["from"], h["to"], h["agent"]) for h in run["handoffs"]] == [
        ("draft", "review", "ruri")
    ]


async def test_tool_call_fetches_a_page_and_the_next_step_reads_it(
    author: Author, task_calls: list[dict[str, Any]], web: LocalWeb
) -> None:
    web.pages["/data"] = "42 open issues, 7 merged pull requests"
    document = {
        "name": "fetch-and-read",
        "variables": {"topic": "agents"},
        "steps": [
            {"id": "fetch-data", "type": "tool_call", "toolName": "http-get",
             "toolInput": {"url": web.url("/data?q={{topic}}")}},
            {"id": "read", "agent": "kohaku", "dependsOn": ["fetch-data"],
             "prompt": "Summarise this:\n{{steps.fetch-data.output}}"},
        ],
    }  # fmt: skip

    run = await author.run_to_end(document)

    assert run["status"] == "success", run
    assert web.requests == ["/data?q=agents"]
    assert steps_of(run)["fetch-data"]["output"] == "42 open issues, 7 merged pull requests"
    assert task_calls[0]["prompt"] == "Summarise this:\n42 open issues, 7 merged pull requests"


async def test_delay_waits_then_the_run_goes_on(author: Author) -> None:
    document = {
        "name": "wait-a-bit",
        "steps": [
            {"id": "wait", "type": "delay", "delay": "300ms"},
            {"id": "after", "prompt": "Carry on", "dependsOn": ["wait"]},
        ],
    }

    run = await author.run_to_end(document)

    assert run["status"] == "success", run
    wait, after = steps_of(run)["wait"], steps_of(run)["after"]
    # ", fired 1s late" follows only when a busy host's timer fired that late
    assert wait["output"].startswith("waited 300ms")
    assert when(wait["finished_at"]) - when(wait["started_at"]) >= timedelta(milliseconds=300)
    assert when(after["started_at"]) >= when(wait["finished_at"])


async def notified(seen: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The first `count` notifications, once they have been published."""
    for _ in range(400):
        if len(seen) >= count:
            return seen[:count]
        await asyncio.sleep(0.025)
    raise AssertionError(f"expected {count} notifications, got {seen}")


async def test_notify_step_and_on_success_are_published(
    author: Author, notifications: list[dict[str, Any]]
) -> None:
    document = {
        "name": "notify-team",
        "onSuccess": "all done: {{steps.notify-done.output}}",
        "onFailure": "never sent",
        "steps": [
            {"id": "review", "agent": "ruri", "prompt": "Review the release notes"},
            {"id": "notify-done", "type": "notify", "notifyTo": "telegram",
             "notifyMsg": "Task complete: {{steps.review.status}}", "dependsOn": ["review"]},
        ],
    }  # fmt: skip

    run = await author.run_to_end(document)

    assert run["status"] == "success", run
    step, success = await notified(notifications, 2)
    assert step["type"] == "workflow.notify"
    assert (step["kind"], step["step_id"], step["notify_to"]) == ("step", "notify-done", "telegram")
    assert step["message"] == "Task complete: success"
    assert (step["user_id"], step["instance_id"]) == (author.name, run["run_id"])
    assert (success["kind"], success["message"]) == (
        "on_success",
        "all done: Task complete: success",
    )
    assert steps_of(run)["notify-done"]["output"] == "Task complete: success"


async def test_on_failure_is_published_with_the_error(
    author: Author, notifications: list[dict[str, Any]]
) -> None:
    document = {
        "name": "notify-failure",
        "onSuccess": "never sent",
        "onFailure": "broken: {{steps.build.error}}",
        "steps": [{"id": "build", "prompt": "Build it [[fail]]"}],
    }

    run = await author.run_to_end(document)

    assert run["status"] == "error", run
    (failure,) = await notified(notifications, 1)
    assert failure["kind"] == "on_failure"
    assert failure["message"].startswith("broken: ")
    assert "scripted failure" in failure["message"]
    await asyncio.sleep(0.2)
    assert len(notifications) == 1


def flaky(retry_max: int, on_error: str = "retry") -> dict[str, Any]:
    return {
        "name": f"flaky-{on_error}-{retry_max}",
        "steps": [
            {"id": "flaky-step", "agent": "hisui",
             "prompt": "Search for papers [[fail-attempts:2]]", "onError": on_error,
             "retryMax": retry_max, "retryDelay": "50ms", "retryBackoff": 2},
            {"id": "after", "dependsOn": ["flaky-step"],
             "prompt": "Went {{steps.flaky-step.status}}: {{steps.flaky-step.error}}"},
        ],
    }  # fmt: skip


async def test_retry_with_backoff_succeeds_on_the_third_attempt(
    author: Author, stack: Stack, task_calls: list[dict[str, Any]]
) -> None:
    run = await author.run_to_end(flaky(3))

    assert run["status"] == "success", run
    step = steps_of(run)["flaky-step"]
    assert (step["status"], step["attempts"]) == ("success", 3)
    keys = [c["idempotency_key"] for c in task_calls if c["step_id"] == "flaky-step"]
    assert keys == [f"{run['run_id']}:flaky-step:{n}" for n in (1, 2, 3)]
    # The log holds the waits: retryDelay, then retryDelay x retryBackoff.
    _, _, history = await stack.workflow.runs.runs.load(run["run_id"])
    waits = [e.due_at - e.at for e in history if e.type == "workflow_run.retry_scheduled"]
    assert waits == [timedelta(milliseconds=50), timedelta(milliseconds=100)]


async def test_retry_that_runs_out_fails_the_run_and_stops_the_rest(
    author: Author, task_calls: list[dict[str, Any]]
) -> None:
    run = await author.run_to_end(flaky(1))

    assert run["status"] == "error", run
    steps = steps_of(run)
    assert (steps["flaky-step"]["status"], steps["flaky-step"]["attempts"]) == ("error", 2)
    assert "scripted failure" in steps["flaky-step"]["error"]
    assert steps["after"]["status"] == "skipped"
    assert 'step "flaky-step" failed' in run["error"]
    assert [c["step_id"] for c in task_calls] == ["flaky-step", "flaky-step"]


async def test_on_error_skip_goes_on_with_status_and_error_in_templates(
    author: Author, task_calls: list[dict[str, Any]]
) -> None:
    run = await author.run_to_end(flaky(0, on_error="skip"))

    assert run["status"] == "success", run
    steps = steps_of(run)
    assert steps["flaky-step"]["status"] == "skipped"
    assert steps["after"]["status"] == "success"
    prompt = task_calls[-1]["prompt"]
    assert prompt.startswith("Went skipped: agent 'hisui': agent hisui failed: scripted failure")
