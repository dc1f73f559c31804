"""A gateway sends a signal or a chat turn with its `deadline`; a workflow service of a release
before that field refuses it as unknown (contract messages refuse fields they do not know).
While a deploy upgrades the two one at a time, the gateway sends it again without the field."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from baton_contracts import Command, ErrorCode, ErrorDetail, Query, RemoteError
from baton_contracts.workflow_api import SendMessage, SignalWorkflow, WorkflowSignal
from baton_messaging.handling import invalid_request
from baton_notifier.domain.errors import ApiError
from baton_notifier.service.forwarding import Forwarder
from baton_notifier.service.ports import Again


class _OlderSignal(BaseModel):
    """`SignalWorkflow` as a workflow service before the signal's deadline reads it."""

    model_config = ConfigDict(extra="forbid")
    type: str
    user_id: str
    instance_id: str
    command_id: str
    signal: dict[str, Any]


class _OlderMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: str
    user_id: str
    instance_id: str
    client_message_id: str
    text: str


OLDER = {SignalWorkflow: _OlderSignal, SendMessage: _OlderMessage}


class _OlderOwner:
    """Answers as an owner of the older release: what it does not know, it refuses."""

    def __init__(self) -> None:
        self.sent: list[Query | Command] = []
        self.timeouts: list[float] = []

    def _answer(self, message: Query | Command, timeout: float) -> None:
        self.sent.append(message)
        self.timeouts.append(timeout)
        try:
            OLDER[type(message)].model_validate(message.model_dump(mode="json"))
        except ValidationError as exc:
            raise RemoteError(invalid_request(exc)) from None

    async def request(
        self, message: Query | Command, *, timeout: float, again: Again = Again.NEVER
    ) -> BaseModel:
        self._answer(message, timeout)
        return message

    async def request_json(
        self,
        message: Query | Command,
        *,
        timeout: float,
        resend_after: float | None = None,
        again: Again = Again.NEVER,
    ) -> bytes:
        self._answer(message, timeout)
        return b'{"ok": true}'


def _signal() -> SignalWorkflow:
    return SignalWorkflow(
        user_id="alice",
        instance_id="i-1",
        command_id="c-1",
        signal=WorkflowSignal(action="complete_step"),
    )


def _message() -> SendMessage:
    return SendMessage(user_id="alice", instance_id="i-1", client_message_id="m-1", text="hi")


async def test_a_signal_refused_for_its_deadline_goes_again_without_it() -> None:
    owner = _OlderOwner()
    answer = await Forwarder(owner, timeout=5.0).send(_signal())
    first, second = owner.sent
    assert isinstance(first, SignalWorkflow) and first.deadline is not None
    assert isinstance(second, SignalWorkflow) and second.deadline is None
    assert second.command_id == first.command_id  # the same command: recorded once by its id
    assert answer == second
    assert 0 < owner.timeouts[1] <= 5.0  # within what is left of the gateway's wait


async def test_a_chat_turn_refused_for_its_deadline_goes_again_without_it() -> None:
    owner = _OlderOwner()
    forwarder = Forwarder(owner, timeout=5.0, slow_timeout=40.0, resend_after=1.0)
    answer = await forwarder.send_json(_message(), slow=True, resend=True)
    assert answer == b'{"ok": true}'
    assert [getattr(sent, "deadline", None) is None for sent in owner.sent] == [False, True]
    assert 5.0 < owner.timeouts[1] <= 40.0


class _Refusing:
    def __init__(self, error: RemoteError) -> None:
        self.error, self.sent = error, 0

    async def request(self, message: Any, *, timeout: float, again: Again = Again.NEVER) -> Any:
        self.sent += 1
        raise self.error

    async def request_json(self, message: Any, **_: Any) -> bytes:
        self.sent += 1
        raise self.error


@pytest.mark.parametrize(
    "details",
    [
        [ErrorDetail(field="signal.action", message="Input should be 'complete_step'")],
        [
            ErrorDetail(field="deadline", message="Extra inputs are not permitted"),
            ErrorDetail(field="command_id", message="String should have at least 1 character"),
        ],
        [],
    ],
)
async def test_any_other_refusal_is_answered_as_it_came(details: list[ErrorDetail]) -> None:
    owner = _Refusing(RemoteError.of(ErrorCode.INVALID, "invalid request", details))
    with pytest.raises(ApiError) as refused:
        await Forwarder(owner, timeout=5.0).send(_signal())
    assert refused.value.status == 422
    assert owner.sent == 1


async def test_no_time_left_answers_the_refusal() -> None:
    refusal = RemoteError.of(
        ErrorCode.INVALID,
        "invalid request",
        [ErrorDetail(field="deadline", message="Extra inputs are not permitted")],
    )
    owner = _Refusing(refusal)
    late = _signal().model_copy(update={"deadline": datetime.now(UTC) - timedelta(seconds=1)})
    with pytest.raises(ApiError):
        await Forwarder(owner, timeout=5.0).send(late)
    assert owner.sent == 1
