"""What a reply says of items the turn said again (`service.late_inbox.told_repeated`): an item
in the inbox is "already in your inbox"; one kept for the brain dump (deferred) is in no inbox
yet, and was said to be twice over ("Kept for the brain dump: call dentist." then "Already in
your inbox, so not added again: call dentist.")."""

from __future__ import annotations

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.service.late_inbox import told_repeated
from baton_agent_runner.service.ports import Mention


def _out(message: str, deferred: list[str] | None = None) -> AgentOutput:
    data = {"deferred_inbox_items": deferred} if deferred else {}
    return AgentOutput(message=message, extracted_data=data)


def test_a_kept_item_said_again_is_said_kept_once_in_place_of_the_kept_line() -> None:
    kept = texts.text("en", "task_kept", items="call dentist")
    out = _out(f"{kept} Which areas matter most?", ["call dentist"])
    told = told_repeated(out, "en", ["call dentist"], [], ["call dentist"])
    already = texts.text("en", "already_kept", items="call dentist")
    assert told.message == f"{already} Which areas matter most?"


def test_in_russian_the_kept_item_is_not_said_to_be_in_the_inbox() -> None:
    lead = texts.text("ru", "deferred", why="").strip()
    out = _out(f"{lead} Какие области главные?", ["позвонить маме"])
    told = told_repeated(out, "ru", ["Позвонить маме"], [], ["Позвонить маме"])
    already = texts.text("ru", "already_kept", items="Позвонить маме")
    assert told.message == f"{already} Какие области главные?"
    assert "Это уже сохранено до выгрузки мыслей" in already
    assert "уже есть в inbox" not in told.message


def test_a_kept_line_naming_new_items_too_stays_and_the_repeat_is_said_after_it() -> None:
    kept = texts.text("en", "task_kept", items="call dentist; buy milk")
    out = _out(kept, ["call dentist", "buy milk"])
    told = told_repeated(out, "en", ["call dentist"], [], ["call dentist"])
    assert told.message == f"{kept}\n{texts.text('en', 'already_kept', items='call dentist')}"


def test_an_item_in_the_inbox_said_again_is_still_already_in_the_inbox() -> None:
    out = _out("Saved to your inbox: fix the sink.")
    told = told_repeated(out, "en", ["call mom"], [])
    assert told.message.endswith(texts.text("en", "already_saved", items="call mom"))
    told = told_repeated(_out("Записал."), "ru", ["позвонить маме"], [])
    assert told.message.endswith("Это уже есть в inbox, второй раз не записываю: позвонить маме.")


def test_a_model_reply_without_a_kept_line_gets_the_kept_note_after_it() -> None:
    out = _out("Noted, I will keep that for later.", ["call dentist"])
    told = told_repeated(out, "en", ["call dentist"], [], ["call dentist"])
    assert told.message.endswith("\n" + texts.text("en", "already_kept", items="call dentist"))


def test_an_item_promoted_in_the_turn_is_not_told_again() -> None:
    out = _out("I have already added what we set aside earlier: call mom.")
    assert told_repeated(out, "en", ["call mom"], [Mention("x", "call mom")]) is out
