"""Definitions load from a folder at start; a bad one stops the service naming file, step, field."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from nats.aio.client import Client

from baton_contracts.workflow_api import SignalWorkflow, StartWorkflow, WorkflowSignal
from baton_workflow.bootstrap import build
from baton_workflow.domain.errors import DefinitionInvalid

from .conftest import FakeAgentRunner, ask, workflow_settings

CUSTOM = """
id: with-plugin
steps:
  - id: only
    agent_slug: greeter
    completion_criteria:
      - checker: shared_flag
        params: {flag: consent}
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


async def test_a_checker_module_adds_a_checker_without_touching_the_core(
    nats_url: str,
    sqlite_url: str,
    tmp_path: Path,
    client: Client,
    agent_runner: FakeAgentRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    folder = tmp_path / "defs"
    write(folder, "custom.yaml", CUSTOM)
    app = build(
        workflow_settings(
            nats_url,
            sqlite_url,
            workflow_definitions_dir=folder,
            workflow_checker_modules=["plugins.business_hours"],
        )
    )
    await app.start()
    try:
        started = await ask(client, StartWorkflow(user_id="pat", workflow_id="with-plugin"))
        instance = started.instance.instance_id
        no = await ask(
            client,
            SignalWorkflow(
                user_id="pat",
                instance_id=instance,
                command_id="1",
                signal=WorkflowSignal(action="complete_step"),
            ),
        )
        assert no.missing_criteria == ["shared_flag: consent=False"]
        yes = await ask(
            client,
            SignalWorkflow(
                user_id="pat",
                instance_id=instance,
                command_id="2",
                signal=WorkflowSignal(action="complete_step", shared={"consent": True}),
            ),
        )
        assert yes.outcome == "completed"
    finally:
        await app.stop()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "id: bad\nsteps:\n  - id: a\n    agent_slug: x\n    next_step: b\n"
            "  - id: b\n    agent_slug: y\n    max_messages: zero\n",
            "steps[1] (b).max_messages: Input should be a valid integer",
        ),
        (
            "id: bad\nsteps:\n  - id: a\n    agent_slug: x\n    next_step: b\n"
            '  - id: b\n    agent_slug: y\n    is_required: "no"\n',
            'steps[1] (b).is_required: Input should be a valid boolean, got the string "no"',
        ),
        (
            "id: bad\nsteps:\n  - id: a\n    agent_slug: x\n    completion_criteria:\n"
            "      - checker: telepathy\n",
            "steps[0] (a).completion_criteria[0].checker: unknown checker 'telepathy'",
        ),
        (
            "id: bad\nsteps:\n  - id: a\n    agent_slug: x\n    completion_criteria:\n"
            "      - checker: inbox_items\n        params: {min_item: 3}\n",
            "steps[0] (a).completion_criteria[0].params.min_item: Extra inputs are not permitted",
        ),
        ("id: bad\nsteps: [", "cannot be read"),
    ],
)
def test_an_invalid_definition_stops_the_service_naming_file_step_and_field(
    tmp_path: Path, nats_url: str, text: str, message: str
) -> None:
    path = write(tmp_path / "defs", "broken.yaml", text)
    env = {
        **os.environ,
        "BATON_NATS_URL": nats_url,
        "BATON_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'w.db'}",
        "BATON_WORKFLOW_DEFINITIONS_DIR": str(tmp_path / "defs"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "baton_workflow"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert str(path) in last and message in last, last


TWO_STEPS = """
id: {id}
steps:
  - id: {first}
    agent_slug: greeter
    next_step: done
  - id: done
    agent_slug: coordinator
"""


async def test_definitions_that_drop_a_step_active_instances_are_on_stop_the_start(
    nats_url: str, sqlite_url: str, tmp_path: Path, client: Client, agent_runner: FakeAgentRunner
) -> None:
    folder = tmp_path / "defs"
    write(folder, "intake.yaml", TWO_STEPS.format(id="intake", first="hello"))
    write(folder, "survey.yaml", TWO_STEPS.format(id="survey", first="ask"))
    settings = workflow_settings(nats_url, sqlite_url, workflow_definitions_dir=folder)
    app = build(settings)
    await app.start()
    try:
        for user in ("pat", "sam"):
            await ask(client, StartWorkflow(user_id=user, workflow_id="intake"))
        await ask(client, StartWorkflow(user_id="pat", workflow_id="survey"))
    finally:
        await app.stop()
    # A deploy renames the step two instances are on, and removes the other workflow.
    write(folder, "intake.yaml", TWO_STEPS.format(id="intake", first="welcome"))
    (folder / "survey.yaml").unlink()
    refusing = build(settings)
    with pytest.raises(DefinitionInvalid) as refused:
        await refusing.start()
    await refusing.stop()
    assert refused.value.source == str(folder)
    assert refused.value.problems == [
        "intake.steps: no step 'hello', but 2 active instance(s) are on it; keep the step "
        "until they have moved on",
        "survey: no longer defined, but 1 active instance(s) are of it (1 on 'ask'); keep it "
        "until they have completed",
    ]
    # Put back as it was, the service starts and the instances carry on.
    write(folder, "intake.yaml", TWO_STEPS.format(id="intake", first="hello"))
    write(folder, "survey.yaml", TWO_STEPS.format(id="survey", first="ask"))
    again = build(settings)
    await again.start()
    await again.stop()
