"""A chat turn whose pre-check cannot reach the agent-runner is refused 503, its agent not asked.

Before a turn's agent is asked, the workflow checks whether the step could close now (seed
000's pre-check: `can_complete`). When the agent-runner, which the `memory_facts` checker asks,
was restarting, the checker's "no responders" counted as not met: the agent was told the step
could not close, answered a user who had just confirmed the summary "anything to add?", and the
step stayed, nothing saying why (seen under `baton up` with the agent-runner killed). Now the
turn is refused `unavailable` naming the checker, nothing is recorded, and the same message
sent again, once the agent-runner answers, is decided on the real count. So is one whose query
went unanswered (an agent-runner killed while counting): the query ends a little before the
checker's own timer, as `unavailable`.

The same holds when the turn is decided: a chat turn whose agent asked to complete the step,
or a signal `complete_step`, whose checks then find no agent-runner is refused, nothing
recorded, instead of recording the step blocked for good.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, Count, CountMemoryFacts, RunAgent
from baton_contracts.workflow_api import SendMessage, SignalWorkflow, StartWorkflow, WorkflowSignal
from baton_workflow.bootstrap import WorkflowApp, build
from baton_workflow.service.conversation import send_message
from baton_workflow.service.handlers import start_workflow, take_turn

from .conftest import FakeAgentRunner, refused, serving, workflow_settings


class Agents:
    """Completes the greeting on its second message; in discovery, completes once it may."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, bool]] = []

    async def run(self, request: RunAgent) -> AgentReply:
        self.asked.append((request.message, request.can_complete))
        done = request.current_step == "greeting" and request.message == "ready"
        done = done or (request.current_step == "discovery" and request.can_complete)
        action = "complete_step" if done else "stay"
        return AgentReply.model_validate(
            {"message": f"answer to {request.message}", "workflow_signal": {"action": action}}
        )


Say = Callable[[str, str], Awaitable[Any]]


@contextlib.asynccontextmanager
async def at_discoverys_fifth_message(
    nats_url: str, sqlite_url: str, agents: Agents
) -> AsyncIterator[tuple[WorkflowApp, str, Say]]:
    """An instance on discovery with four messages in it: the fifth could close the step, so
    its pre-check asks the agent-runner (`memory_facts`); none answers the queries yet."""
    app = build(workflow_settings(nats_url, sqlite_url), agents=agents)
    await app.start()
    try:
        started = await start_workflow(
            app.services, StartWorkflow(user_id="u", workflow_id="onboarding")
        )
        instance = started.instance.instance_id

        async def say(cid: str, text: str) -> Any:
            said = SendMessage(user_id="u", instance_id=instance, client_message_id=cid, text=text)
            return await send_message(app.services, said)

        await say("g1", "hi")
        await say("g2", "ready")  # greeting -> discovery (its criteria ask no other service)
        for n in range(4):  # fewer than discovery's 5: the pre-check asks nobody
            await say(f"d{n}", f"about me {n}")
        yield app, instance, say
    finally:
        await app.stop()


async def refusal(say: Say) -> RemoteError | None:
    return await refused(say("d4", "yes, that's right"))


async def test_a_turn_whose_precheck_finds_no_agent_runner_is_refused(
    nats_url: str, sqlite_url: str
) -> None:
    agents = Agents()
    async with at_discoverys_fifth_message(nats_url, sqlite_url, agents) as (app, instance, say):
        refused = await refusal(say)
        asked_before = list(agents.asked)
        log = await app.services.repo.records(instance)
        async with serving(nats_url, FakeAgentRunner(facts={"u": 3})):
            again = await say("d4", "yes, that's right")

    assert refused is not None, "the turn was decided on a checker that could not answer"
    assert refused.body.code is ErrorCode.UNAVAILABLE
    assert refused.body.message.startswith(
        "could not check whether step 'discovery' can close (memory_facts: checker error: "
    )
    assert "no responders on 'agent.query.memory_facts'" in refused.body.message
    assert refused.body.message.endswith(
        "nothing was recorded and the agent was not asked: send the message again with the "
        "same client_message_id"
    )
    assert ("yes, that's right", False) not in asked_before  # never told it cannot close
    assert "d4" not in [r.payload.get("command_id") for r in log]
    assert agents.asked[-1] == ("yes, that's right", True)
    assert again.turn.outcome == "transitioned"
    assert again.progress.current_step == "brain_dump"


async def test_a_turn_whose_precheck_query_goes_unanswered_is_refused(
    nats_url: str, sqlite_url: str
) -> None:
    # The agent-runner took the query and did not answer within the checker's 1 s (killed
    # while counting, say): the checker's own timer used to end it, counted as not met.
    agents = Agents()
    slow = FakeAgentRunner(facts={"u": 3}, delay=2.0)
    async with (
        at_discoverys_fifth_message(nats_url, sqlite_url, agents) as (_, _, say),
        serving(nats_url, slow),
    ):
        refused = await refusal(say)

    assert refused is not None, "the turn was decided on a checker that could not answer"
    assert refused.body.code is ErrorCode.UNAVAILABLE
    assert "no reply on 'agent.query.memory_facts' within 0.9s" in refused.body.message
    assert ("yes, that's right", False) not in agents.asked


class GoesDown(FakeAgentRunner):
    """Answers the checker queries until `down`, then refuses them `unavailable`, as the
    responder of a stopping agent-runner does."""

    down: bool = False

    async def count_facts(self, query: CountMemoryFacts) -> Count:
        if self.down:
            raise RemoteError.of(ErrorCode.UNAVAILABLE, "the agent-runner is stopping")
        return await super().count_facts(query)


async def test_a_turn_whose_decision_finds_no_agent_runner_is_refused(
    nats_url: str, sqlite_url: str
) -> None:
    # The pre-check found the step could close and the agent asked to complete it; the
    # agent-runner went down before the decision asked again. Counted as not met, that check
    # recorded the step blocked after the agent had told the user it was moving on.
    agents = Agents()
    runner = GoesDown(facts={"u": 3})
    real_run = agents.run

    async def run_then_go_down(request: RunAgent) -> AgentReply:
        runner.down = request.message == "yes, that's right"  # asked after the pre-check
        return await real_run(request)

    agents.run = run_then_go_down  # type: ignore[method-assign]
    async with (
        serving(nats_url, runner),
        at_discoverys_fifth_message(nats_url, sqlite_url, agents) as (app, instance, say),
    ):
        log = await app.services.repo.records(instance)
        refused = await refusal(say)
        after = await app.services.repo.records(instance)
        runner.down = False
        agents.run = real_run  # type: ignore[method-assign]
        again = await say("d4", "yes, that's right")

    assert refused is not None, "the turn was decided on a checker that could not answer"
    assert refused.body.code is ErrorCode.UNAVAILABLE
    assert refused.body.message == (
        "could not check whether step 'discovery' can close (memory_facts: checker error: "
        "RemoteError: unavailable: the agent-runner is stopping); nothing was recorded: send "
        "the message again with the same client_message_id"
    )
    assert ("yes, that's right", True) in agents.asked  # the pre-check had found it could
    assert len(after) == len(log), "the refused turn left something in the log"
    assert again.turn.outcome == "transitioned"
    assert again.progress.current_step == "brain_dump"


async def test_a_signal_whose_checks_find_no_agent_runner_is_refused(
    nats_url: str, sqlite_url: str
) -> None:
    async with at_discoverys_fifth_message(nats_url, sqlite_url, Agents()) as (app, instance, _):
        log = await app.services.repo.records(instance)
        close = SignalWorkflow(
            user_id="u",
            instance_id=instance,
            command_id="close",
            signal=WorkflowSignal(action="complete_step"),
        )
        turned_down = await refused(take_turn(app.services, close))
        after = await app.services.repo.records(instance)
        async with serving(nats_url, FakeAgentRunner(facts={"u": 3})):
            again = await take_turn(app.services, close)

    assert turned_down is not None, "the signal was decided on a checker that could not answer"
    assert turned_down.body.code is ErrorCode.UNAVAILABLE
    assert turned_down.body.message.startswith(
        "could not check whether step 'discovery' can close (memory_facts: checker error: "
    )
    assert "no responders on 'agent.query.memory_facts'" in turned_down.body.message
    assert turned_down.body.message.endswith("; nothing was recorded: send it again")
    assert len(after) == len(log), "the refused signal recorded the step blocked"
    # Answered, the same signal is decided on what is really missing: one message more.
    assert again.outcome == "blocked"
    assert not [m for m in again.missing_criteria if "checker error" in m], again
    assert [m for m in again.missing_criteria if "memory_facts" in m] == []
