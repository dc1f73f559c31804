"""What a chat turn answers: the agent's reply with the turn and the step's progress, and a
retry's answer from the log, or why a used `client_message_id` is refused."""

from __future__ import annotations

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.workflow_api import ChatMessage, MessageReply, SendMessage, TurnReply
from baton_workflow.adapters.instances import LoadedInstance
from baton_workflow.domain.conversation import Said, exchange_of
from baton_workflow.domain.definitions import StepDefinition
from baton_workflow.service.turns import replay_turn
from baton_workflow.service.views import progress_view
from baton_workflow.service.workflow_services import WorkflowServices


def answer_from_log(
    svc: WorkflowServices, loaded: LoadedInstance, command_id: str, text: str
) -> MessageReply:
    """The recorded answer to a retry; a different message under a used id is refused: answered
    with the first message's reply, it would be dropped unseen (a page that restarts its id
    counter after a reload, say)."""
    definition = svc.definition(loaded.state.workflow_id)
    turn = replay_turn(loaded, command_id, definition, svc)
    recorded = exchange_of(loaded.events, command_id)
    if recorded is None or recorded.user_text is None:
        raise RemoteError.of(
            ErrorCode.CONFLICT,
            f"client_message_id {command_id!r} was already used for a command that is not a "
            "chat message",
            [ErrorDetail(field="client_message_id", message="already used")],
        )
    if recorded.user_text != text:
        raise _another_text(command_id, recorded.user_text)
    answer = ChatMessage(
        role="assistant",
        text=recorded.agent_text or "",
        step=recorded.step,
        agent=recorded.agent or "",
        client_message_id=command_id,
        at=recorded.at,
    )
    return message_reply(svc, answer, turn, replayed=True)


def _another_text(command_id: str, first: str) -> RemoteError:
    shown = first if len(first) <= 40 else first[:37] + "..."
    return RemoteError.of(
        ErrorCode.CONFLICT,
        f"client_message_id {command_id!r} was already used for another text ({shown!r}); "
        "send a new message with a new id",
        [ErrorDetail(field="client_message_id", message="already used for another text")],
    )


async def after_key_reused(
    svc: WorkflowServices, cmd: SendMessage, text: str, step: StepDefinition
) -> MessageReply:
    """The agent-runner refused the id's key: it answered another question under it. If that
    turn is on the instance by now (another replica recorded it meanwhile), the log says what
    differs; if not, it was lost here after the agent answered (the append failed, or the
    gateway gave up), and what it asked is known only to the agent-runner: another text, or
    this one on another step or to another agent."""
    loaded = await svc.owned(cmd.instance_id, cmd.user_id)
    if cmd.client_message_id in loaded.state.outcomes:
        return answer_from_log(svc, loaded, cmd.client_message_id, text)
    raise RemoteError.of(
        ErrorCode.CONFLICT,
        f"client_message_id {cmd.client_message_id!r} was already used for a turn the "
        "agent answered but this instance did not record (it failed after the answer), and "
        "that turn asked something else: another text, or this text on another step or to "
        f"another agent than now (step {step.id!r}, agent {step.agent_slug!r}); "
        "send the message with a new id",
        [
            ErrorDetail(
                field="client_message_id",
                message="already used for an unrecorded turn that asked something else",
            )
        ],
    )


def key_reused(exc: RemoteError) -> bool:
    """The agent-runner's answer to a key it recorded for another request."""
    fields = {detail.field for detail in exc.body.details}
    return exc.body.code is ErrorCode.CONFLICT and "idempotency_key" in fields


def message_reply(
    svc: WorkflowServices, answer: ChatMessage, turn: TurnReply, replayed: bool = False
) -> MessageReply:
    definition = svc.definition(turn.instance.workflow_id)
    reply = MessageReply(
        reply=answer,
        turn=turn,
        progress=progress_view(turn.instance, definition),
        replayed=replayed,
    )
    return _fitted(reply)


CHAT_REPLY_BYTES = 1024 * 1024 - 16 * 1024
"""The most a chat turn's reply may take: NATS's default `max_payload` (1 MiB), less room for
its headers."""
SURELY_FITS_CHARS = 32_000
"""An answer this long or shorter fits beside any context: the step data and `shared` are
each at most 256 KiB as measured, a third more as replied (`1e-05` is written `0.00001`),
about 700 KB with the steps' own records; such an answer is at most 192 KB (6 bytes a
character, `\\uXXXX`), and the rest of the reply a few KB."""


def _fitted(reply: MessageReply) -> MessageReply:
    """`reply`, or, when it would not fit a NATS message, the same with the instance's context
    left out (null): the agent's answer has no limit of its own but the agent-runner's reply,
    and beside a full context it made a reply of 1.1 MB, refused (500) on every send again
    of the turn, which was recorded. `GET /api/workflows/{id}` has the context."""
    if len(reply.reply.text) <= SURELY_FITS_CHARS:
        return reply  # nearly every turn: not encoded twice to be measured
    if len(reply.model_dump_json().encode()) <= CHAT_REPLY_BYTES:
        return reply
    instance = reply.turn.instance.model_copy(update={"context": None})
    return reply.model_copy(update={"turn": reply.turn.model_copy(update={"instance": instance})})


def chat_message(said: Said) -> ChatMessage:
    return ChatMessage(
        role=said.role,
        text=said.text,
        step=said.step,
        agent=said.agent,
        client_message_id=said.command_id,
        at=said.at,
    )
