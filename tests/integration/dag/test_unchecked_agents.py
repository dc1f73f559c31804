"""Saving a workflow does not depend on the agent-runner: when it does not answer which agent
profiles exist, the document is stored with its agents unchecked, and says so; its runs still
fail a step whose agent has no profile, as they did before the check at save time."""

from __future__ import annotations

import logging

import nats
import pytest

from ...platform_stack import Stack
from .conftest import Author, steps_of

DOCUMENT = {"name": "unchecked", "steps": [{"id": "a", "agent": "nobody", "prompt": "x"}]}
UNCHECKED = " a step whose agent has no profile fails when it runs"


async def test_a_save_while_no_agent_runner_answers_is_stored_with_a_warning(
    stack: Stack, author: Author, caplog: pytest.LogCaptureFixture
) -> None:
    await stack.stop_agent_runner()
    with caplog.at_level(logging.WARNING, logger="baton.workflow"):
        saved = await author.created(DOCUMENT)
    assert saved["version"] == 1
    assert saved["warnings"] == [
        "the agents were not checked: the agent-runner did not answer (no responders on "
        f"'agent.query.profiles');{UNCHECKED}"
    ]
    assert any(
        r.levelno == logging.WARNING and "'unchecked'" in r.getMessage() for r in caplog.records
    ), caplog.text
    assert [w["name"] for w in (await author.get("/workflows"))["workflows"]] == ["unchecked"]
    validated = await author.http.post("/workflows/unchecked/validate", headers=author.headers)
    assert validated.status_code == 200, validated.text
    assert validated.json()["warnings"] == saved["warnings"]

    # The stored version starts, and its step fails when it asks its agent, as it always did.
    await stack.start_agent_runner()
    run = await author.wait((await author.run("unchecked"))["run_id"])
    assert run["status"] == "error"
    assert "agent 'nobody' has no profile" in steps_of(run)["a"]["error"]
    # With the agent-runner back, the same document is refused.
    refused = await author.create({**DOCUMENT, "description": "v2"})
    assert refused.status_code == 422, refused.text


async def test_an_agent_runner_that_does_not_answer_delays_a_save_only_briefly(
    stack: Stack, author: Author
) -> None:
    await stack.stop_agent_runner()
    silent = await nats.connect(stack.nats_url)
    try:
        await silent.subscribe("agent.query.profiles", cb=_ignore)  # takes it, never answers
        await silent.flush()
        saved = await author.created(DOCUMENT)
    finally:
        await silent.close()
    assert saved["warnings"] == [
        "the agents were not checked: the agent-runner did not answer (no reply on "
        f"'agent.query.profiles' within 2s);{UNCHECKED}"
    ]


async def _ignore(_: object) -> None:
    return None
