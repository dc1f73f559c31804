"""When a DAG request that writes must have begun writing: by the write timeout from its
arrival, and in time for its answer to reach its caller by the caller's deadline, read on the
caller's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from baton_workflow.service.write_deadlines import ANSWER_MARGIN, WriteTime

SECOND = timedelta(seconds=1)
LASTS = 2.0
"""The statement timeout: a write that has begun ends within it."""
KEPT = timedelta(seconds=LASTS + ANSWER_MARGIN)


def test_a_request_without_a_deadline_is_bounded_from_its_arrival_only() -> None:
    before = datetime.now(UTC)
    start_by = WriteTime(timeout=2.5, lasts=LASTS).start_by(None)
    after = datetime.now(UTC)

    assert start_by is not None
    assert before + 2.5 * SECOND <= start_by <= after + 2.5 * SECOND
    assert WriteTime().start_by(None) is None


def test_the_write_ends_and_is_answered_before_the_callers_deadline() -> None:
    deadline = datetime.now(UTC) + 5 * SECOND  # the gateway waits 5 s
    writes = WriteTime(timeout=4.0, lasts=LASTS, caller_now=lambda: datetime.now(UTC))

    assert writes.start_by(deadline) == deadline - KEPT  # earlier than the 4 s from arrival


def test_a_request_that_arrives_after_its_caller_gave_up_must_have_begun_already() -> None:
    # Sent 10 s ago by a gateway that waits 5 s: the service was paused, the request waited.
    sent = datetime.now(UTC) - 10 * SECOND
    writes = WriteTime(timeout=2.5, lasts=LASTS, caller_now=lambda: sent)

    start_by = writes.start_by(sent + 5 * SECOND)

    assert start_by is not None and start_by < datetime.now(UTC) - 5 * SECOND


def test_a_caller_clock_ahead_of_this_hosts_is_read_from_the_send() -> None:
    # The caller's clock is an hour ahead: by this host's wall clock the deadline is far off,
    # but the caller has had the request for 4 s already.
    caller = datetime.now(UTC) + timedelta(hours=1)
    writes = WriteTime(timeout=10.0, lasts=LASTS, caller_now=lambda: caller + 4 * SECOND)

    before = datetime.now(UTC)
    start_by = writes.start_by(caller + 5 * SECOND)
    after = datetime.now(UTC)

    assert start_by is not None
    assert before + SECOND - KEPT <= start_by <= after + SECOND - KEPT
