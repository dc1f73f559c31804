"""The conversation turn: record the user's message, ask the step's agent, apply its signal.

What the turn answers, a retry's answer from the log too, is built in `chat_replies`."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import MAX_HISTORY_CHARS, AgentReply, HistoryEntry, RunAgent
from baton_contracts.storable import NUL_PROBLEM
from baton_contracts.workflow_api import (
    ChatMessage,
    Conversation,
    GetConversation,
    MessageReply,
    SendMessage,
)
from baton_workflow.adapters.instances import LoadedInstance
from baton_workflow.domain import commands as dc
from baton_workflow.domain.conversation import (
    BlankText,
    TextTooLong,
    UnstorableText,
    agent_signal,
    chat,
    checked_text,
    last_block,
    recent_chat,
)
from baton_workflow.domain.definitions import StepDefinition, WorkflowDefinition
from baton_workflow.domain.state import InstanceState
from baton_workflow.domain.widgets import widgets_completed
from baton_workflow.service.chat_replies import (
    after_key_reused,
    answer_from_log,
    chat_message,
    key_reused,
    message_reply,
)
from baton_workflow.service.checkers import CheckContext, unreachable_causes
from baton_workflow.service.paging import json_size, paged
from baton_workflow.service.ports import REPLY_GRACE
from baton_workflow.service.turns import (
    TurnTime,
    commit_turn,
    instance_locked,
    not_active,
)
from baton_workflow.service.workflow_services import WorkflowServices

logger = logging.getLogger("baton.workflow")


async def send_message(svc: WorkflowServices, cmd: SendMessage) -> MessageReply:
    """One chat turn; the same `client_message_id` again answers from the log, asking no agent."""
    text = _text(cmd.text)
    # The turn's time runs from its arrival: a turn queued here behind another turn of the
    # instance must not start its agent call once its caller has stopped waiting.
    time = turn_time(svc.deadline(svc.turn_timeout))
    async with instance_locked(svc, cmd.instance_id, time):
        # Fresh (the cached instance and the log's tail, one read): the agent is asked on this
        # state, and its answer is not asked again when the append then conflicts. On a cache
        # another replica has moved past, the closed step's agent answered, a completed
        # instance was talked to, and a stale message count told the agent it could not
        # complete the step (the user's confirmation lost).
        loaded = await svc.owned(cmd.instance_id, cmd.user_id)
        if cmd.client_message_id in loaded.state.outcomes:
            return answer_from_log(svc, loaded, cmd.client_message_id, text)
        state = loaded.state
        if state.status != "active":
            raise not_active(state)
        definition = svc.definition(state.workflow_id)
        step = definition.step(state.current_step)
        try:
            reply = await _ask(svc, loaded, definition, step, cmd, text, time.deadline)
        except RemoteError as exc:
            if not key_reused(exc):
                raise
            return await after_key_reused(svc, cmd, text, step)
        signal = dc.Signal.model_validate(reply.workflow_signal.model_dump())

        def exchange(now: InstanceState) -> dc.RecordExchange:
            # The agent answered for `step`; if another replica moved the instance meanwhile,
            # its signal no longer applies, and the exchange is recorded on `step`, counting
            # toward no later one (`decide._late_exchange`).
            still_here = now.current_step == step.id
            return dc.RecordExchange(
                command_id=cmd.client_message_id,
                signal=agent_signal(signal, definition, step.id) if still_here else None,
                user_text=text,
                agent_text=reply.message,
                agent=step.agent_slug,
                step=step.id,
            )

        turn, replayed = await commit_turn(
            svc, cmd.instance_id, cmd.user_id, exchange, time, loaded=loaded
        )
        if replayed is not None:
            return answer_from_log(svc, replayed, cmd.client_message_id, text)
        answer = ChatMessage(
            role="assistant",
            text=reply.message,
            step=step.id,
            agent=step.agent_slug,
            client_message_id=cmd.client_message_id,
            at=turn.instance.updated_at,
        )
        return message_reply(svc, answer, turn)


# Each says to send the message again under the same id: the agent may have answered, and
# saved facts and inbox items, before the turn ran out of time; the same id takes that answer
# from the agent-runner's log, where a new id would leave what it saved beside the new turn's.
TURN_QUEUED_TOO_LONG = (
    "another message to this instance was still being answered; nothing was recorded: "
    "send the message again with the same client_message_id"
)
TURN_OUT_OF_TIME = (
    "other messages or signals to this instance kept being recorded first until this "
    "message's time ran out; nothing was recorded: send the message again with the same "
    "client_message_id"
)
TURN_NOT_WRITTEN_IN_TIME = (
    "the workflow service's database was too busy to record this message before its time ran "
    "out; nothing was recorded: send the message again with the same client_message_id"
)
TURN_CHECKED_TOO_LATE = (
    "checking step {step!r}'s completion criteria took {seconds:.1f}s, until this message's "
    "time ran out; nothing was recorded: send the message again with the same "
    "client_message_id"
)
TURN_COULD_NOT_CHECK = (
    "could not check whether step {step!r} can close ({causes}); nothing was recorded: send "
    "the message again with the same client_message_id"
)
PRECHECK_COULD_NOT_CHECK = (
    "could not check whether step {step!r} can close ({causes}); nothing was recorded and the "
    "agent was not asked: send the message again with the same client_message_id"
)
"""The pre-check's `TURN_COULD_NOT_CHECK`: it runs before the agent is asked."""


def turn_time(deadline: datetime | None) -> TurnTime:
    """A chat turn's time. Its conflict retries end by its deadline (an append then may take a
    statement's time: retried past it, the turn was recorded after the gateway's 503). Its
    append starts by the deadline and the reply's grace, or not at all: one that waited for a
    free database writer past it was recorded after the gateway's 503."""
    return TurnTime(
        deadline=deadline,
        start_by=None if deadline is None else deadline + timedelta(seconds=REPLY_GRACE),
        queued_too_long=TURN_QUEUED_TOO_LONG,
        out_of_time=TURN_OUT_OF_TIME,
        not_written_in_time=TURN_NOT_WRITTEN_IN_TIME,
        checked_too_late=TURN_CHECKED_TOO_LATE,
        could_not_check=TURN_COULD_NOT_CHECK,
    )


async def get_conversation(svc: WorkflowServices, query: GetConversation) -> Conversation:
    """One page of the instance's chat, oldest first: the exchanges recorded after
    `after_version`, at most `limit` of them and about `PAGE_BYTES` of text."""
    loaded = await svc.owned(query.instance_id, query.user_id)
    after = loaded.events[query.after_version :]  # the log's version n is its n-th event
    exchanges = [
        (version, said)
        for version, event in enumerate(after, start=query.after_version + 1)
        if (said := chat([event]))
    ]
    page = paged(exchanges, query.limit, lambda found: json_size([s.text for s in found[1]]))
    more = len(page) < len(exchanges)
    return Conversation(
        instance_id=query.instance_id,
        messages=[chat_message(s) for _, said in page for s in said],
        next_after_version=page[-1][0] if more else None,
    )


def _text(text: str) -> str:
    try:
        return checked_text(text)
    except BlankText as exc:
        raise RemoteError.of(
            ErrorCode.INVALID, str(exc), [ErrorDetail(field="text", message="must not be blank")]
        ) from None
    except UnstorableText as exc:
        raise RemoteError.of(
            ErrorCode.INVALID, str(exc), [ErrorDetail(field="text", message=NUL_PROBLEM)]
        ) from None
    except TextTooLong as exc:
        raise RemoteError.of(
            ErrorCode.TOO_LARGE, str(exc), [ErrorDetail(field="text", message=str(exc))]
        ) from None


def _agents_ahead(definition: WorkflowDefinition, step: StepDefinition) -> list[str]:
    """The agents of the steps after `step` on the workflow's path, in order."""
    path = definition.path()
    at = next(index for index, each in enumerate(path) if each.id == step.id)
    return [each.agent_slug for each in path[at + 1 :]]


async def _ask(
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
        # An agent's answer has no length limit, a history entry has: cut, not refused, or one
        # long answer would fail every later turn of the instance.
        history=[HistoryEntry(role=s.role, text=s.text[:MAX_HISTORY_CHARS]) for s in history],
        message=text,
        idempotency_key=f"{state.instance_id}:{cmd.client_message_id}",
        deadline=deadline,
    )
    try:
        return await _asked(svc, request)
    except RemoteError as exc:
        if exc.body.code not in (ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL):
            raise
        logger.warning("agent %s failed on %s: %s", step.agent_slug, state.instance_id, exc)
        raise RemoteError.of(
            ErrorCode.UNAVAILABLE,
            f"the {step.agent_slug} agent did not answer ({exc.body.message}); nothing was "
            f"recorded and the instance is still on {step.id!r}: send the message again",
        ) from None


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
