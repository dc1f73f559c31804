"""What a chat turn asks its step's agent: the request (the step's context, the recent chat,
and the pre-check whether the step would close now), sent to the agent-runner and, when it is
too large for NATS, sent again with its oldest history left out."""

from __future__ import annotations

import logging
from datetime import datetime

from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import MAX_HISTORY_CHARS, AgentReply, HistoryEntry, RunAgent
from baton_contracts.workflow_api import SendMessage
from baton_messaging.requests import ReplyUnreadable
from baton_workflow.adapters.instances import LoadedInstance
from baton_workflow.domain import commands as dc
from baton_workflow.domain.conversation import last_block, recent_chat
from baton_workflow.domain.definitions import StepDefinition, WorkflowDefinition
from baton_workflow.domain.state import InstanceState
from baton_workflow.domain.widgets import widgets_completed
from baton_workflow.service.checkers import CheckContext, unreachable_causes
from baton_workflow.service.workflow_services import WorkflowServices

logger = logging.getLogger("baton.workflow")


def _agents_ahead(definition: WorkflowDefinition, step: StepDefinition) -> list[str]:
    """The agents of the steps after `step` on the workflow's path, in order."""
    path = definition.path()
    at = next(index for index, each in enumerate(path) if each.id == step.id)
    return [each.agent_slug for each in path[at + 1 :]]


async def ask_agent(
    svc: WorkflowServices,
    loaded: LoadedInstance,
    definition: WorkflowDefinition,
    step: StepDefinition,
    cmd: SendMessage,
    text: str,
    deadline: datetime | None = None,
) -> AgentReply:
    state = loaded.state
    history = recent_chat(loaded.events, svc.history_size)
    step_context = {
        "step_title": step.title,
        "messages_in_step": state.messages_in_step,
        "min_messages": step.min_messages,
        "max_messages": step.max_messages,
        "workflow": state.context(),
        # Which agents serve the steps still ahead: the agent-runner keeps an inbox request
        # for a later inbox step only when one is there, else saves it at once.
        "agents_ahead": _agents_ahead(definition, step),
        # What closes the step: an agent then knows whether its own turn can meet the criteria
        # (items it saves now) or something else must (a widget the user completes).
        "criteria": [criterion.checker for criterion in step.completion_criteria],
        # Its announcement may reach the agent-runner after this turn does (`widgets.py`).
        "widgets_completed": widgets_completed(loaded.events, loaded.event_ids),
    }
    blocked = last_block(loaded.events, step.id)
    if blocked is not None:
        step_context["last_block"] = {
            "reason": blocked.reason,
            "missing_criteria": blocked.missing_criteria,
        }
    request = RunAgent(
        user_id=cmd.user_id,
        agent=step.agent_slug,
        instance_id=state.instance_id,
        current_step=step.id,
        step_context=step_context,
        can_complete=await _can_complete(svc, state, step),
        step_required=step.is_required,
        # An agent's answer has no length limit, a history entry has: cut, not refused, or one
        # long answer would fail every later turn of the instance.
        history=[HistoryEntry(role=s.role, text=s.text[:MAX_HISTORY_CHARS]) for s in history],
        message=text,
        idempotency_key=f"{state.instance_id}:{cmd.client_message_id}",
        deadline=deadline,
    )
    try:
        return await _asked(svc, request)
    except ReplyUnreadable as exc:
        # The agent-runner answered, so it recorded its reply under the turn's key: "nothing
        # was recorded" would be untrue, and a retry is answered from that record.
        logger.error(
            "agent %s's reply on %s unreadable: %s", step.agent_slug, state.instance_id, exc
        )
        raise RemoteError.of(
            ErrorCode.UNAVAILABLE,
            AGENT_REPLY_UNREADABLE.format(
                agent=step.agent_slug, why=exc.body.message, step=step.id
            ),
        ) from None
    except RemoteError as exc:
        if _no_such_agent(exc):
            raise _agent_not_deployed(definition, step, exc) from None
        if exc.body.code not in (ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL):
            raise
        logger.warning("agent %s failed on %s: %s", step.agent_slug, state.instance_id, exc)
        raise RemoteError.of(
            ErrorCode.UNAVAILABLE,
            f"the {step.agent_slug} agent could not answer ({exc.body.message}); nothing was "
            f"recorded and the instance is still on {step.id!r}: send the message again with "
            "the same client_message_id",
        ) from None


def _no_such_agent(exc: RemoteError) -> bool:
    """The agent-runner's answer for a slug it has no profile of (`not_found`, field `agent`)."""
    return exc.body.code is ErrorCode.NOT_FOUND and any(
        detail.field == "agent" for detail in exc.body.details
    )


def _agent_not_deployed(
    definition: WorkflowDefinition, step: StepDefinition, exc: RemoteError
) -> RemoteError:
    """A definition naming an agent the agent-runner lacks is the deployment's fault, not the
    caller's: passed on as it came, it reached the client as a 404 on an instance that exists
    (a console then says the onboarding is gone), and a retry cannot help."""
    logger.error(
        "workflow %s step %s names agent %s, which the agent-runner does not know: %s",
        definition.id,
        step.id,
        step.agent_slug,
        exc.body.message,
    )
    return RemoteError.of(
        ErrorCode.INTERNAL,
        AGENT_NOT_DEPLOYED.format(
            workflow=definition.id, step=step.id, agent=step.agent_slug, why=exc.body.message
        ),
    )


AGENT_NOT_DEPLOYED = (
    "step {step!r} of workflow {workflow!r} is served by the agent {agent!r}, which the "
    "agent-runner does not know ({why}); nothing was recorded and the instance is still on "
    "{step!r}: the agent's profile must be deployed, or the definition name another agent"
)


AGENT_REPLY_UNREADABLE = (
    "the {agent} agent answered, but this workflow service could not read its reply ({why}); "
    "the agent-runner has recorded that reply, the instance is still on {step!r} and the "
    "conversation did not move on. Sending the message again with the same client_message_id "
    "is answered from that record (the agent is not asked again), so it fails the same way "
    "until the workflow service and the agent-runner run matching versions"
)
"""A reply the agent-runner sent (and so recorded) that does not decode here: most likely
the two services were deployed at versions whose `AgentReply` differ."""


AGENT_REQUEST_BYTES = 1024 * 1024 - 16 * 1024
"""The most an agent request may take as sent: NATS's default `max_payload` (1 MiB), less
room for the headers and the `deadline` the adapter adds."""


async def _asked(svc: WorkflowServices, request: RunAgent) -> AgentReply:
    """The agent's reply; a request too large for NATS (nothing was sent) is sent again with
    its oldest history entries left out until it fits."""
    try:
        return await svc.agents.run(request)
    except RemoteError as exc:
        if exc.body.code is not ErrorCode.TOO_LARGE or not request.history:
            raise
    return await svc.agents.run(_fitted(request))


def _fitted(request: RunAgent) -> RunAgent:
    """The request with its oldest history entries left out until it fits a NATS message:
    20 entries of 8,000 characters (up to 6 bytes each as JSON) beside the step data and
    `shared` at their limits made every later turn of the instance too large to send, a
    short "ok" too (the history does not change while nothing is recorded)."""
    size = len(request.to_bytes())
    if size <= AGENT_REQUEST_BYTES:
        return request
    history = list(request.history)
    while history and size > AGENT_REQUEST_BYTES:
        size -= len(history.pop(0).model_dump_json()) + 1  # the entry and its comma
    return request.model_copy(update={"history": history})


# Like `conversation`'s TURN_* refusals, it says to send the message again under the same
# id (see there why).
PRECHECK_COULD_NOT_CHECK = (
    "could not check whether step {step!r} can close ({causes}); nothing was recorded and the "
    "agent was not asked: send the message again with the same client_message_id"
)
"""The pre-check's `conversation.TURN_COULD_NOT_CHECK`: it runs before the agent is asked."""


async def _can_complete(svc: WorkflowServices, state: InstanceState, step: StepDefinition) -> bool:
    """Seed 000's pre-check: would the step close now if the agent asked to complete it?"""
    if not step.is_required:  # `decide` closes an optional step on the signal alone
        return True
    if state.messages_in_step + 1 < step.min_messages:
        return False
    if not step.completion_criteria:
        return True
    asking = dc.Signal(action="complete_step")
    ctx = CheckContext(state, step, asking, state.messages_in_step + 1, svc.agent_runner)
    report = await svc.checkers.evaluate(ctx, step.completion_criteria, svc.checker_timeout)
    if causes := unreachable_causes(report):
        # Told it cannot complete, the agent answered a confirming user "anything to add?",
        # and the step stayed with nothing to say why: a restart of the agent-runner turned
        # into the user's fault. The agent is not asked; nothing is recorded.
        raise RemoteError.of(
            ErrorCode.UNAVAILABLE, PRECHECK_COULD_NOT_CHECK.format(step=step.id, causes=causes)
        )
    return report.all_met
