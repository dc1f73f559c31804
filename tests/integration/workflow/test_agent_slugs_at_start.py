"""A conversation step whose agent no profile serves is told at start, one WARNING per step,
once the agent-runner answers which profiles it has: not first at the step's first chat turn.
The start never waits for the agent-runner, which may come up later (any order)."""

from __future__ import annotations

import contextlib
import logging
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from baton_contracts.agent_api import AgentProfiles, ListAgentProfiles
from baton_messaging import MessagingSettings, build_broker, respond, start_broker
from baton_workflow.bootstrap import build
from baton_workflow.service import agent_slugs

from .conftest import workflow_settings

pytestmark = pytest.mark.timeout(60)  # a guard only: the check must end once it is answered

DEFINITION = """
id: intake
steps:
  - id: hello
    agent_slug: greeter
    next_step: survey
  - id: survey
    agent_slug: surveyor
    next_step: wrap
  - id: wrap
    agent_slug: closer
"""
WARNINGS = [
    "workflow 'intake' (in {folder}) step 'survey': agent_slug 'surveyor' has no agent profile on"
    " the agent-runner (it serves coordinator, greeter); every chat turn on the step will fail"
    " until one is added",
    "workflow 'intake' (in {folder}) step 'wrap': agent_slug 'closer' has no agent profile on"
    " the agent-runner (it serves coordinator, greeter); every chat turn on the step will fail"
    " until one is added",
]


@contextlib.asynccontextmanager
async def profiles(nats_url: str, *slugs: str) -> AsyncIterator[list[int]]:
    """An agent-runner answering `agent.query.profiles` with `slugs`; yields how often asked."""
    asked: list[int] = []

    async def answer(_: ListAgentProfiles) -> AgentProfiles:
        asked.append(1)
        return AgentProfiles(slugs=sorted(slugs))

    broker = build_broker(MessagingSettings(nats_url=nats_url), "fake-agent-profiles")
    respond(broker, ListAgentProfiles, answer, queue="agent")
    await start_broker(broker)
    try:
        yield asked
    finally:
        await broker.stop()


def folder_with_definition(tmp_path: Path) -> Path:
    folder = tmp_path / "defs"
    folder.mkdir()
    (folder / "intake.yaml").write_text(textwrap.dedent(DEFINITION))
    return folder


def warnings_in(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "agent_slug" in r.getMessage()
    ]


async def test_each_step_whose_agent_has_no_profile_is_warned_of_at_start(
    nats_url: str, sqlite_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = folder_with_definition(tmp_path)
    app = build(workflow_settings(nats_url, sqlite_url, workflow_definitions_dir=folder))
    async with profiles(nats_url, "greeter", "coordinator") as asked:
        with caplog.at_level(logging.INFO, logger="baton.workflow"):
            await app.start()
            try:
                assert app.agents_check is not None
                told = await app.agents_check
            finally:
                await app.stop()
    expected = [w.format(folder=folder) for w in WARNINGS]
    assert told == expected
    assert warnings_in(caplog) == expected
    assert len(asked) == 1  # asked once: it answered


async def test_the_start_does_not_wait_for_an_agent_runner_that_comes_later(
    nats_url: str,
    sqlite_url: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(agent_slugs, "FIRST_WAIT", 0.05)
    monkeypatch.setattr(agent_slugs, "MAX_WAIT", 0.2)
    folder = folder_with_definition(tmp_path)
    app = build(workflow_settings(nats_url, sqlite_url, workflow_definitions_dir=folder))
    with caplog.at_level(logging.INFO, logger="baton.workflow"):
        await app.start()  # no agent-runner on NATS yet: the start goes on without it
        try:
            assert app.ready
            assert app.agents_check is not None
            assert not app.agents_check.done()
            assert warnings_in(caplog) == []
            async with profiles(nats_url, "greeter", "coordinator"):
                told = await app.agents_check
        finally:
            await app.stop()
    expected = [w.format(folder=folder) for w in WARNINGS]
    assert told == expected
    assert warnings_in(caplog) == expected
    assert "checked once the agent-runner answers" in caplog.text


async def test_a_stop_while_no_agent_runner_answers_ends_the_check(
    nats_url: str, sqlite_url: str, tmp_path: Path
) -> None:
    app = build(
        workflow_settings(
            nats_url, sqlite_url, workflow_definitions_dir=folder_with_definition(tmp_path)
        )
    )
    await app.start()
    check = app.agents_check
    assert check is not None
    await app.stop()
    assert check.cancelled()  # nothing left asking the agent-runner after the stop
