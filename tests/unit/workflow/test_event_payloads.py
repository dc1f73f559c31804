"""What the store keeps of a domain event, and that earlier payloads still read."""

from __future__ import annotations

from datetime import UTC, datetime

from baton_workflow.domain.events import SignalReceived, event_from_record, event_payload

AT = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def test_a_signals_target_step_is_kept_only_when_it_has_one() -> None:
    # Written as null on every signal, it would stop a replica of the version before it (its
    # events refuse fields they do not know) from reading any new signal.
    plain = SignalReceived(at=AT, command_id="c", step="greeting", action="stay", source="agent")
    assert "target_step" not in event_payload(plain)
    aimed = plain.model_copy(update={"target_step": "brain_dump"})
    assert event_payload(aimed)["target_step"] == "brain_dump"
    for event in (plain, aimed):
        assert event_from_record(event.type, event_payload(event)) == event
