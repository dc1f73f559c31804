"""How long a durable consumer's failed message waits before it comes again."""

from __future__ import annotations

import pytest

from baton_messaging.redelivery import redelivery_delay


def test_the_wait_doubles_from_a_second_to_at_most_a_minute() -> None:
    waits = [redelivery_delay(delivered) for delivered in range(1, 10)]
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]


def test_a_hundredth_try_still_waits_a_minute() -> None:
    assert redelivery_delay(100) == 60.0
    assert redelivery_delay(10_000) == 60.0


def test_a_message_never_delivered_has_no_wait() -> None:
    with pytest.raises(ValueError, match="delivered"):
        redelivery_delay(0)
