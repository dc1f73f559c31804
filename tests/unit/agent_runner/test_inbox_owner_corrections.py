"""A brain dump correction a probe found misread: "I meant Karen's sister, not mom" of "call
Kate's mom" made "call Kate's Karen's sister", the item's owner kept before the new one."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str, held: list[str], **extra: Any) -> Turn:
    history = [{"role": "user", "text": "\n".join(held)}]
    return brain_dump_turn(message, held, history=history, messages_in_step=1, **extra)


@pytest.mark.parametrize(
    ("message", "old", "new"),
    [
        ("I meant Karen's sister, not mom", "call Kate's mom", "call Karen's sister"),
        ("no wait not mom, Karen's sister", "call Kate's mom", "call Karen's sister"),
        ("change mom to Karen's sister", "call Kate's mom", "call Karen's sister"),
        ("I meant my sister, not mom", "call Kate's mom", "call my sister"),
        ("I meant Karen's sister, not mom", "call my mom", "call Karen's sister"),
        # New words that name no owner keep the item's.
        ("no wait not mom, sister", "call Kate's mom", "call Kate's sister"),
        ("not Kate, Karen", "call Kate's mom", "call Karen's mom"),
        ("I meant history homework, not math", "do Kate's math", "do Kate's history homework"),
    ],
)  # fmt: skip
def test_a_correction_naming_an_owner_replaces_the_items_owner(
    message: str, old: str, new: str
) -> None:
    out = run(turn(message, [old, "buy milk"]))
    assert out.extracted_data == {
        "removed_inbox_items": [old],
        "inbox_items": [new],
        "inbox_corrections": {old: new},
    }
