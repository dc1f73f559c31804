"""Live events without a broker: frames, replay decisions, and a session's queue and handover."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import weakref
from collections.abc import AsyncGenerator
from datetime import UTC, datetime, timedelta

import pytest

from baton_contracts import subject_matches
from baton_notifier.adapters.live_jetstream import ack_sequences, user_subjects
from baton_notifier.domain.live import (
    CLOSE_TOO_SLOW,
    CLOSE_TRY_AGAIN,
    CLOSE_UNAUTHORIZED,
    HISTORY_AWAY_REASON,
    PONG,
    TOKEN_EXPIRED_REASON,
    BadLiveRequest,
    Filter,
    LiveEvent,
    MalformedEvent,
    Replay,
    Resync,
    StreamBounds,
    answer_client_frame,
    notice,
    parse_event,
    parse_instance_id,
    plan_replay,
    sse_message,
)
from baton_notifier.entrypoints.server import RedactTokens
from baton_notifier.service.live import (
    LiveEvents,
    LiveHub,
    LiveSession,
    SessionEnded,
    TooManySessions,
)
from baton_notifier.service.live_ports import HistoryUnavailable, StoredEvent

NOW = datetime(2026, 1, 10, tzinfo=UTC)


def body(user: str = "ann", instance: str = "i1", type_: str = "workflow.step_changed") -> bytes:
    return json.dumps(
        {"type": type_, "user_id": user, "instance_id": instance,
         "occurred_at": "2026-01-10T00:00:00Z", "event_id": "e", "extra": [1, {"a": "é"}]}
    ).encode()  # fmt: skip


def event(seq: int, user: str = "ann", instance: str = "i1") -> LiveEvent:
    return parse_event(seq, body(user, instance))


# --- frames ------------------------------------------------------------------------------


def test_an_event_frame_carries_type_seq_time_and_the_payload_verbatim() -> None:
    frame = json.loads(parse_event(7, body()).frame)
    assert frame == {
        "type": "workflow.step_changed",
        "seq": 7,
        "occurred_at": "2026-01-10T00:00:00Z",
        "payload": json.loads(body()),
    }


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"[1]",
        b'{"type": "x"}',
        json.dumps({"type": 1}).encode(),
        body()[:-1] + b', "broken": [1,}',  # the fields are there, the rest is not JSON
        body() + b" trailing",
        body().replace(b'"ann"', b'""'),  # an empty user_id
        body().replace(b"i1", b"i\xff"),  # not UTF-8
    ],
)
def test_a_malformed_stream_message_is_refused(raw: bytes) -> None:
    with pytest.raises(MalformedEvent):
        parse_event(1, raw)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"type": "ping"}', {"type": "pong"}),
        ("nope", {"type": "error", "error": {"code": "invalid", "message": "frame is not JSON"}}),
        ("[" * 100_000, "frame is not JSON"),
        (None, "binary"),
        ("[]", "no string field 'type'"),
        ('{"type": "subscribe"}', "unknown frame type 'subscribe'"),
        # JSON all the same: Python's int() refuses over 4,300 digits, and a ping carrying
        # such a number was told "frame is not JSON".
        ('{"type": "ping", "n": ' + "1" * 5000 + "}", {"type": "pong"}),
        ('{"type": "x", "n": ' + "1" * 5000 + "}", "unknown frame type 'x'"),
    ],
)
def test_client_frames_get_pong_or_an_error_frame(text: str | None, expected: object) -> None:
    answer = json.loads(answer_client_frame(text).frame)
    if isinstance(expected, dict):
        assert answer == expected
    else:
        assert answer["type"] == "error" and str(expected) in answer["error"]["message"]


def test_an_unknown_frame_type_is_repeated_only_in_part() -> None:
    # A 40 KB type came back whole in the error frame, each time the client sent it.
    answer = json.loads(answer_client_frame(json.dumps({"type": "x" * 40_000})).frame)
    message = answer["error"]["message"]
    assert len(message) < 200 and "40,000 characters" in message


def test_parameters_are_checked() -> None:
    assert parse_instance_id("a-b_C9") == "a-b_C9"
    assert parse_instance_id(None) is None  # absent: every instance
    for bad in ("", "a.b", "*", ">", "a b", "x" * 65):
        with pytest.raises(BadLiveRequest):
            parse_instance_id(bad)


def test_sse_messages_have_id_event_and_data_lines() -> None:
    assert sse_message(event(5)) == (
        f"id: 5\nevent: workflow.step_changed\ndata: {event(5).frame}\n\n"
    )
    assert sse_message(notice("ready", replayed=0)) == (
        'event: ready\ndata: {"type":"ready","replayed":0}\n\n'
    )
    notify = parse_event(6, body(type_="workflow.notify"))
    assert sse_message(notify).splitlines()[1] == "event: workflow_notify"


def test_an_sse_event_with_unicode_line_separators_in_its_text_stays_one_json() -> None:
    text = "line1\u2028line2\u2029line3\x85line4"
    raw = json.dumps(
        {"type": "workflow.step_blocked", "user_id": "ann", "instance_id": "i1",
         "occurred_at": "2026-01-10T00:00:00Z", "event_id": "e", "reason": text},
        ensure_ascii=False,
    ).encode()  # fmt: skip
    message = sse_message(parse_event(8, raw))
    # What an SSE client does: split at CR/LF only, join the data lines with "\n".
    data = "\n".join(
        line[len("data: ") :] for line in message.split("\n") if line.startswith("data: ")
    )
    assert json.loads(data)["payload"]["reason"] == text


# --- replay decisions and subjects -------------------------------------------------------


def test_replay_when_the_stream_holds_the_gap_and_resync_otherwise() -> None:
    bounds = StreamBounds(first_seq=10, last_seq=20)
    assert plan_replay(9, bounds) == Replay(9)
    assert plan_replay(20, bounds) == Replay(20)
    for stale in (0, 8, 21):
        plan = plan_replay(stale, bounds)
        assert isinstance(plan, Resync)
        assert json.loads(plan.notice.frame)["first_seq"] == 10
    assert plan_replay(0, StreamBounds(first_seq=1, last_seq=0)) == Replay(0)  # empty stream


def test_replay_filters_cannot_be_widened_by_a_user_id() -> None:
    assert user_subjects("ann", None) == ["workflow.evt.*.ann.>"]
    assert user_subjects("ann", "i1") == ["workflow.evt.*.ann.i1", "workflow.evt.*.ann.i1.*"]
    for sneaky in ("ann.>", "*", "a b", ""):
        assert user_subjects(sneaky, None) == []
        assert user_subjects("ann", sneaky) == []


@pytest.mark.parametrize(
    "subject",
    [
        "workflow.evt.completed.ann.i1",  # user and instance last
        "workflow.evt.step_changed.ann.i1.inbox_collector",  # a step's start names its agent
        "workflow.evt.started.ann.i1.-",
        "workflow.evt.step_changed.ann.i1",  # the layout before the agent token
    ],
)
def test_replay_filters_take_each_layout_of_the_user_and_the_instance(subject: str) -> None:
    def taken(filters: list[str], subject: str) -> bool:
        return any(subject_matches(f, subject) for f in filters)

    assert taken(user_subjects("ann", None), subject)
    assert taken(user_subjects("ann", "i1"), subject)
    assert not taken(user_subjects("ann", "i2"), subject)
    assert not taken(user_subjects("bob", None), subject)
    assert not taken(user_subjects("ann", "i"), subject)


def test_ack_subjects_give_stream_and_consumer_sequences() -> None:
    assert ack_sequences("$JS.ACK.WORKFLOW_EVT.c1.1.42.7.1700000000000000000.0") == (42, 7)
    assert ack_sequences("$JS.ACK.dom.acc.WORKFLOW_EVT.c1.1.42.7.1700000000000000000.0.x") == (
        42,
        7,
    )


# --- sessions ------------------------------------------------------------------------------


async def test_a_session_drops_events_it_already_sent_and_other_users_instances() -> None:
    hub = LiveHub()
    session = LiveSession(Filter("ann", "i1"), queue_size=10, after_seq=3)
    hub.add(session)
    await session.go_live()
    for e in (event(2), event(3), event(4), event(5, "bob"), event(6, "ann", "i2"), event(4)):
        hub.deliver(e)
    assert await _drain(session) == [4]


async def test_overflow_ends_the_session_as_too_slow_and_leaves_the_hub() -> None:
    hub = LiveHub()
    session = LiveSession(Filter("ann"), queue_size=2, after_seq=None)
    hub.add(session)
    await session.go_live()
    for seq in (1, 2, 3):
        hub.deliver(event(seq))
    assert session.ended is not None and session.ended.code == CLOSE_TOO_SLOW
    assert session.ended.reason.startswith("resync")
    assert hub.sessions() == []
    with pytest.raises(SessionEnded):
        await session.next()


async def test_live_events_held_during_replay_are_released_once() -> None:
    history = FakeHistory([event(s) for s in (11, 12, 13)], bounds=StreamBounds(1, 13))
    feed = FakeFeed()
    live = _live(feed, history)
    async with live.subscribe("ann", after_seq=10) as session:
        live.hub.deliver(event(12))  # arrives during replay: held, then dropped as sent
        live.hub.deliver(event(14))
        feed.ready.set()
        frames = [await session.next() for _ in range(5)]
    assert [_kind(f) for f in frames] == [11, 12, 13, "ready", 14]
    assert json.loads(frames[3].frame)["replayed"] == 3  # type: ignore[union-attr]


async def test_replay_waits_for_a_slow_reader_instead_of_overflowing() -> None:
    history = FakeHistory([event(s) for s in range(1, 21)], bounds=StreamBounds(1, 20))
    live = _live(FakeFeed(ready=True), history, queue_size=3)
    async with live.subscribe("ann", after_seq=0) as session:
        seqs = [_kind(await session.next()) for _ in range(21)]
    assert seqs == [*range(1, 21), "ready"]


async def test_a_gap_older_than_the_replay_limit_gets_resync() -> None:
    old = NOW - timedelta(days=8)
    history = FakeHistory([event(5)], bounds=StreamBounds(1, 5), stored_at=old)
    live = _live(FakeFeed(ready=True), history)
    async with live.subscribe("ann", after_seq=4) as session:
        first = json.loads((await session.next()).frame)  # type: ignore[union-attr]
        assert first["type"] == "resync" and "168 h" in first["reason"]
        assert _kind(await session.next()) == "ready"


async def test_a_resume_in_a_stream_created_again_gets_resync_then_goes_on_live() -> None:
    # The new stream is past the client's seq: by the numbers alone, 11 to 13 would be
    # replayed as if they followed 10, and the new stream's 1 to 10 would be missed unsaid.
    history = FakeHistory([event(s) for s in range(1, 14)], bounds=StreamBounds(1, 13, "new"))
    live = _live(FakeFeed(ready=True, seq=13, epoch="new"), history)
    async with live.subscribe("ann", after_seq=10, epoch="old") as session:
        resync, ready = [json.loads((await session.next()).frame) for _ in range(2)]  # type: ignore[union-attr]
        live.hub.deliver(event(14))
        assert _kind(await session.next()) == 14
    assert resync["type"] == "resync" and "stream was reset" in resync["reason"]
    assert ready == {"type": "ready", "replayed": 0, "last_seq": 13, "epoch": "new"}
    assert history.asked == []  # nothing of the new stream was replayed
    async with live.subscribe("ann", after_seq=10, epoch="new") as session:
        assert [_kind(await session.next()) for _ in range(4)] == [11, 12, 13, "ready"]


async def test_replay_starts_again_from_the_last_sent_seq_when_history_fails() -> None:
    history = FakeHistory([event(s) for s in (1, 2, 3)], bounds=StreamBounds(1, 3), fail_after=2)
    live = _live(FakeFeed(ready=True), history)
    async with live.subscribe("ann", after_seq=0) as session:
        seqs = [_kind(await session.next()) for _ in range(4)]
    assert seqs == [1, 2, 3, "ready"]
    assert history.asked == [0, 2]


async def test_a_history_away_for_long_ends_the_session_asking_to_come_back_later(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Away(FakeHistory):
        async def bounds(self) -> StreamBounds:
            self.asked.append(-1)
            raise HistoryUnavailable("not connected to NATS")

    history = Away([], StreamBounds(1, 0))
    live = LiveEvents(
        LiveHub(), FakeFeed(ready=True), history, queue_size=10,
        replay_max_age=timedelta(days=7), clock=lambda: NOW, retry_seconds=0.01,
        give_up_seconds=0.2,
    )  # fmt: skip
    async with live.subscribe("ann", after_seq=3) as session:
        with pytest.raises(SessionEnded) as ended:
            await asyncio.wait_for(session.next(), 5)
    assert (ended.value.code, ended.value.reason) == (CLOSE_TRY_AGAIN, HISTORY_AWAY_REASON)
    assert 2 <= len(history.asked) < 10  # retried, backing off
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 2  # the first failure, and giving up: not one per retry


async def test_ending_every_session_wakes_their_readers() -> None:
    live = _live(FakeFeed(ready=True), FakeHistory([], StreamBounds(1, 0)))
    async with live.subscribe("ann") as session:
        assert _kind(await session.next()) == "ready"
        waiting = asyncio.create_task(session.next())
        await asyncio.sleep(0)
        live.end_all()
        with pytest.raises(SessionEnded) as ended:
            await waiting
    assert ended.value.code == 1001


async def test_a_session_opened_after_every_session_was_ended_ends_too() -> None:
    # The gateway ends every session as it starts to stop; a request already past the door
    # subscribes a moment later, and a session left open then keeps uvicorn waiting for good.
    live = _live(FakeFeed(ready=True), FakeHistory([], StreamBounds(1, 0)))
    live.end_all()
    async with live.subscribe("ann") as session:
        with pytest.raises(SessionEnded) as ended:
            await session.next(timeout=5)  # None (no raise) if it never ends
    assert ended.value.code == 1001
    assert live.hub.sessions() == []


async def test_a_session_ends_with_4401_when_its_token_expires() -> None:
    live = _live(FakeFeed(), FakeHistory([], StreamBounds(1, 0)))
    async with live.subscribe("ann", valid_until=NOW) as session:  # the clock says NOW
        with pytest.raises(SessionEnded) as ended:
            await session.next(timeout=5)  # ends at once; None (no raise) if it never does
        assert (ended.value.code, ended.value.reason) == (CLOSE_UNAUTHORIZED, TOKEN_EXPIRED_REASON)
        assert live.hub.sessions() == []


async def test_a_session_that_ends_first_drops_its_expiry_timer() -> None:
    live = _live(FakeFeed(ready=True), FakeHistory([], StreamBounds(1, 0)))
    async with live.subscribe("ann", valid_until=NOW + timedelta(hours=12)) as session:
        assert _kind(await session.next()) == "ready"
        gone = weakref.ref(session)
    assert session.ended is not None and session.ended.code == 1001
    del session
    gc.collect()
    assert gone() is None  # the timer does not hold a closed connection's session for 12 hours


async def test_a_user_gets_as_many_sessions_as_allowed_and_an_ended_one_frees_its_place() -> None:
    live = _live(FakeFeed(ready=True), FakeHistory([], StreamBounds(1, 0)), sessions_per_user=2)
    async with live.subscribe("ann"), live.subscribe("ann", instance_id="i1"):
        assert not live.has_room("ann") and live.has_room("bob")  # per user
        with pytest.raises(TooManySessions) as refused:
            async with live.subscribe("ann"):
                pytest.fail("a third session was opened")
        async with live.subscribe("bob"):
            pass
    assert (refused.value.code, refused.value.reason) == (
        1008,
        "too many live connections: at most 2 per user (WebSocket and SSE together); "
        "close one first",
    )
    assert live.has_room("ann")
    with pytest.raises(RuntimeError):  # a session that ends with an error frees its place too
        async with live.subscribe("ann"), live.subscribe("ann"):
            raise RuntimeError("the socket broke")
    async with live.subscribe("ann"), live.subscribe("ann"):
        pass


# --- fakes ---------------------------------------------------------------------------------


class FakeFeed:
    def __init__(self, ready: bool = False, seq: int = 0, epoch: str | None = None) -> None:
        self.seq = seq  # the last seq handed to the hub
        self._epoch = epoch
        self.ready = asyncio.Event()
        if ready:
            self.ready.set()

    async def wait_ready(self) -> None:
        await self.ready.wait()

    def position(self) -> int | None:
        return self.seq if self.ready.is_set() else None

    def epoch(self) -> str | None:
        return self._epoch if self.ready.is_set() else None


class FakeHistory:
    def __init__(
        self,
        events: list[LiveEvent],
        bounds: StreamBounds,
        stored_at: datetime = NOW,
        fail_after: int | None = None,
    ) -> None:
        self.events, self._bounds, self.stored_at = events, bounds, stored_at
        self.fail_after = fail_after
        self.asked: list[int] = []

    async def bounds(self) -> StreamBounds:
        return self._bounds

    async def since(
        self, user_id: str, instance_id: str | None, after_seq: int, epoch: str | None = None
    ) -> AsyncGenerator[StoredEvent, None]:
        self.asked.append(after_seq)
        for n, e in enumerate(x for x in self.events if x.seq > after_seq):
            if self.fail_after is not None and n == self.fail_after:
                self.fail_after = None
                raise HistoryUnavailable("NATS went away")
            yield StoredEvent(e, self.stored_at)


def _live(
    feed: FakeFeed, history: FakeHistory, queue_size: int = 100, sessions_per_user: int = 32
) -> LiveEvents:
    return LiveEvents(
        LiveHub(), feed, history, queue_size=queue_size, replay_max_age=timedelta(days=7),
        clock=lambda: NOW, retry_seconds=0, sessions_per_user=sessions_per_user,
    )  # fmt: skip


def _kind(frame: object) -> int | str:
    assert frame is not None
    return frame.seq if isinstance(frame, LiveEvent) else frame.type  # type: ignore[attr-defined]


async def _drain(session: LiveSession) -> list[int | str]:
    kinds = []
    while (frame := await session.next(timeout=0)) is not None:
        kinds.append(_kind(frame))
    return kinds


def test_tokens_in_logged_paths_are_redacted() -> None:
    record = logging.LogRecord(
        "uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s" [accepted]',
        ("127.0.0.1:5", "/ws?token=eyJ.a.b&last_seq=3"), None,
    )  # fmt: skip
    assert RedactTokens().filter(record)
    assert record.getMessage() == '127.0.0.1:5 - "WebSocket /ws?token=***&last_seq=3" [accepted]'


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        # The gateway decodes parameter names: `%74oken` is its `token`, and was logged whole
        # (found by a review of the gateway).
        ("/api/events?%74oken=eyJ.a.b", "/api/events?%74oken=***"),
        ("/ws?last_seq=3&%74%6F%6B%65%6E=eyJ.a.b&x=1", "/ws?last_seq=3&%74%6F%6B%65%6E=***&x=1"),
        ("/ws?tok%65n=eyJ.a.b&token=eyJ.c.d", "/ws?tok%65n=***&token=***"),
        ("/api/events?tokens=kept&my_token=kept", "/api/events?tokens=kept&my_token=kept"),
    ],
)
def test_tokens_are_redacted_however_their_name_is_spelt(path: str, logged: str) -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "GET %s HTTP/1.1" %d',
        ("127.0.0.1:5", path, 200), None,
    )  # fmt: skip
    assert RedactTokens().filter(record)
    assert record.getMessage() == f'127.0.0.1:5 - "GET {logged} HTTP/1.1" 200'


async def test_a_ping_during_a_backpressured_replay_does_not_end_the_session() -> None:
    # A `pong` counted against the queue the replay fills by design: closed as too slow
    # (4408) while the client read normally (found by a review of the live feed).
    # 20 missed events, queue of 3: the replay waits on the reader (backpressure), as designed.
    history = FakeHistory([event(s) for s in range(1, 21)], bounds=StreamBounds(1, 20))
    live = _live(FakeFeed(ready=True), history, queue_size=3)
    async with live.subscribe("ann", after_seq=0) as session:
        await asyncio.sleep(0.01)  # the replay has filled the queue and waits for room
        session.say(PONG)  # the client sends {"type": "ping"}
        kinds = []
        try:
            for _ in range(22):
                kinds.append(_kind(await session.next(timeout=1)))
        except SessionEnded as ended:
            kinds.append(f"ended {ended.code}")
    assert kinds == [1, 2, 3, "pong", *range(4, 21), "ready"], kinds


async def test_one_live_event_at_go_live_after_a_backpressured_replay_does_not_end_it() -> None:
    # The held live events were pushed without waiting for room: closed as too slow at 19.
    history = FakeHistory([event(s) for s in range(1, 21)], bounds=StreamBounds(1, 20))
    feed = FakeFeed(ready=True, seq=20)
    live = _live(feed, history, queue_size=3)
    async with live.subscribe("ann", after_seq=0) as session:
        live.hub.deliver(event(21))  # one live event during the replay: held
        kinds = []
        try:
            for _ in range(22):
                await asyncio.sleep(0.001)
                kinds.append(_kind(await session.next(timeout=1)))
        except SessionEnded as ended:
            kinds.append(f"ended {ended.code}")
    assert kinds == [*range(1, 21), "ready", 21], kinds
