"""An item said again while the instance's inbox holds it is not saved twice: the store skips
it in the insert's transaction, the reply says it is there already, and the brain dump counts
distinct items. A retried turn is no repeat of itself, and a failed turn's take-back still
takes back only its own items."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql, sql_stores
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.service.ports import InboxTally
from baton_contracts import RemoteError
from baton_contracts.agent_api import HistoryEntry, RunAgent

from .sql_runner import NOW, DownReplies, sql_runner


def _turn(key: str, message: str, *, agent: str = "inbox_collector", count: int = 1) -> RunAgent:
    return RunAgent(
        user_id="alice",
        agent=agent,
        instance_id="i-1",
        current_step="brain_dump" if agent == "inbox_collector" else agent,
        message=message,
        history=[HistoryEntry(role="user", text="hi"), HistoryEntry(role="assistant", text="Hi")],
        idempotency_key=key,
        deadline=NOW + timedelta(seconds=30),
        step_context={"messages_in_step": count, "min_messages": 3, "max_messages": 20},
    )


def _inbox(engine: AsyncEngine) -> sql_stores.SqlInboxStore:
    return sql_stores.SqlInboxStore(engine, lambda: NOW)


async def _contents(engine: AsyncEngine) -> list[str]:
    return sorted(item.content for item in await _inbox(engine).list_items("alice", 50))


async def test_a_repeat_of_an_open_item_of_the_instance_is_skipped_and_returned(
    engine: AsyncEngine,
) -> None:
    inbox = _inbox(engine)
    await inbox.add("alice", [NewInboxItem("a-1", "Call mom", "deferred")], None, "i-1")
    said = [
        NewInboxItem("a-2", "  call  MOM! ", "new"),
        NewInboxItem("a-3", "buy milk", "new"),
        NewInboxItem("a-4", "Buy milk.", "new"),  # a repeat of the list's own
    ]
    repeated = await inbox.add("alice", said, "k-2", "i-1")
    assert repeated == [said[0], said[2]]
    assert [i.content for i in await inbox.list_items("alice", 10)] == ["buy milk"]
    assert await inbox.count("alice", "deferred") == 1  # as it was


async def test_an_item_of_another_instance_or_user_or_one_closed_is_no_repeat(
    engine: AsyncEngine,
) -> None:
    inbox = _inbox(engine)
    await inbox.add("alice", [NewInboxItem("a-1", "call mom", "new")], None, "i-0")
    await inbox.add("bob", [NewInboxItem("b-1", "call mom", "new")], None, "i-1")
    await inbox.add("alice", [NewInboxItem("a-2", "pay rent", "new")], None, "i-1")
    async with engine.begin() as conn:  # done: no longer open
        await conn.execute(
            update(sql.inbox_items).where(sql.inbox_items.c.item_id == "a-2").values(status="done")
        )
    said = [NewInboxItem("a-3", "call mom", "new"), NewInboxItem("a-4", "pay rent", "new")]
    assert await inbox.add("alice", said, "k-4", "i-1") == []
    assert await inbox.count("alice", "new") == 3


async def test_a_retried_write_is_no_repeat_of_itself(engine: AsyncEngine) -> None:
    inbox = _inbox(engine)
    items = [NewInboxItem("a-1", "call mom", "new"), NewInboxItem("a-2", "buy milk", "new")]
    assert await inbox.add("alice", items, "k-1", "i-1") == []
    assert await inbox.add("alice", items, "k-1", "i-1") == []  # the same ids: skipped, no repeat
    assert await inbox.count("alice", None) == 2


async def test_the_tally_counts_the_inbox_and_lists_the_open_items_not_of_the_turn(
    engine: AsyncEngine,
) -> None:
    inbox = _inbox(engine)
    await inbox.add("alice", [NewInboxItem("a-1", "call mom", "deferred")], None, "i-1")
    await inbox.add("alice", [NewInboxItem("a-2", "pay rent", "new")], None, "i-1")
    await inbox.add("alice", [NewInboxItem("a-3", "buy milk", "new")], "k-3", "i-1")
    await inbox.add("alice", [NewInboxItem("a-4", "old task", "new")], None, "i-0")
    # Another turn's item, its reply not recorded yet: counted, and keeps no repeat out.
    await inbox.add("alice", [NewInboxItem("a-5", "fix the sink", "new")], "k-5", "i-1")
    tally = await inbox.tally("alice", "i-1", "k-3")
    assert tally.count == await inbox.count("alice", None, before_turn="k-3") == 3
    assert sorted(tally.open) == ["call mom", "pay rent"]
    sink = [NewInboxItem("a-6", "Fix the sink", "new")]
    assert await inbox.add("alice", sink, "k-6", "i-1") == []
    assert await inbox.tally("bob", "i-1", "k-3") == InboxTally(0, [])


async def test_an_item_said_twice_in_one_message_is_saved_once(engine: AsyncEngine) -> None:
    reply = await sql_runner(engine).run(_turn("i-1:m-1", "buy milk, buy milk"))
    assert reply.extracted_data == {"inbox_items": ["buy milk"]}
    assert texts.text("en", "saved", items="buy milk", total=1) in reply.message
    assert await _contents(engine) == ["buy milk"]


async def test_an_item_said_again_is_not_saved_and_the_reply_says_it_is_there(
    engine: AsyncEngine,
) -> None:
    runner = sql_runner(engine)
    await runner.run(_turn("i-1:m-1", "позвонить маме\nкупить хлеб"))
    reply = await runner.run(_turn("i-1:m-2", "Позвонить  маме!\nпочинить кран", count=2))
    assert reply.extracted_data == {"inbox_items": ["починить кран"]}
    assert texts.text("ru", "saved", items="починить кран", total=3) in reply.message
    # Named as the user said it, its run of spaces read as one (the rules' `tidy`).
    assert texts.text("ru", "already_saved", items="Позвонить маме") in reply.message
    assert await _contents(engine) == ["купить хлеб", "позвонить маме", "починить кран"]


async def test_the_brain_dump_closes_on_three_distinct_items_only(engine: AsyncEngine) -> None:
    runner = sql_runner(engine)
    await runner.run(_turn("i-1:m-1", "milk\nbread", count=1))
    again = await runner.run(_turn("i-1:m-2", "Milk\nthat's all", count=2))
    assert not again.step_completed
    assert texts.text("en", "inbox_too_few", need=1, total=2, least=3) in again.message
    done = await runner.run(_turn("i-1:m-3", "call the bank\nthat's all", count=3))
    assert done.step_completed
    assert await _contents(engine) == ["bread", "call the bank", "milk"]


@pytest.mark.parametrize(
    ("said", "again", "item"),
    [
        ("Запиши в inbox: позвонить маме", "Запиши в inbox: Позвонить маме", "Позвонить маме"),
        ("add to my inbox: call dentist", "add to my inbox: call dentist", "call dentist"),
        ("remember to call the dentist", "don't forget to call the dentist", "call the dentist"),
        ("напомни мне позвонить врачу", "напомни мне позвонить врачу", "позвонить врачу"),
    ],
)
async def test_an_item_kept_twice_before_the_brain_dump_is_kept_once_and_said_so(
    engine: AsyncEngine, said: str, again: str, item: str
) -> None:
    runner = sql_runner(engine)
    first = await runner.run(_turn("i-1:m-1", said, agent="discovery"))
    language = "en" if item.isascii() else "ru"
    assert texts.text(language, "already_kept", items=item) not in first.message
    reply = await runner.run(_turn("i-1:m-2", again, agent="discovery"))
    # Kept, in no inbox yet: said once, in place of the line that kept it the first time; it
    # was followed by "Already in your inbox, so not added again".
    assert reply.message.startswith(texts.text(language, "already_kept", items=item))
    assert texts.text(language, "already_saved", items=item) not in reply.message
    for key in ("task_kept", "deferred"):
        assert texts.text(language, key, items=item, why="").strip() not in reply.message
    assert await _inbox(engine).count("alice", "deferred") == 1


async def test_a_failed_turn_repeating_an_item_takes_back_only_its_own(
    engine: AsyncEngine,
) -> None:
    await sql_runner(engine).run(_turn("i-1:m-1", "call mom"))
    with pytest.raises(RemoteError):
        await sql_runner(engine, DownReplies).run(_turn("i-1:m-2", "call mom\nbuy milk", count=2))
    assert await _contents(engine) == ["call mom"]
    # Its retry saves what it said anew, and is no repeat of its first attempt.
    retried = await sql_runner(engine).run(_turn("i-1:m-2", "call mom\nbuy milk", count=2))
    assert retried.extracted_data == {"inbox_items": ["buy milk"]}
    assert await _contents(engine) == ["buy milk", "call mom"]


async def test_a_retried_turn_whose_first_writes_stayed_is_no_repeat_of_itself(
    engine: AsyncEngine,
) -> None:
    # Its first attempt saved the items, and its take-back could not run (a crash): the retry
    # reads the inbox without them, and says and saves the same as the first attempt.
    inbox = _inbox(engine)
    first = _turn("i-1:m-1", "call mom\nbuy milk")
    runner = sql_runner(engine)
    reply = await runner.run(first)
    async with engine.begin() as conn:  # forget the reply, keep the items: a lost record
        await conn.execute(sql.replies.delete())
    again = await runner.run(first)
    assert again.message == reply.message and again.extracted_data == reply.extracted_data
    assert await inbox.count("alice", None) == 2
