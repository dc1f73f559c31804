"""An agent-runner killed mid-call (SIGKILL: the claim on the key it was calling the model for
is never given back) and restarted on its own data folder takes the key up again at once,
instead of waiting for that claim to run out as if another replica were still calling."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from baton_agent_runner.bootstrap import AgentRunnerApp, build
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.task import ModelChoice, TaskCall
from baton_agent_runner.service.ports import TaskAnswer
from baton_contracts.agent_api import TokenUsage

from ...task_requests import research_step
from .conftest import settings


class Model:
    """Answers `answer`, or never answers while `hang` is set; counts and signals its calls."""

    def __init__(self, answer: str, hang: bool = False) -> None:
        self.answer, self.hang, self.calls = answer, hang, 0
        self.asked = asyncio.Event()

    def agent_model(self, profile: Profile) -> str:
        return "scripted"

    async def perform(
        self, profile: Profile, choice: ModelChoice, call: TaskCall, timeout: float
    ) -> TaskAnswer:
        self.calls += 1
        self.asked.set()
        if self.hang:
            await asyncio.Event().wait()
        return TaskAnswer(output=self.answer, usage=TokenUsage(input_tokens=1, output_tokens=1))


def killed(app: AgentRunnerApp) -> None:
    """From now on `app` gives no claim back, as a killed process gives none. (Its stop still
    closes the replica id file, as the kernel would.)"""

    async def never(user_id: str, key: str) -> None:
        pass

    app.tasks.results.release = never  # type: ignore[method-assign]


async def test_a_killed_runner_restarted_on_its_folder_takes_its_keys_up_at_once(
    nats_url: str, database_url: str, tmp_path: Path
) -> None:
    config = settings(
        nats_url, database_url, data_dir=tmp_path / "agent-data", memory_backend="sql"
    )
    lost, again = Model("never", hang=True), Model("the answer")
    first = build(config, task_agents=lost)
    await first.start()
    # Its claim: a minute or more.
    call = asyncio.create_task(first.tasks.run(research_step(timeout=60)))
    await lost.asked.wait()
    killed(first)
    call.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await call
    await first.stop()

    second = build(config, task_agents=again)
    await second.start()
    try:
        # Sent again with the same key (the workflow retries the step). A runner that took the
        # old claim for another replica's would wait and answer `unavailable` after 5 s.
        answer = await second.tasks.run(research_step(timeout=5))
    finally:
        await second.stop()
    assert answer.output == "the answer" and not answer.replayed
    assert (lost.calls, again.calls) == (1, 1)
