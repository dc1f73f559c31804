"""Seed 004's quick-start example, created and run over the gateway's HTTP API."""

from __future__ import annotations

from typing import Any

import pytest

from ...platform_stack import Stack
from .conftest import Author


@pytest.fixture
def stack(module_stack: Stack) -> Stack:
    """Every test here shares one platform (each has its own user)."""
    return module_stack


RESEARCH = {
    "name": "research-and-summarize",
    "description": "Gather information and write a summary",
    "variables": {"topic": "AI agents"},
    "timeout": "30m",
    "steps": [
        {
            "id": "research",
            "agent": "hisui",
            "prompt": "Search and organize the latest developments in {{topic}}, "
            "listing 5 key points",
        },
        {
            "id": "summarize",
            "agent": "kohaku",
            "prompt": "Write a 300-word summary based on the following:\n{{steps.research.output}}",
            "dependsOn": ["research"],
        },
    ],
}


async def test_research_and_summarize_runs_in_order_with_the_output_passed_on(
    author: Author, task_calls: list[dict[str, Any]]
) -> None:
    created = await author.create(RESEARCH)
    assert created.status_code == 201, created.text
    assert created.json()["version_id"] == "research-and-summarize@1"
    started = await author.run("research-and-summarize", variables={"topic": "LLM safety"})
    assert started["status"] == "running" and started["version"] == 1

    run = await author.wait(started["run_id"])

    assert run["status"] == "success", run
    research, summarize = run["steps"]
    assert [s["status"] for s in run["steps"]] == ["success", "success"]
    assert "LLM safety" in research["output"] and research["agent"] == "hisui"
    assert research["finished_at"] <= summarize["started_at"]
    # The summary's prompt carried the research output: the template was rendered.
    assert [c["step_id"] for c in task_calls] == ["research", "summarize"]
    assert research["output"] in task_calls[1]["prompt"]
    assert run["cost_usd"] > 0 and run["variables"] == {"topic": "LLM safety"}
    roles = [(m["step"], m["role"]) for m in run["messages"]]
    assert roles == [
        ("research", "user"),
        ("research", "assistant"),
        ("summarize", "user"),
        ("summarize", "assistant"),
    ]
    listed = await author.get("/workflows/research-and-summarize/runs")
    assert [r["run_id"] for r in listed["runs"]] == [started["run_id"]]


async def test_a_run_answers_202_with_its_location(author: Author) -> None:
    await author.created(RESEARCH)
    response = await author.post_run("research-and-summarize")
    assert response.status_code == 202, response.text
    run_id = response.json()["run_id"]
    assert response.headers["Location"] == f"/workflow-runs/{run_id}"
    assert (await author.get(response.headers["Location"]))["run_id"] == run_id
    await author.wait(run_id)


async def test_a_run_whose_texts_together_pass_a_reply_is_still_readable_cut(
    author: Author,
) -> None:
    # Eight prompts each holding a 150 KB variable: every part within its own limit, the view
    # together over the 1 MiB a NATS reply carries, and GET /workflow-runs/{id} answered 500
    # for good (found by a review of the DAG inputs).
    document = {
        "name": "fan8",
        "variables": {"topic": ""},
        "steps": [{"id": f"s{n}", "prompt": "Summarise {{topic}}"} for n in range(8)],
    }
    topic = "word " * 30_000
    run = await author.run_to_end(document, variables={"topic": topic})
    assert run["status"] == "success", run
    response = await author.detail(run["run_id"])
    assert response.status_code == 200 and len(response.content) < 600 * 1024
    cut = [m["text"] for m in response.json()["messages"] if m["role"] == "user"]
    assert len(cut) == 8
    assert all(text.startswith("Summarise word word") for text in cut)
    assert all("more characters cut: a run's view holds about 512 KiB]" in t for t in cut)
    assert response.json()["variables"]["topic"].endswith("KiB]")


async def test_a_run_of_thousands_of_steps_is_read_a_page_of_steps_at_a_time(
    author: Author,
) -> None:
    # 4,000 notify steps, a 250 KB document: its view was 1.3 MB, over the 1 MiB a NATS reply
    # carries, and GET /workflow-runs/{id} answered 500 (found by a probe on `make run`).
    document = {
        "name": "fan4000",
        "steps": [
            {"id": f"s{n}", "type": "notify", "notifyMsg": f"hello {n}"} for n in range(4000)
        ],
    }
    run = await author.run_to_end(document, mode="dry_run")
    assert run["status"] == "success"
    path = f"/workflow-runs/{run['run_id']}"
    first = await author.detail(run["run_id"])
    assert first.status_code == 200 and len(first.content) <= 512 * 1024, len(first.content)
    page = first.json()
    steps = [step["id"] for step in page["steps"]]
    assert page["more_steps"] == 4000 - len(steps) > 0
    while page["next_steps_after"] is not None:
        page = await author.get(path, steps_after=page["next_steps_after"])
        steps += [step["id"] for step in page["steps"]]
    assert steps == [f"s{n}" for n in range(4000)] and page["more_steps"] == 0
    assert [s["id"] for s in (await author.get(path, steps_after="s10", limit=2))["steps"]] == [
        "s11",
        "s12",
    ]
    refused = await author.http.get(f"{path}?steps_after=nope", headers=author.headers)
    assert refused.status_code == 422
    assert refused.json()["error"]["details"][0]["field"] == "query.steps_after"
