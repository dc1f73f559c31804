"""docs/chat.md's conversation, run line by line through the gateway: the example is true."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from .conftest import Stack, User

DOC = Path(__file__).parents[3] / "docs" / "chat.md"
SAY = re.compile(r'^say (\S+) "(.*?)"\s*(?:#\s*(.*))?$')
MOVE = re.compile(r"(\w+) -> (\w+)")


async def test_the_documented_conversation_completes_as_its_comments_say(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    lines = [SAY.match(line.strip()) for line in DOC.read_text().splitlines()]
    turns = [m for m in lines if m]
    assert len(turns) >= 8, "docs/chat.md lost its example"
    user = User(http, "docs-reader")
    await user.start()
    for match in turns:
        message_id, text, comment = match.groups()
        before = await user.step()
        response = await user.send(text, client_message_id=message_id)
        assert response.status_code == 200, response.text
        reply = response.json()
        after = reply["progress"]["current_step"]
        move = MOVE.search(comment or "")
        if move:
            assert (before, after) == move.groups(), (text, reply["reply"]["text"])
        elif comment and "completed" in comment:
            assert reply["progress"]["status"] == "completed", reply
        else:
            assert after == before, (text, reply["turn"])
    inbox = [item["content"] for item in (await user.get("/api/inbox"))["items"]]
    assert "buy milk" in inbox
    again = await user.send("Got it, let's go", client_message_id="m2")
    assert again.status_code == 200 and again.json()["replayed"] is True, again.text
