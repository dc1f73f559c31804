"""`agent.query.profiles`: the agents the agent-runner has a profile for, as it loaded them at
start (what a DAG step's `agent` may name; the workflow service asks when a document is saved)."""

from __future__ import annotations

import shutil
from pathlib import Path

from nats.aio.client import Client

from baton_agent_runner.bootstrap import build
from baton_agent_runner.settings import SHIPPED_PROFILES
from baton_contracts.agent_api import AgentProfiles, ListAgentProfiles
from baton_messaging import request

from .conftest import settings


async def test_the_profiles_folder_is_what_the_query_answers(
    nats_url: str, sqlite_url: str, client: Client, tmp_path: Path
) -> None:
    folder = tmp_path / "profiles"
    folder.mkdir()
    for slug in ("ruri", "greeter"):
        shutil.copy(SHIPPED_PROFILES / f"{slug}.yaml", folder)
    app = build(settings(nats_url, sqlite_url, agent_profiles_dir=folder))
    await app.start()
    try:
        reply = await request(client, ListAgentProfiles(), timeout=5.0)
    finally:
        await app.stop()
    assert reply == AgentProfiles(slugs=["greeter", "ruri"])
