"""The scripted brain dump agent (`inbox_collector`): the items a message holds, saved and
counted; a removal or a correction of one; and when the step may close."""

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain import (
    action_lists,
    action_words,
    brain_dump,
    dump_item,
    finishing,
    readiness,
)
from baton_agent_runner.domain import inbox_corrections as corrections
from baton_agent_runner.domain import inbox_removals as removals
from baton_agent_runner.domain import inbox_restores as restores
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.adding_later import asks_to_add_later
from baton_agent_runner.domain.closing_words import ok_and_thanks, only_thanks
from baton_agent_runner.domain.extracted import distinct, same_item
from baton_agent_runner.domain.never_mind import only_never_mind
from baton_agent_runner.domain.scripted_turn import (
    Reply,
    Turn,
    last_reply,
    last_reply_says,
    next_agent,
)
from baton_agent_runner.domain.texts import text
from baton_agent_runner.domain.wording import words

MIN_ITEMS = 3


def inbox_collector(turn: Turn) -> Reply:
    """Splits the message into inbox items, confirms them; completes on "done" with 3+ items;
    explains the brain dump when the message holds neither items nor "done". On a step a list
    widget closes, the list is what counts: no chat items are asked for, "done" completes once
    the workflow says the step can close, and until then the reply asks for the list."""
    earlier = [e.get("text", "") for e in turn.history if e.get("role") == "user"]
    back = restores.restored(turn)  # "don't remove the flights, I need them after all"
    removal, which = (None, None) if back else removals.asked(turn, earlier)
    if which is not None:
        return which
    # "no wait not milk, oat milk", "ой нет, подарок уже купила"
    # "cancel #2 i already did it" counts the list shown, as "remove #2" does.
    shown = removals.told_saved(turn)
    fix = (
        None if removal or back else corrections.read(turn.message, earlier, turn.inbox_open, shown)
    )
    if isinstance(fix, corrections.Unclear):  # "already did it": which one? nothing is saved
        return _which_meant(turn, fix)
    later = brain_dump.puts_off(turn.message)  # "потом", "not now", "Запиши в inbox: потом"
    agreed = _agrees_to_close(turn)  # "ok" to "Before we close... anything else?"
    heard = [back] if back else [] if later or removal or fix or agreed else _heard(turn)
    items, again = _new_and_again(turn, heard)
    no = finishing.says_no(turn.message) or finishing.declines(turn.message) or later
    done = not removal and (
        brain_dump.says_done(turn.message) or (_asked_for_more(turn) and no) or agreed
    )
    # The service says what the removal did (`service.late_inbox.told_removed`): one item goes,
    # when one open item is what it names; "remove oat milk" with none left ("There is no ...")
    # was counted as one fewer all the same.
    gone = removals.removes_one(turn, removal) if removal else bool(fix and fix.new is None)
    total = turn.inbox_count + len(items) - (1 if gone else 0)
    widget_step = "widget_completed" in (_criteria(turn) or ())
    parts, data = _told(turn, items, again, total), _data(items, removal, fix)
    if done and widget_step and turn.can_complete:  # the list is in: the chat's count is not
        parts.append(text(turn.language, "inbox_widget_done"))
        return Reply(_then(turn, parts), "complete_step", "user_confirmed", data)
    key = _next_request(turn, bool(heard), done, total, widget_step)
    return _ending(turn, key, parts, data, later=later, total=total)


def _which_meant(turn: Turn, fix: corrections.Unclear) -> Reply:
    """A correction whose item is not known ("already did it", "I meant bread"): which one it
    means, naming the items it could, or that none is saved; nothing is saved."""
    if not fix.items:  # nothing saved it could mean
        return Reply(text(turn.language, "inbox_remove_missing", said=fix.said))
    items_held = "; ".join(reversed(fix.items))  # as said, the earliest first
    asked = "inbox_change_missing" if fix.changes else "inbox_done_which"
    if fix.meant:  # "I meant bread": into which item?
        asked = "inbox_change_which"
    return Reply(text(turn.language, asked, said=fix.said, items=items_held))


def _heard(turn: Turn) -> list[str]:
    """The items the message holds, but for life areas alone ("health": still on discovery's
    priorities, no task) and, as the step starts, what tells of the user ("not enough time"
    to the opening question: still discovery's "what holds you back?"; "мало времени. купить
    хлеб" saves the bread alone)."""
    heard = distinct(brain_dump.dumped_items(turn.message))
    if heard and all(_bare_area(item) for item in heard):
        return []
    if not turn.messages_in_step:
        return [item for item in heard if not dump_item.tells_of_the_user(item)]
    return heard


def _told(turn: Turn, items: list[str], again: list[str], total: int) -> list[str]:
    """The reply's lines of what became of the items: promoted from earlier steps, saved now
    (with the count), and said again though already saved; "never mind" alone, that nothing
    was."""
    parts = []
    # "forget it", "забей": it was saved as an item; not "забудь" that takes back the last
    if only_never_mind(turn.message) and not removals.forgets_last(turn):
        parts.append(text(turn.language, "inbox_never_mind"))
    if turn.promoted:
        parts.append(text(turn.language, "promoted", items="; ".join(turn.promoted)))
    if items:
        parts.append(text(turn.language, "saved", items="; ".join(items), total=total))
    if again:
        parts.append(text(turn.language, "already_saved", items="; ".join(again)))
    return parts


def _data(items: list[str], removal: str | None, fix: corrections.Changed | None) -> dict[str, Any]:
    """What the turn extracts: the items to save, the one to remove, and a correction (the
    service says what became of it: "Changed: buy milk → buy oat milk.")."""
    data: dict[str, Any] = {"inbox_items": items} if items else {}
    if removal:  # its words were saved as an item ("удали кроссовки, уже купил")
        data["removed_inbox_items"] = [removal]
    if fix:
        data["removed_inbox_items"] = [fix.old]
        if fix.new is not None:
            data.update(inbox_items=[fix.new], inbox_corrections={fix.old: fix.new})
    return data


def _ending(
    turn: Turn, key: str, parts: list[str], data: dict[str, Any], *, later: bool, total: int
) -> Reply:
    """The reply's end: what a question in the message asks answered, then the text `key`
    (what the brain dump asks next, or its closing, which completes the step)."""
    if key in _ASK_FOR_MORE and brain_dump.reminds_of_nothing(turn.message):
        key = "inbox_remember_what"  # "не забыть" alone: what is it? (no item, nor counted)
    parts.extend(_answers(turn, key))
    # Closing on "later", it says the rest can wait, not "Great" as to "nothing more".
    said = "inbox_done_later" if key == "inbox_done" and later else key
    counts = {"need": MIN_ITEMS - total, "total": total, "least": MIN_ITEMS}
    parts.append(text(turn.language, said, **counts))
    if key == "inbox_done":
        return Reply(_then(turn, parts), "complete_step", "user_confirmed", data)
    if key == "inbox_more" and "\n".join(parts) == last_reply(turn).strip():
        # Nothing new to say ("спасибо" after it): not the same reply word for word again.
        parts[-1] = text(turn.language, "inbox_more_again", **counts)
    return Reply("\n".join(parts), data=data)


def _answers(turn: Turn, key: str) -> list[str]:
    """The answer to a question the message asks, before what the reply asks next."""
    if brain_dump.asks_how_many(turn.message):  # "why do you need 3 items?"
        return [text(turn.language, "inbox_how_many", least=MIN_ITEMS)]
    if (topic := brain_dump.asked_about(turn.message)) is not None:
        # "how long does this take?", "who will see this": answered as discovery answers it.
        return [text(turn.language, f"faq_{topic}")]
    if asks_to_add_later(turn.message):  # "can I add things later?": yes
        return [text(turn.language, "inbox_add_later")]
    if brain_dump.asks(turn.message) and key not in _SAY_WHAT_BECOMES_OF_ITEMS:
        return [text(turn.language, "inbox_answer")]  # "what happens to these?"
    return []


_AREA_JOINS = frozenset({"and", "и", "my", "мой", "моя", "моё", "мое", "мои"})


def _bare_area(item: str) -> bool:
    """The item only names life areas ("health", "работа и семья"): no task. An action of area
    words is one ("learn guitar", "учиться рисовать" were dropped unsaved), and so is a verb
    alone ("выспаться", "похудеть", "exercise", "sleep" were dropped as health)."""
    said = words(item)
    if not 0 < len(said) <= 3 or action_words.is_action(item):
        return False
    if action_lists.says_a_deed(said):
        return False  # "выспаться", "sleep": a thing to do, though its word names health
    return all(w in _AREA_JOINS or lang.areas_in(w) for w in said)


def _new_and_again(turn: Turn, heard: list[str]) -> tuple[list[str], list[str]]:
    """The items heard that the inbox does not hold yet, and those it holds (`inbox_open`):
    said again ("call mom" deferred at discovery, or in an earlier message), they are not
    saved, nor counted, twice. Those promoted in this turn are told as such, not as repeats."""
    held = {same_item(content) for content in turn.inbox_open}
    shown = {same_item(content) for content in turn.promoted}
    new = [item for item in heard if same_item(item) not in held]
    return new, [item for item in heard if same_item(item) in held - shown]


def _then(turn: Turn, parts: list[str]) -> str:
    """The brain dump's closing reply, with what the user does next when the coordinator's
    wrap-up follows (it answers a message; nothing else starts it)."""
    if next_agent(turn) == "coordinator":
        parts[-1] = f"{parts[-1]} {text(turn.language, 'then_summary')}"
    return "\n".join(parts)


def _asked_for_more(turn: Turn) -> bool:
    """Whether the last reply asked for anything else ("Anything else?", "может, ещё что-то
    висит в голове?"), in either language, so that a "no" says the user is done."""
    return last_reply_says(turn, *_MORE)


_MORE = ("inbox_anything_else", "inbox_not_yet")
# A bare "ok" to the closing question ("Before we close... anything else, even something
# small?") looped on "Anything else?"; "k" was saved as an item.
_OK_ALONE = frozenset({"ok", "okay", "k", "kk", "okey", "ок", "окей", "оке", "ладно"})


def _agrees_to_close(turn: Turn) -> bool:
    """The message is a bare "ok" (`_OK_ALONE`) or thanks alone ("thx") to the brain dump's
    closing question (`inbox_not_yet`), or "ok thanks" to it or to "Anything else?": nothing
    more, so done, as a "no" to it is."""
    said = words(turn.message)
    if ok_and_thanks(turn.message):  # "ok thanks" to "Anything else?" too: it was neither
        return _asked_for_more(turn)
    agrees = (len(said) == 1 and said[0] in _OK_ALONE) or only_thanks(turn.message)
    return agrees and last_reply_says(turn, "inbox_not_yet")


_ASK_FOR_MORE = frozenset({"inbox_more", "inbox_explain", "inbox_anything_else"})
"""Texts that end the brain dump's reply asking for more items: a reminder's lead-in alone
asks instead what it was meant to remind of ("inbox_remember_what")."""

_SAY_WHAT_BECOMES_OF_ITEMS = frozenset({"inbox_explain", "inbox_widget"})
"""Texts that answer a question about what becomes of the items themselves."""


def _next_request(turn: Turn, items: bool, done: bool, total: int, widget_step: bool) -> str:
    """The text that ends the brain dump's reply: done, or what it asks for next."""
    if done and total >= MIN_ITEMS and _may_complete(turn):
        return "inbox_done"
    if not (items or done) and _not_ready_yet(turn):
        return "inbox_widget_wait" if widget_step else "inbox_wait"
    if widget_step:
        # A list the user fills in closes the step, not items counted here; said once in full.
        told = last_reply_says(turn, "inbox_widget", "inbox_widget_again")
        return "inbox_widget_again" if told else "inbox_widget"
    if total >= MIN_ITEMS:
        # Said "that's all" before the step may close (its `min_messages`): "say 'that's
        # all' when you are finished" would answer it as if it had not been said.
        return "inbox_not_yet" if done else "inbox_anything_else"
    if done and brain_dump.says_done(turn.message):
        return "inbox_too_few"  # "это всё" with too few: heard, and told what is missing
    # The explanation once, as the step starts: "ok" or "thanks" after it, or after items were
    # saved, was answered with the whole explanation again.
    started = bool(turn.messages_in_step) and not last_reply_says(turn, *_WAITS)
    return "inbox_more" if items or done or started else "inbox_explain"


def _not_ready_yet(turn: Turn) -> bool:
    """A "no" ("нет", "not yet", "не готова") to discovery's closing "Ready?", or a short
    decline ("not now", "maybe later", "пока ничего", "Запиши в inbox: потом"), as the step
    starts, or again after the brain dump said there is no rush."""
    starts = not turn.messages_in_step or last_reply_says(turn, *_WAITS)
    said = turn.message
    put_off = brain_dump.puts_off(said)  # "Запиши в inbox: потом"
    return starts and (readiness.is_not_ready(said) or finishing.declines(said) or put_off)


_WAITS = ("inbox_wait", "inbox_widget_wait")


def _may_complete(turn: Turn) -> bool:
    """The workflow's pre-check, or its message count alone: the pre-check counted the inbox
    before this turn's items were saved, so a third item sent with "that's all" would never
    complete. The workflow checks the real criteria again when it applies the signal. The
    count alone is enough only on a step whose criteria the turn itself can meet: on one
    closed by a widget, "that's all" completed nothing, yet the answer said it had."""
    if turn.can_complete:
        return True
    if turn.messages_in_step is None or turn.min_messages is None:
        return False
    criteria = _criteria(turn)
    if criteria is not None and not criteria <= _MET_BY_THE_TURN:
        return False  # another criterion (a widget the user completes) is not this turn's
    return turn.messages_in_step + 1 >= turn.min_messages


_MET_BY_THE_TURN = frozenset({"agent_signal", "min_messages", "inbox_items"})
"""Criteria this turn itself can meet: its signal, its message, the items it saves."""


def _criteria(turn: Turn) -> frozenset[str] | None:
    """The step's criteria as the workflow sent them (None from one that does not say)."""
    criteria = turn.step.get("criteria")
    if not isinstance(criteria, list):
        return None
    return frozenset(name for name in criteria if isinstance(name, str))
