"""Taking an item out of the inbox from the chat ("oh wait, remove cancel netflix"): the store
removes the one item of the instance that holds what was said, the reply says what became of
it, and a turn whose reply is not recorded puts the item back as it was."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from baton_agent_runner.adapters import sql_stores
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.service.ports import Removal
from baton_contracts import RemoteError
from baton_contracts.agent_api import HistoryEntry, RunAgent

from .sql_runner import NOW, DownReplies, sql_runner

LISTED = "cancel netflix\nbuy milk\ncall mom"


def _turn(
    key: str, message: str, *, after: str | None = None, agent: str = "inbox_collector"
) -> RunAgent:
    history = [] if after is None else [
        HistoryEntry(role="user", text=after), HistoryEntry(role="assistant", text="Saved.")
    ]  # fmt: skip
    return RunAgent(
        user_id="alice",
        agent=agent,
        instance_id="i-1",
        current_step="brain_dump" if agent == "inbox_collector" else agent,
        message=message,
        history=history,
        idempotency_key=key,
        deadline=NOW + timedelta(seconds=30),
        step_context={"messages_in_step": 1, "min_messages": 3, "max_messages": 20},
    )


def _inbox(engine: AsyncEngine) -> sql_stores.SqlInboxStore:
    return sql_stores.SqlInboxStore(engine, lambda: NOW)


async def _contents(engine: AsyncEngine) -> list[str]:
    return sorted(item.content for item in await _inbox(engine).list_items("alice", 50))


async def test_a_request_to_remove_an_item_removes_it_and_says_so(engine: AsyncEngine) -> None:
    # It was saved as an item of its own: "Saved to your inbox: oh wait, remove cancel ...".
    runner = sql_runner(engine)
    await runner.run(_turn("i-1:m-1", LISTED))
    reply = await runner.run(
        _turn("i-1:m-2", "oh wait, remove cancel netflix, i still watch it", after=LISTED)
    )
    assert reply.message.startswith(texts.text("en", "inbox_removed", item="cancel netflix"))
    assert reply.extracted_data == {"removed_inbox_items": ["cancel netflix"]}
    assert await _contents(engine) == ["buy milk", "call mom"]
    assert await _inbox(engine).count("alice", None) == 2


async def test_a_word_of_the_item_is_enough_when_one_item_holds_it(engine: AsyncEngine) -> None:
    runner = sql_runner(engine)
    listed = "купить кроссовки; позвонить маме; оплатить интернет"
    await runner.run(_turn("i-1:m-1", listed))
    reply = await runner.run(_turn("i-1:m-2", "удали кроссовки, уже купил", after=listed))
    assert reply.message.startswith("Убрал из inbox: купить кроссовки.")
    assert await _contents(engine) == ["оплатить интернет", "позвонить маме"]


async def test_what_several_items_hold_removes_none_and_asks_which(engine: AsyncEngine) -> None:
    runner = sql_runner(engine)
    listed = "buy milk\nbuy milk powder\ncall mom"
    await runner.run(_turn("i-1:m-1", listed))
    reply = await runner.run(_turn("i-1:m-2", "remove milk", after=listed))
    said = texts.text("en", "inbox_remove_which", said="milk", items="buy milk; buy milk powder")
    assert reply.message.startswith(said)
    assert len(await _contents(engine)) == 3
    # Written out in full, as the reply asks, it names the one item that is it: before, "buy
    # milk" was held by both, and could never be removed.
    again = await runner.run(_turn("i-1:m-3", "remove buy milk", after=listed))
    assert again.message.startswith(texts.text("en", "inbox_removed", item="buy milk"))
    assert await _contents(engine) == ["buy milk powder", "call mom"]


async def test_a_removal_naming_one_part_of_an_item_takes_out_that_part_only(
    engine: AsyncEngine,
) -> None:
    # "remove buy dog food" deleted "call grandma and buy dog food": call grandma was lost.
    # (The brain dump now saves two actions joined by "and" as two items; one thing bought
    # with another, "buy salt and pepper", is still one.)
    runner = sql_runner(engine)
    listed = "renew passport\nbuy salt and pepper"
    await runner.run(_turn("i-1:m-1", listed))
    reply = await runner.run(_turn("i-1:m-2", "remove pepper, already got it", after=listed))
    assert reply.message.startswith(
        texts.text("en", "inbox_removed_part", said="pepper", item="buy salt")
    )
    assert await _contents(engine) == ["buy salt", "renew passport"]


async def test_a_part_taken_out_by_a_turn_not_recorded_is_given_back(engine: AsyncEngine) -> None:
    listed = "renew passport\nbuy salt and pepper"
    await sql_runner(engine).run(_turn("i-1:m-1", listed))
    before = await _inbox(engine).list_items("alice", 50)
    with pytest.raises(RemoteError):
        await sql_runner(engine, DownReplies).run(_turn("i-1:m-2", "remove pepper", after=listed))
    assert await _inbox(engine).list_items("alice", 50) == before


async def test_a_correction_changes_the_item_and_the_reply_says_so(engine: AsyncEngine) -> None:
    # "no wait not milk, oat milk" was saved as an item, and "buy milk" stayed.
    runner = sql_runner(engine)
    await runner.run(_turn("i-1:m-1", LISTED))
    reply = await runner.run(_turn("i-1:m-2", "no wait not milk, oat milk", after=LISTED))
    assert reply.message.startswith("Changed: buy milk → buy oat milk.\n"), reply.message
    assert await _contents(engine) == ["buy oat milk", "call mom", "cancel netflix"]


async def test_an_item_of_another_instance_or_user_is_not_removed(engine: AsyncEngine) -> None:
    inbox = _inbox(engine)
    await inbox.add("alice", [NewInboxItem("a-1", "cancel netflix", "new")], "k-0", "i-0")
    await inbox.add("bob", [NewInboxItem("b-1", "cancel netflix", "new")], "k-1", "i-1")
    removal = await inbox.remove("alice", "i-1", "cancel netflix")
    assert removal == Removal("cancel netflix")
    assert await inbox.count("alice", None) == 1 and await inbox.count("bob", None) == 1


async def test_a_removal_whose_reply_is_not_recorded_puts_the_item_back(
    engine: AsyncEngine,
) -> None:
    await sql_runner(engine).run(_turn("i-1:m-1", LISTED))
    before = await _inbox(engine).list_items("alice", 50)
    with pytest.raises(RemoteError):
        await sql_runner(engine, DownReplies).run(
            _turn("i-1:m-2", "remove cancel netflix", after=LISTED)
        )
    assert await _inbox(engine).list_items("alice", 50) == before  # id, status, time and all


async def test_put_back_saves_nothing_twice(engine: AsyncEngine) -> None:
    inbox = _inbox(engine)
    await inbox.add("alice", [NewInboxItem("a-1", "cancel netflix", "deferred")], "k-0", "i-1")
    removal = await inbox.remove("alice", "i-1", "Cancel  Netflix")
    assert removal.content == "cancel netflix"
    await inbox.put_back("alice", removal)
    await inbox.put_back("alice", removal)
    assert await inbox.count("alice", "deferred") == 1
    assert await inbox.remove("alice", "i-1", "netflix shows") == Removal("netflix shows")


async def test_an_item_kept_for_the_brain_dump_is_removed_before_it(engine: AsyncEngine) -> None:
    # Said to discovery, the request got the summary again, and the kept item stayed.
    runner = sql_runner(engine)
    listed = "купить кроссовки; позвонить маме; оплатить интернет"
    step = {"agents_ahead": ["inbox_collector"], "messages_in_step": 1, "max_messages": 30}
    kept = _turn("i-1:m-1", listed, agent="discovery").model_copy(update={"step_context": step})
    first = await runner.run(kept)
    assert await _inbox(engine).count("alice", "deferred") == 3
    asked = _turn("i-1:m-2", "удали кроссовки, уже купил", after=listed, agent="discovery")
    history = [*asked.history[:1], HistoryEntry(role="assistant", text=first.message)]
    reply = await runner.run(asked.model_copy(update={"step_context": step, "history": history}))
    assert reply.message.startswith("Убрал из inbox: купить кроссовки.\n")
    assert "позвонить маме" not in reply.message, reply.message  # the question, not the list
    assert reply.workflow_signal.action == "stay"
    assert await _inbox(engine).count("alice", "deferred") == 2


async def test_a_removal_at_a_follow_up_question_asks_it_again(engine: AsyncEngine) -> None:
    # The reply that kept the list ended on the question, on the same line as the list: the
    # question was dropped with it, and "это всё" then got the summary.
    runner = sql_runner(engine)
    asked = texts.text("ru", "discovery_ask_constraints")
    listed = "купить хлеб; позвонить маме; оплатить интернет"
    step = {"agents_ahead": ["inbox_collector"], "messages_in_step": 3, "max_messages": 30}
    facts = {"work": "работа", "health": "здоровье", "relationships": "семья"}
    memory = sql_stores.SqlMemoryStore(engine, lambda: NOW)
    for area, fact in facts.items():
        await memory.put_fact("alice", "priorities", area, fact)
    said = [HistoryEntry(role="assistant", text=asked)]
    kept = _turn("i-1:m-1", listed, agent="discovery")
    first = await runner.run(kept.model_copy(update={"step_context": step, "history": said}))
    assert first.message.endswith(asked) and "\n" not in first.message
    history = [*said, HistoryEntry(role="user", text=listed)]
    history.append(HistoryEntry(role="assistant", text=first.message))
    removal = _turn("i-1:m-2", "удали хлеб", agent="discovery")
    reply = await runner.run(removal.model_copy(update={"step_context": step, "history": history}))
    assert reply.message == f"Убрал из inbox: купить хлеб.\n{asked}"


async def test_delete_the_last_one_removes_the_item_saved_last(engine: AsyncEngine) -> None:
    # "delete the last one" was saved as an item of its own.
    runner = sql_runner(engine)
    saved = await runner.run(_turn("i-1:m-1", LISTED))
    told = [
        HistoryEntry(role="user", text=LISTED),
        HistoryEntry(role="assistant", text=saved.message),
    ]
    asked = _turn("i-1:m-2", "delete the last one").model_copy(update={"history": told})
    reply = await runner.run(asked)
    assert reply.extracted_data == {"removed_inbox_items": ["call mom"]}
    assert reply.message.startswith(texts.text("en", "inbox_removed", item="call mom"))
    assert await _contents(engine) == ["buy milk", "cancel netflix"]
