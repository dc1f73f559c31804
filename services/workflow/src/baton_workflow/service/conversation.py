"""The conversation turn: record the user's message, ask the step's agent, apply its signal.

What the agent is asked is built and sent in `agent_requests`; what the turn answers, a
retry's answer from the log too, in `chat_replies`."""

from __future__ import annotations

from datetime import datetime, timedelta

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.storable import NUL_PROBLEM
from baton_contracts.workflow_api import (
    ChatMessage,
    Conversation,
    GetConversation,
    MessageReply,
    SendMessage,
)
from baton_workflow.domain import commands as dc
from baton_workflow.domain.conversation import (
    BlankText,
    TextTooLong,
    UnstorableText,
    agent_signal,
    chat,
    checked_text,
)
from baton_workflow.domain.state import InstanceState
from baton_workflow.service.agent_requests import ask_agent
from baton_workflow.service.chat_replies import (
    after_key_reused,
    answer_from_log,
    chat_message,
    key_reused,
    message_reply,
)
from baton_workflow.service.paging import json_size, paged
from baton_workflow.service.ports import REPLY_GRACE
from baton_workflow.service.turns import TurnTime, commit_turn, instance_locked, not_active
from baton_workflow.service.workflow_services import WorkflowServices
from baton_workflow.service.write_deadlines import not_written_in_time


async def send_message(svc: WorkflowServices, cmd: SendMessage) -> MessageReply:
    """One chat turn; the same `client_message_id` again answers from the log, asking no agent."""
    text = _text(cmd.text)
    # The turn's time runs from its arrival: a turn queued here behind another turn of the
    # instance must not start its agent call once its caller has stopped waiting. And it ends
    # by its caller's deadline: a send again of the turn (the gateway's, while the first is
    # unanswered) arrives with less of the caller's time left than a first send.
    time = turn_time(svc.deadline(svc.turn_timeout), svc.writes.caller_start_by(cmd.deadline))
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
            reply = await ask_agent(svc, loaded, definition, step, cmd, text, time.deadline)
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
TURN_NOT_WRITTEN_IN_TIME = not_written_in_time(
    "message", "nothing was recorded", "send the message again with the same client_message_id"
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


def turn_time(own: datetime | None, caller_start_by: datetime | None = None) -> TurnTime:
    """A chat turn's time: its own deadline (`own`, from its arrival), brought forward so that
    its append can begin by `caller_start_by` (its caller's deadline less the append's and the
    answer's time; None: the caller sent none).

    Its conflict retries end by its deadline (an append then may take a statement's time:
    retried past it, the turn was recorded after the gateway's 503). Its append starts by the
    deadline and the reply's grace, or not at all: one that waited for a free database writer
    past it was recorded after the gateway's 503."""
    deadline = own
    start_by = None if own is None else own + timedelta(seconds=REPLY_GRACE)
    if caller_start_by is not None:
        by_caller = caller_start_by - timedelta(seconds=REPLY_GRACE)
        deadline = by_caller if deadline is None else min(deadline, by_caller)
        start_by = caller_start_by if start_by is None else min(start_by, caller_start_by)
    return TurnTime(
        deadline=deadline,
        start_by=start_by,
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
        # The detail says what the message says: "must not be blank" beside it read as two
        # rules to a user whose text of zero-width spaces was not blank to the eye.
        problem = str(exc).removeprefix("text: ")
        raise RemoteError.of(
            ErrorCode.INVALID, str(exc), [ErrorDetail(field="text", message=problem)]
        ) from None
    except UnstorableText as exc:
        raise RemoteError.of(
            ErrorCode.INVALID, str(exc), [ErrorDetail(field="text", message=NUL_PROBLEM)]
        ) from None
    except TextTooLong as exc:
        raise RemoteError.of(
            # The detail's field is named once, by `field`: the gateway renames it there.
            ErrorCode.TOO_LARGE,
            str(exc),
            [ErrorDetail(field="text", message=exc.problem)],
        ) from None
