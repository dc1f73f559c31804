"""A conversation at its documented limits stays talkable: the agent request it becomes (the
history, the step context, the message) is fitted into a NATS message."""

from __future__ import annotations

import httpx

from .conftest import User
from .test_classic_list import at_brain_dump

BIG = "\x01" * 7999 + "a"
"""8,000 characters, the limit, each 6 bytes once written as JSON (`\\u0001`)."""


async def test_messages_at_the_limits_leave_the_chat_talkable(http: httpx.AsyncClient) -> None:
    user = User(http, "history-size")
    await at_brain_dump(user)
    for i in range(4):  # `shared` filled by the user's own signals, within their limits
        body = {"action": "stay", "command_id": f"sh{i}", "shared": {f"k{i}": "x" * 64000}}
        signal = await http.post(
            f"/api/workflows/{user.instance}/signal", json=body, headers=user.headers
        )
        assert signal.status_code == 200, signal.text
    # The collector answers with the user's text: a full history of both was over 1 MiB, and
    # every later message was refused 413 naming agent.cmd.run, a short one too.
    statuses = [(await user.send(BIG, f"big{n}")).status_code for n in range(12)]
    short = await user.send("ok", "short")

    assert statuses == [200] * 12
    assert short.status_code == 200, short.text
