"""A live client's position names its stream: an epoch in frames, SSE ids and resumes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from baton_notifier.domain.live import (
    BadLiveRequest,
    Replay,
    Resync,
    StreamBounds,
    parse_event,
    plan_replay,
    ready_notice,
    sse_message,
)
from baton_notifier.domain.stream_position import (
    Position,
    epoch_of,
    parse_epoch,
    parse_position,
    resume_point,
)

EPOCH = "1795970853157698"
BODY = json.dumps(
    {"type": "workflow.step_changed", "user_id": "ann", "instance_id": "i1",
     "occurred_at": "2026-01-10T00:00:00Z", "event_id": "e"}
).encode()  # fmt: skip


def test_an_epoch_is_the_streams_creation_time_in_microseconds() -> None:
    created = datetime(2026, 11, 29, 16, 47, 33, 157698, tzinfo=UTC)
    assert epoch_of(created) == EPOCH
    assert epoch_of(created.replace(tzinfo=None)) == EPOCH  # a naive time is UTC
    assert epoch_of(created + timedelta(microseconds=1)) != EPOCH


def test_an_event_frame_and_its_sse_id_carry_the_epoch_of_its_stream() -> None:
    event = parse_event(7, BODY, EPOCH)
    assert json.loads(event.frame)["epoch"] == EPOCH and event.epoch == EPOCH
    assert sse_message(event).startswith(f"id: {EPOCH}-7\nevent: workflow.step_changed\n")
    assert "epoch" not in json.loads(parse_event(7, BODY).frame)  # a stream without one


def test_ready_says_where_the_session_stands_and_in_which_stream() -> None:
    ready = ready_notice(2, 411, EPOCH)
    frame = json.loads(ready.frame)
    assert frame == {"type": "ready", "replayed": 2, "last_seq": 411, "epoch": EPOCH}
    assert sse_message(ready).startswith(f"id: {EPOCH}-411\n")
    assert sse_message(ready_notice(0, 411)).startswith("id: 411\n")
    assert "epoch" not in json.loads(ready_notice(0).frame)  # no position, no epoch


def test_a_resume_in_another_stream_gets_resync_whatever_its_seq() -> None:
    # The new stream has passed the old seq: by its numbers alone, 5 is a fine place to resume.
    bounds = StreamBounds(first_seq=1, last_seq=20, epoch=EPOCH)
    plan = plan_replay(5, bounds, epoch="1700000000000000")
    assert isinstance(plan, Resync)
    frame = json.loads(plan.notice.frame)
    assert frame["type"] == "resync" and frame["first_seq"] == 1
    assert "stream was reset" in frame["reason"]
    assert plan_replay(5, bounds, epoch=EPOCH) == Replay(5)


def test_a_resume_without_an_epoch_is_checked_by_its_numbers_only() -> None:
    bounds = StreamBounds(first_seq=1, last_seq=20, epoch=EPOCH)
    assert plan_replay(5, bounds) == Replay(5)  # an older client: not protected from a reset
    assert isinstance(plan_replay(21, bounds), Resync)  # the new stream has not reached it
    assert plan_replay(5, StreamBounds(1, 20), epoch=EPOCH) == Replay(5)  # no epoch known


def test_a_seq_past_the_newest_in_the_streams_own_epoch_is_not_called_a_reset() -> None:
    # "seq 999999 is past the newest event (90); stream was reset" was said with the stream's
    # own epoch, of a stream never reset: the client's position was wrong, not the stream.
    bounds = StreamBounds(first_seq=1, last_seq=20, epoch=EPOCH)
    plan = plan_replay(99, bounds, epoch=EPOCH)
    assert isinstance(plan, Resync)
    reason = json.loads(plan.notice.frame)["reason"]
    assert reason == "seq 99 is past the newest event (20) of this stream, so no frame carried it"
    older = plan_replay(99, bounds)  # no epoch: a stream created again is the likely cause
    assert isinstance(older, Resync)
    assert json.loads(older.notice.frame)["reason"].endswith("; stream was reset")


def test_positions_are_a_seq_or_an_sse_id() -> None:
    assert parse_position(None) is None
    assert parse_position("42") == Position(42)
    assert parse_position(f"{EPOCH}-42") == Position(42, EPOCH)
    assert parse_position("0-0") == Position(0, "0")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1", "Last-Event-ID must be a whole number >= 0, or <epoch>-<seq>"),
        ("x", "Last-Event-ID must be a whole number >= 0, or <epoch>-<seq>"),
        ("x-5", "Last-Event-ID must be a whole number >= 0, or <epoch>-<seq>"),
        ("5-x", "Last-Event-ID must be a whole number >= 0, or <epoch>-<seq>"),
        ("17-", "Last-Event-ID must be a whole number >= 0, or <epoch>-<seq>"),
        ("1-2-3", "Last-Event-ID must be a whole number >= 0, or <epoch>-<seq>"),
        ("٣-1", "Last-Event-ID must be a whole number >= 0, or <epoch>-<seq>"),
        ("9" * 20, "Last-Event-ID must have at most 19 digits"),
        ("9" * 20 + "-1", "Last-Event-ID must have at most 19 digits"),
    ],
)
def test_a_malformed_position_is_refused_naming_the_field(value: str, message: str) -> None:
    with pytest.raises(BadLiveRequest) as refused:
        parse_position(value, name="Last-Event-ID")
    assert str(refused.value).startswith(message), refused.value


def test_an_epoch_parameter_is_digits() -> None:
    assert parse_epoch(None) is None
    assert parse_epoch(EPOCH) == EPOCH
    for bad in ("x", "-1", "1.5", "٣", "9" * 20):
        with pytest.raises(BadLiveRequest) as refused:
            parse_epoch(bad)
        assert str(refused.value).startswith("epoch must be the epoch a frame carried")


def test_an_empty_last_seq_or_epoch_is_refused_not_read_as_left_out() -> None:
    # `?last_seq=` read as "live only" skipped every missed event without a word.
    with pytest.raises(BadLiveRequest, match="last_seq must not be empty: leave it out"):
        parse_position("")
    with pytest.raises(BadLiveRequest, match="epoch must not be empty: leave it out"):
        parse_epoch("")


def test_the_epoch_of_a_position_wins_over_the_epoch_parameter() -> None:
    # An EventSource keeps its URL (and a `?epoch=` in it) while its Last-Event-ID moves on.
    assert resume_point(Position(5, "2"), "1") == Position(5, "2")
    assert resume_point(Position(5), "1") == Position(5, "1")
    assert resume_point(Position(5), None) == Position(5)
    assert resume_point(None, "1") is None  # an epoch alone resumes nothing
