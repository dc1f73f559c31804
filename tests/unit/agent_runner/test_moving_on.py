"""The reply to a step's last message (`max_messages`): the workflow moves on after it
whatever the agent says, so a reply that does not close the step says that it moves on."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.step_context import is_last_message

from .test_turn_context import Stores, _run


@pytest.mark.parametrize(
    ("step_context", "last"),
    [
        ({"messages_in_step": 29, "max_messages": 30}, True),
        ({"messages_in_step": 30, "max_messages": 30}, True),
        ({"messages_in_step": 28, "max_messages": 30}, False),
        ({"messages_in_step": 29}, False),
        ({"max_messages": 30}, False),
        ({"messages_in_step": "29", "max_messages": 30}, False),  # not a count
        ({"messages_in_step": True, "max_messages": 1}, False),
    ],
)
def test_the_last_message_is_the_one_that_reaches_max_messages(
    step_context: dict[str, Any], last: bool
) -> None:
    assert is_last_message(step_context) is last


async def test_a_reply_to_the_last_message_that_asks_for_more_says_it_moves_on() -> None:
    # Discovery at its 30th message with two areas said "What else matters to you?", and the
    # user's next message was answered by the brain dump.
    context = {"messages_in_step": 29, "max_messages": 30}
    reply = await _run(Stores(), "discovery", "that's all", step_context=context)
    assert reply.workflow_signal.action != "complete_step"
    assert reply.message.endswith("\n" + texts.text("en", "moving_on"))


async def test_a_reply_before_the_last_message_or_one_that_closes_the_step_says_nothing_more() -> (
    None
):
    earlier = {"messages_in_step": 28, "max_messages": 30}
    reply = await _run(Stores(), "discovery", "that's all", step_context=earlier)
    assert texts.text("en", "moving_on") not in reply.message
    last = {"messages_in_step": 9, "max_messages": 10}
    closing = await _run(Stores(), "greeter", "ready", step_context=last, can_complete=True)
    assert closing.workflow_signal.action == "complete_step"
    assert texts.text("en", "moving_on") not in closing.message
