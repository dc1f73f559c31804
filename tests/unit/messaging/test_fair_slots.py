"""A responder's slots go to the waiting user with the fewest requests running, not to whoever
queued first: one user's burst cannot hold back everyone else's requests."""

from __future__ import annotations

import pytest

from baton_messaging.fair_slots import FairSlots, user_cap


def drain(slots: FairSlots[str]) -> list[str]:
    """What starts now, in order."""
    started = []
    while (turn := slots.next()) is not None:
        started.append(turn[1])
    return started


def test_a_free_slot_is_taken_at_once_while_nobody_waits() -> None:
    slots: FairSlots[str] = FairSlots(concurrency=2, user_cap=2)
    assert slots.take("alice") and slots.take("alice")
    assert not slots.take("bob")  # none free


def test_a_freed_slot_goes_to_the_user_with_the_fewest_running() -> None:
    slots: FairSlots[str] = FairSlots(concurrency=2, user_cap=2)
    assert slots.take("alice") and slots.take("alice")
    for name in ("a2", "a3", "a4"):
        slots.wait("alice", name)
    slots.wait("bob", "b0")
    slots.release("alice")
    assert drain(slots) == ["b0"]  # bob has none running, alice one
    slots.release("alice")
    slots.release("bob")
    assert drain(slots) == ["a2", "a3"]
    assert slots.waiting == 1


def test_users_with_as_many_running_take_turns() -> None:
    slots: FairSlots[str] = FairSlots(concurrency=1, user_cap=1)
    assert slots.take("alice")
    for name in ("a1", "a2"):
        slots.wait("alice", name)
    for name in ("b1", "b2"):
        slots.wait("bob", name)
    started = []
    for user in ("alice", "alice", "bob", "alice", "bob"):
        slots.release(user)
        started += drain(slots)
    assert started == ["a1", "b1", "a2", "b2"]


def test_a_newcomer_waits_behind_those_already_waiting() -> None:
    # A slot freed while others wait is theirs to share: `take` leaves it to `next`.
    slots: FairSlots[str] = FairSlots(concurrency=1, user_cap=1)
    assert slots.take("alice")
    slots.wait("bob", "b0")
    slots.release("alice")
    assert not slots.take("carol")
    assert drain(slots) == ["b0"]


def test_a_user_at_the_cap_leaves_a_free_slot_for_others() -> None:
    slots: FairSlots[str] = FairSlots(concurrency=3, user_cap=2)
    assert slots.take("alice") and slots.take("alice")
    assert not slots.take("alice")
    slots.wait("alice", "a2")
    assert drain(slots) == []  # alice is at her cap; the third slot stays free
    assert slots.take("bob") is False  # someone waits: bob's goes through the lines
    slots.wait("bob", "b0")
    assert drain(slots) == ["b0"]
    slots.release("alice")
    assert drain(slots) == ["a2"]  # below her cap again


def test_the_waiting_count_and_bytes_follow_the_lines() -> None:
    slots: FairSlots[str] = FairSlots(concurrency=1, user_cap=1)
    assert slots.take("alice")
    slots.wait("alice", "a1", 100)
    slots.wait("bob", "b1", 30)
    assert (slots.waiting, slots.waiting_bytes) == (2, 130)
    slots.release("alice")
    drain(slots)
    assert (slots.waiting, slots.waiting_bytes) == (1, 30)
    assert slots.clear() == ["b1"]
    assert (slots.waiting, slots.waiting_bytes) == (0, 0)


def test_clear_hands_back_every_waiting_item() -> None:
    slots: FairSlots[str] = FairSlots(concurrency=1, user_cap=1)
    assert slots.take("alice")
    for user, name in (("alice", "a1"), ("bob", "b1"), ("alice", "a2")):
        slots.wait(user, name)
    assert slots.clear() == ["a1", "a2", "b1"]
    assert drain(slots) == []


@pytest.mark.parametrize(
    ("concurrency", "share", "cap"), [(128, 1.0, 128), (128, 0.5, 64), (256, 0.001, 1)]
)
def test_a_users_cap_is_its_share_of_the_slots_and_at_least_one(
    concurrency: int, share: float, cap: int
) -> None:
    assert user_cap(concurrency, share) == cap


@pytest.mark.parametrize("share", [0.0, -0.5, 1.5, float("nan")])
def test_a_share_outside_0_to_1_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="max_user_share must be above 0 and at most 1"):
        user_cap(128, share)
