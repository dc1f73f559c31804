"""A second thought about an item already saved, in the brain dump: a correction changes the
item, "already done" takes it out, and neither is saved as an item (a probe of the running
platform found "no wait not milk, oat milk" saved, and "buy milk" kept); a removal naming one
part of an item joined by "and" takes out that part only."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import brain_dump, texts
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.extracted import corrections_of, to_remove, without_part
from baton_agent_runner.domain.inbox_corrections import Changed, Unclear, second_thought
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted import Turn, run
from baton_agent_runner.service.late_inbox import told_removed
from baton_agent_runner.service.ports import Removal

from .turns import brain_dump_turn


def turn(message: str, earlier: list[str], held: list[str], **extra: Any) -> Turn:
    history = [{"role": "user", "text": said} for said in earlier]
    return brain_dump_turn(message, held, history=history, messages_in_step=len(earlier), **extra)


def said_after(message: str, earlier: list[str]) -> AgentOutput:
    """The reply to `message` after the `earlier` messages, each saved as the brain dump
    splits it."""
    held = [item for said in earlier for item in brain_dump.dumped_items(said)]
    return run(turn(message, earlier, held))


def changed(old: str, new: str) -> dict[str, Any]:
    """What a reply that changed the item `old` into `new` extracts."""
    return {"removed_inbox_items": [old], "inbox_items": [new], "inbox_corrections": {old: new}}


@pytest.mark.parametrize(
    ("message", "earlier", "old", "new"),
    [
        ("no wait not milk, oat milk", ["buy milk", "renew passport"], "buy milk", "buy oat milk"),
        ("not milk but oat milk", ["buy milk"], "buy milk", "buy oat milk"),
        ("не, не молоко, а кефир", ["купить молоко\nпозвонить маме"], "купить молоко",
         "купить кефир"),
        ("no wait the gift is for Jack not Jake", ["buy a birthday gift for Jake", "pay rent"],
         "buy a birthday gift for Jake", "buy a birthday gift for Jack"),
        # The most recent item holding the words is the one changed.
        ("no wait not milk, oat milk", ["buy milk", "milk the cows"], "milk the cows",
         "oat milk the cows"),
    ],
)  # fmt: skip
def test_a_correction_changes_the_item_and_is_no_item_itself(
    message: str, earlier: list[str], old: str, new: str
) -> None:
    held = [item for said in earlier for item in said.splitlines()]
    out = run(turn(message, earlier, held))
    data = out.extracted_data
    assert data["removed_inbox_items"] == [old]
    assert data["inbox_items"] == [new]
    assert corrections_of(data) == {old: new}
    assert message not in out.message and not out.step_completed


@pytest.mark.parametrize(
    ("message", "earlier", "gone"),
    [
        ("ой нет, подарок уже купила", ["купить подарок маме", "оплатить интернет"],
         "купить подарок маме"),
        ("no wait cancel #2 i already did it", ["buy milk\nbook flights\nrenew passport"],
         "book flights"),
        ("oh I already bought the gift", ["buy a gift for Jake", "pay rent"],
         "buy a gift for Jake"),
    ],
)  # fmt: skip
def test_already_done_takes_the_item_out_and_saves_nothing(
    message: str, earlier: list[str], gone: str
) -> None:
    held = [item for said in earlier for item in said.splitlines()]
    out = run(turn(message, earlier, held))
    assert out.extracted_data == {"removed_inbox_items": [gone]}
    language = lang.language_of(message)
    assert out.message == texts.text(language, "inbox_more", need=3 - (len(held) - 1))


def test_already_done_naming_no_one_item_asks_which_and_changes_nothing() -> None:
    earlier = ["buy milk", "pay rent"]
    out = run(turn("oops, already did it", earlier, earlier))
    assert out.extracted_data == {}
    assert out.message.startswith("Which item is done")
    assert "buy milk; pay rent" in out.message


def test_a_correction_of_nothing_said_says_so_and_saves_nothing() -> None:
    out = run(turn("no wait not bread, rye bread", ["buy milk"], ["buy milk"]))
    assert out.extracted_data == {}
    assert out.message == texts.text("en", "inbox_change_missing", said="bread", items="buy milk")


def test_hesitation_with_a_not_is_no_correction() -> None:
    out = run(turn("wait, not now, sorry", ["buy milk"], ["buy milk"]))
    assert "removed_inbox_items" not in out.extracted_data
    assert not out.message.startswith(("No item", "Which item")), out.message


@pytest.mark.parametrize("message", ["not today: call the bank", "buy milk not juice"])
def test_a_not_without_anything_to_correct_is_an_item(message: str) -> None:
    assert second_thought(message, ["pay rent"], ["pay rent"]) is None


def test_the_reply_says_what_a_correction_changed() -> None:
    data = {"removed_inbox_items": ["buy milk"], "inbox_items": ["buy oat milk"],
            "inbox_corrections": {"buy milk": "buy oat milk"}}  # fmt: skip
    output = AgentOutput(message="Anything else?", extracted_data=data)
    removed = Removal("buy milk", removed={"content": "buy milk"})
    told = told_removed(output, "en", [removed])
    assert told.message == "Changed: buy milk → buy oat milk.\nAnything else?"
    missing = told_removed(output, "en", [Removal("buy milk")])
    assert missing.message.startswith("Saved to your inbox: buy oat milk.")


def test_the_reply_says_what_part_of_an_item_went() -> None:
    output = AgentOutput(message="Anything else?")
    removed = Removal(
        "buy dog food",
        removed={"content": "call grandma and also buy dog food"},
        kept="call grandma",
    )
    told = told_removed(output, "en", [removed])
    assert told.message.startswith(
        'Took "buy dog food" out of that item; it now reads: call grandma'
    )


@pytest.mark.parametrize(
    ("content", "said", "kept"),
    [
        ("call grandma and also buy dog food", "buy dog food", "call grandma"),
        ("call grandma and also buy dog food", "dog food", "call grandma"),
        ("call grandma and also buy dog food", "call grandma", "buy dog food"),
        ("купить хлеб и позвонить маме", "позвонить маме", "купить хлеб"),
        ("call mom, and pay rent and book flights", "pay rent", "call mom and book flights"),
        # The whole item, one part only, or words across its parts: the whole item goes.
        ("call grandma and buy dog food", "call grandma and buy dog food", None),
        ("купить кроссовки", "кроссовки", None),
        ("call grandma and buy dog food", "grandma and buy", None),
    ],
)  # fmt: skip
def test_a_removal_of_one_part_of_an_item_keeps_the_rest(
    content: str, said: str, kept: str | None
) -> None:
    assert without_part(content, said) == kept


def test_several_items_holding_it_pick_the_one_that_is_it() -> None:
    assert to_remove(["buy milk powder", "buy milk"], "buy milk") == [1]
    assert to_remove(["buy milk powder", "buy milk shake"], "buy milk") == [0, 1]


def test_second_thought_reads_nothing_without_items() -> None:
    assert second_thought("no wait not milk, oat milk", [], []) is None
    assert isinstance(second_thought("no wait not bread, rye", ["buy milk"], []), Unclear)
    assert second_thought("not milk, oat milk", ["buy milk"], []) == Changed(
        "buy milk", "buy oat milk"
    )


def test_already_done_with_nothing_saved_says_so_and_saves_nothing() -> None:
    out = run(turn("ой нет, подарок уже купила", [], []))
    assert out.extracted_data == {}
    assert out.message == texts.text("ru", "inbox_remove_missing", said="подарок уже купила")


def test_a_long_message_with_already_in_it_is_an_item() -> None:
    message = "I already have a dentist appointment but need to move it to friday"
    out = run(turn(message, ["buy milk"], ["buy milk"]))
    assert out.extracted_data == {"inbox_items": [message]}


_ENGLISH = ["buy milk, call the bank, book the dentist"]
_RUSSIAN = ["купить молоко, позвонить в банк, записаться к стоматологу"]


@pytest.mark.parametrize(
    ("message", "earlier", "old", "new"),
    [
        # Each was saved as a new item, "buy milk" kept beside it.
        ("I meant bread", _ENGLISH, "buy milk", "buy bread"),
        ("actually make that bread", _ENGLISH, "buy milk", "buy bread"),
        ("change milk to bread", _ENGLISH, "buy milk", "buy bread"),
        ("replace milk with bread", _ENGLISH, "buy milk", "buy bread"),
        ("swap milk for bread", _ENGLISH, "buy milk", "buy bread"),
        ("oh, I meant bread, not milk", _ENGLISH, "buy milk", "buy bread"),
        ("I meant buy bread", _ENGLISH, "buy milk", "buy bread"),
        ("make that oat milk", _ENGLISH, "buy milk", "buy oat milk"),
        ("no wait, not milk, bread", _ENGLISH, "buy milk", "buy bread"),
        # The last message's one item, or the one whose words after the verb are alike.
        ("I meant the bakery", ["buy milk", "call the bank"], "call the bank", "call the bakery"),
        ("I meant the bakery", ["buy milk\ncall the bank"], "call the bank", "call the bakery"),
        ("я имел в виду хлеб", _RUSSIAN, "купить молоко", "купить хлеб"),
        ("я имела в виду хлеб", _RUSSIAN, "купить молоко", "купить хлеб"),
        ("я имел в виду не молоко, а хлеб", _RUSSIAN, "купить молоко", "купить хлеб"),
        ("I meant oat milk, not milk", _ENGLISH, "buy milk", "buy oat milk"),
        # The verb said again is not doubled ("Call call dad for her birthday").
        ("actually I meant call dad, not mom", ["Call mom for her birthday", "buy milk"],
         "Call mom for her birthday", "Call dad for her birthday"),
        ("no wait, not mom, call dad", ["Call mom for her birthday"],
         "Call mom for her birthday", "Call dad for her birthday"),
        ("no sorry I meant call Tom back, not Bob", ["call Bob back re the quote for $2,500"],
         "call Bob back re the quote for $2,500", "call Tom back re the quote for $2,500"),
        ("замени молоко на хлеб", _RUSSIAN, "купить молоко", "купить хлеб"),
        ("поменяй молоко на хлеб", _RUSSIAN, "купить молоко", "купить хлеб"),
        ("не молоко, а хлеб", _RUSSIAN, "купить молоко", "купить хлеб"),
    ],
)  # fmt: skip
def test_a_correction_said_as_a_change_or_as_what_was_meant_changes_the_item(
    message: str, earlier: list[str], old: str, new: str
) -> None:
    out = said_after(message, earlier)
    assert out.extracted_data == changed(old, new)
    # The service puts "Changed: buy milk → buy bread." before it (`told_removed`).
    output = AgentOutput(message=out.message, extracted_data=out.extracted_data)
    told = told_removed(output, lang.language_of(message), [Removal(old, removed={"content": old})])
    assert told.message.startswith(
        texts.text(lang.language_of(message), "inbox_changed", item=old, new=new)
    )


@pytest.mark.parametrize(
    ("message", "earlier", "old", "new"),
    [
        # Only "колбаса" as written matched: the accusative a change names it in did not.
        ("замени колбасу на сыр", ["колбаса\nкупить хлеб"], "колбаса", "сыр"),
        ("поменяй молока на кефир", ["купить молоко"], "купить молоко", "купить кефир"),
        ("не колбасу, а сыр", ["колбаса\nпозвонить маме"], "колбаса", "сыр"),
        ("замени колбасу на сыр", ["купить колбасы"], "купить колбасы", "купить сыр"),
    ],
)  # fmt: skip
def test_a_russian_change_finds_the_word_in_another_case(
    message: str, earlier: list[str], old: str, new: str
) -> None:
    out = said_after(message, earlier)
    assert out.extracted_data == changed(old, new)


@pytest.mark.parametrize(
    ("message", "removed"), [("удали колбасу", "колбаса"), ("убери молока", "молоко")]
)
def test_a_russian_removal_finds_the_word_in_another_case(message: str, removed: str) -> None:
    # "удали колбасу" of "колбаса" was saved as the item "удали колбасу".
    earlier = ["колбаса\nкупить молоко"]
    out = run(turn(message, earlier, ["колбаса", "купить молоко"]))
    assert out.extracted_data == {"removed_inbox_items": [removed]}


@pytest.mark.parametrize(
    ("message", "held"),
    [
        ("замени сок на чай", ["лечь пораньше, сон"]),  # "сок" is no stem of "сон"
        ("замени кота на собаку", ["исправить код"]),
    ],
)
def test_a_russian_change_finds_no_other_short_word(message: str, held: list[str]) -> None:
    assert second_thought(message, held, held) is None


def test_what_was_meant_fitting_several_items_asks_which_and_changes_nothing() -> None:
    earlier = ["buy milk, call mom, book dentist"]
    out = run(turn("I meant bread", earlier, ["buy milk", "call mom", "book dentist"]))
    assert out.extracted_data == {}
    assert out.message == texts.text(
        "en", "inbox_change_which", said="bread", items="buy milk; call mom; book dentist"
    )
    ru = run(
        turn("я имел в виду хлеб", ["купить молоко\nкупить сыр"], ["купить молоко", "купить сыр"])
    )
    assert ru.extracted_data == {}
    assert ru.message.startswith("Какую запись исправить на «хлеб»?")


@pytest.mark.parametrize(
    "message",
    [
        "I mean to call mom later", "I mean, I also need to call mom", "make it to the gym",
        "change the oil to synthetic", "replace the filter with a new one",
        "замени масло на синтетику", "I meant to say: call the plumber about the kitchen sink",
        "make that appointment with the dentist on friday", "I meant bread, milk and eggs",
    ],
)  # fmt: skip
def test_a_change_of_nothing_saved_or_talk_after_i_mean_is_an_item(message: str) -> None:
    out = run(turn(message, _ENGLISH, brain_dump.dumped_items(_ENGLISH[0])))
    assert "removed_inbox_items" not in out.extracted_data
    assert out.extracted_data.get("inbox_items"), out.message


@pytest.mark.parametrize(
    ("message", "held", "new"),
    [
        # "Kate's" was one word no correction of "Kate" found: "No item in your inbox holds
        # "Kate"", and "change Kate to Karen" was saved as an item.
        ("I meant Karen, not Kate", "call Kate's mom", "call Karen's mom"),
        ("no wait not Kate, Karen", "call Kate's mom", "call Karen's mom"),
        ("change Kate to Karen", "call Kate's mom", "call Karen's mom"),
        ("no wait not Kate's, Karen's", "call Kate’s mom", "call Karen’s mom"),
        ("I meant Karen's sister, not mom", "call Karen's mom", "call Karen's sister"),
    ],
)
def test_a_correction_finds_a_name_an_item_says_as_owning_something(
    message: str, held: str, new: str
) -> None:
    out = run(turn(message, [f"{held}, pay rent"], [held, "pay rent"]))
    assert out.extracted_data == {
        "removed_inbox_items": [held], "inbox_items": [new], "inbox_corrections": {held: new}
    }  # fmt: skip


def test_already_done_finds_a_name_an_item_says_as_owning_something() -> None:
    out = run(turn("oh, already called Kate", ["call Kate's mom, pay rent"],
                   ["call Kate's mom", "pay rent"]))  # fmt: skip
    assert out.extracted_data == {"removed_inbox_items": ["call Kate's mom"]}


@pytest.mark.parametrize(
    ("message", "earlier", "old", "new"),
    [
        # Saved as the item "keep netflix, cancel hulu instead", "cancel netflix" kept.
        ("keep netflix, cancel hulu instead", ["cancel netflix, pay rent"], "cancel netflix",
         "cancel hulu"),
        ("I'll keep netflix and cancel hulu instead", ["cancel netflix"], "cancel netflix",
         "cancel hulu"),
        ("actually keep netflix, instead cancel hulu", ["cancel netflix"], "cancel netflix",
         "cancel hulu"),
        ("оставь нетфликс, лучше отменить hulu", ["отменить нетфликс\nкупить хлеб"],
         "отменить нетфликс", "отменить hulu"),
    ],
)  # fmt: skip
def test_keeping_one_thing_and_another_instead_changes_the_item(
    message: str, earlier: list[str], old: str, new: str
) -> None:
    out = said_after(message, earlier)
    assert out.extracted_data == changed(old, new)


@pytest.mark.parametrize(
    "message", ["keep calm, do yoga instead", "keep the receipts, file taxes", "keep netflix"]
)
def test_keeping_without_an_item_to_change_is_an_item(message: str) -> None:
    out = run(turn(message, ["cancel netflix, pay rent"], ["cancel netflix", "pay rent"]))
    assert "removed_inbox_items" not in out.extracted_data
    assert out.extracted_data.get("inbox_items")
