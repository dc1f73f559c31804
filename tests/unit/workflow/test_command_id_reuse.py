"""What a signal reusing a used `command_id` is told: a chat message's id is named as one,
since the user sent no command under it."""

from datetime import UTC, datetime

import pytest

from baton_contracts import RemoteError
from baton_workflow.domain import commands as dc
from baton_workflow.domain.events import ExchangeRecorded, SignalReceived
from baton_workflow.service.replies import require_same_command

AT = datetime(2026, 1, 1, tzinfo=UTC)
STAY = dc.SendSignal(command_id="1", signal=dc.Signal(action="stay"))


def test_a_signal_under_a_chat_messages_id_is_told_it_was_a_message() -> None:
    said = ExchangeRecorded(
        at=AT, command_id="1", step="greeting", messages_in_step=1, user_text="hi",
        agent_text="Hello!", agent="greeter",
    )  # fmt: skip
    with pytest.raises(RemoteError) as refused:
        require_same_command([said], STAY)
    assert refused.value.body.message == (
        "command_id '1' was already used for a chat message's client_message_id (an "
        "instance's signals and messages share their ids); send a new command with a new id"
    )
    [detail] = refused.value.body.details
    assert detail.field == "command_id"
    assert "chat message" in detail.message


def test_a_signal_under_another_signals_id_is_told_it_was_another_command() -> None:
    other = SignalReceived(at=AT, command_id="1", step="greeting", action="complete_step",
                           source="manual")  # fmt: skip
    with pytest.raises(RemoteError, match="already used for a different command;"):
        require_same_command([other], STAY)
