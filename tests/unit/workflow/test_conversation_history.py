"""The recent history a turn hands its agent is the tail of the chat, read from the log's end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from baton_workflow.domain.conversation import chat, recent_chat
from baton_workflow.domain.events import (
    DomainEvent,
    ExchangeRecorded,
    InstanceStarted,
    SignalReceived,
)

T0 = datetime(2026, 11, 24, tzinfo=UTC)


def _log(exchanges: int) -> list[DomainEvent]:
    """A log of chat turns, each followed by a signal, with a signal-only exchange mixed in."""
    events: list[DomainEvent] = [
        InstanceStarted(at=T0, instance_id="i", workflow_id="w", user_id="u", first_step="a")
    ]
    for n in range(exchanges):
        at = T0 + timedelta(seconds=n)
        events.append(
            ExchangeRecorded(at=at, command_id=f"c{n}", step="a", messages_in_step=n + 1,
                             user_text=f"user {n}", agent_text=f"agent {n}", agent="greeter")
        )  # fmt: skip
        events.append(
            SignalReceived(at=at, command_id=f"c{n}", step="a", action="stay", source="agent")
        )
        if n % 3 == 0:  # a manual signal records an exchange without texts: not chat
            events.append(
                ExchangeRecorded(at=at, command_id=f"m{n}", step="a", messages_in_step=n + 1)
            )
    return events


@pytest.mark.parametrize("exchanges", [0, 1, 2, 7])
def test_the_recent_history_is_the_tail_of_the_whole_chat(exchanges: int) -> None:
    events = _log(exchanges)
    whole = chat(events)
    assert len(whole) == 2 * exchanges
    for limit in range(0, 2 * exchanges + 3):
        assert recent_chat(events, limit) == (whole[-limit:] if limit else [])


def test_the_recent_history_keeps_oldest_first_and_pairs_in_order() -> None:
    said = recent_chat(_log(5), 3)
    assert [(s.role, s.text) for s in said] == [
        ("assistant", "agent 3"),
        ("user", "user 4"),
        ("assistant", "agent 4"),
    ]
