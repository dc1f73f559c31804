"""A request sent again while no replica takes it is only sent with time enough to hear back:
with too little left, its timeout would be the caller's error in place of "no responders"."""

from __future__ import annotations

import asyncio

import pytest

from baton_contracts import ErrorCode, RemoteError
from baton_messaging.requests import NO_RESPONDERS, replica_gone
from baton_messaging.resending import LAST_TRY_SECONDS, _again_while_gone

NOBODY = RemoteError.of(ErrorCode.UNAVAILABLE, f"{NO_RESPONDERS} 'workflow.cmd.start'")


async def test_no_send_is_left_too_little_time_to_hear_that_nobody_took_it() -> None:
    sends: list[float] = []

    async def send(left: float) -> bytes:
        sends.append(left)
        if len(sends) > 1:  # a loaded host: the answer takes longer than what is left
            await asyncio.sleep(left)
            raise RemoteError.of(ErrorCode.UNAVAILABLE, f"no reply within {left:.1f}s")
        raise NOBODY

    # After the first answer and a pause of 0.5 s, less than LAST_TRY_SECONDS would be left.
    timeout = 0.5 + LAST_TRY_SECONDS - 0.05
    with pytest.raises(RemoteError) as caught:
        await _again_while_gone(send, timeout, 10.0, 0.5, None, replica_gone)
    assert caught.value.body.message.startswith(NO_RESPONDERS), caught.value.body.message
    assert len(sends) == 1


async def test_a_send_with_time_enough_is_still_sent_again() -> None:
    sends: list[float] = []

    async def send(left: float) -> bytes:
        sends.append(left)
        if len(sends) == 1:
            raise NOBODY
        return b"answered"

    timeout = 0.5 + LAST_TRY_SECONDS + 0.3
    answer = await _again_while_gone(send, timeout, 10.0, 0.5, None, replica_gone)
    assert answer == b"answered"
    assert len(sends) == 2 and sends[1] >= LAST_TRY_SECONDS
