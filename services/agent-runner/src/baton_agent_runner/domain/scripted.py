"""The deterministic onboarding agents: seed 001 components 3 to 6 as rules, in ru and en."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from baton_agent_runner.domain import (
    action_lists,
    brain_dump,
    dump_item,
    finishing,
    inbox_requests,
    names,
    readiness,
    task_mentions,
)
from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain import inbox_corrections as corrections
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.extracted import distinct, same_item, to_remove, without_part
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted_discovery import discovery, then_asked
from baton_agent_runner.domain.scripted_greeter import greeter, question_again
from baton_agent_runner.domain.scripted_turn import (
    Reply,
    Turn,
    last_reply,
    last_reply_says,
    next_agent,
)
from baton_agent_runner.domain.step_context import is_last_message
from baton_agent_runner.domain.texts import text
from baton_agent_runner.domain.wording import words

__all__ = ["READS", "RULES", "STORED", "Turn", "reads", "run", "tidy"]

MIN_ITEMS = 3


def run(turn: Turn) -> AgentOutput:
    """One turn of the scripted agent named by `turn.agent`, on what the user said with its
    white space tidied (`tidied`)."""
    turn = tidied(turn)
    rules = RULES.get(turn.agent)
    if rules is None:
        return Reply(text(turn.language, "unknown_agent", agent=turn.agent)).output()
    deferred = _off_topic(turn) or _removal(turn) or _late_tasks(turn) or _task_said(turn)
    return (deferred or rules(turn)).output()


_LOOSE = re.compile(r"\s\s|[^\S ]")
"""White space that `tidy` may change: two in a row, or one other than a space."""
_BLANKS = re.compile(r"[^\S\n]+")
_LINE_BREAKS = re.compile(r"\n(?: ?\n)+")


def tidy(said: str) -> str:
    """`said` with each run of white space within a line one space, and each run of line
    breaks (blank lines between) one blank line: what the rules read means the same.

    The rules are regular expressions, and a run of white space is what a pattern that may
    start, or stop, at any space of it reads again and again: "work" with 8,000 spaces after
    it took the greeter 10 s, and each such pattern found made another message slow, in the
    one event loop every user's turn of the agent-runner waits on. One pass here makes every
    run one character, whatever pattern reads it next."""
    if _LOOSE.search(said) is None:
        return said
    return _LINE_BREAKS.sub("\n\n", _BLANKS.sub(" ", said))


def tidied(turn: Turn) -> Turn:
    """The turn with the user's message, and their earlier messages, `tidy`."""
    history = [
        {**entry, "text": tidy(entry["text"])}
        if entry.get("role") == "user" and _LOOSE.search(entry.get("text", ""))
        else entry
        for entry in turn.history
    ]
    message = tidy(turn.message)
    if message is turn.message and all(a is b for a, b in zip(history, turn.history, strict=True)):
        return turn
    return turn.model_copy(update={"message": message, "history": history})


def _removal(turn: Turn) -> Reply | None:
    """Asking, before the brain dump, to take out an item kept for it ("удали кроссовки, уже
    купил" after a to-do list said to discovery): removed as the brain dump removes one (the
    service says what became of it), and the step's last question asked again. It was met
    with the summary again, and the item stayed."""
    if turn.agent not in ("greeter", "discovery"):
        return None
    earlier = [e.get("text", "") for e in turn.history if e.get("role") == "user"]
    removal = inbox_requests.removal_request(turn.message, [*earlier, *turn.inbox_open])
    if removal is None or lang.areas_in(removal):  # "убери хобби" is discovery's
        return None
    # Without its lines naming the item: the reply may be the one that listed it ("Похоже на
    # дела — я сохранил их ...: купить хлеб; ...").
    named, lines = removal.casefold(), []
    for line in last_reply(turn).splitlines():
        if named not in line.casefold():
            lines.append(line)
        elif (asked := _LAST_QUESTION.search(line)) and named not in asked.group().casefold():
            lines.append(asked.group().strip())  # "... купить хлеб; ... Что мешает?"
    again = "\n".join(lines).strip() or text(turn.language, f"why_{turn.agent}")
    return Reply(again, data={"removed_inbox_items": [removal]})


_LAST_QUESTION = re.compile(r"[^.!?\n]*\?\s*$")
"""The question a line ends on: its last sentence, when that ends with "?"."""


def _off_topic(turn: Turn) -> Reply | None:
    """An inbox request outside the brain dump: acknowledge it, and keep it for the inbox step
    when one lies ahead, else save it now. The step goes on, with what the message said to it
    before the request ("Работа важна. Запиши ...")."""
    if turn.agent not in ("greeter", "discovery", "coordinator"):
        return None
    found = inbox_requests.inbox_request_at(turn.message)
    if found is None or (found.vague and turn.agent == "discovery" and lang.areas_in(found.item)):
        return None  # "Запомни: работа важнее всего" tells discovery a priority
    # Split as the brain dump would ("позвонить маме; купить хлеб" is two items); "Запиши в
    # inbox: потом" puts the request off, and holds none.
    # "Запиши в inbox: не забыть" names nothing to remember: no item, asked what it is.
    bare = inbox_requests.only_reminder(found.item)
    items = [] if found.put_off or bare else (brain_dump.split_items(found.item) or [found.item])
    key = "deferred_inbox_items" if turn.inbox_ahead else "inbox_items"
    kept = {key: items} if items else {}
    if turn.agent == "coordinator":  # the last step: it closes whatever the message says
        return _noted_at_the_end(turn, items, kept, bare=bare)
    before = turn.message[: found.start].strip()
    told = RULES[turn.agent](turn.model_copy(update={"message": before})) if before else None
    data = {**(told.data if told else {}), **kept}
    if told is not None and told.action == "complete_step":
        # "Понял, поехали! И запиши в inbox: купить молоко": the step closes as the words
        # before the request say, and the reply first tells what became of the request.
        noted = _noted(turn, items, why="", bare=bare)
        return Reply(f"{noted}\n{told.message}", told.action, told.reason, data)
    why = text(turn.language, f"why_{turn.agent}")
    # Then the question the step waits on: as the chat's first message, the greeter had not
    # introduced itself, and the reply ended on "Let's finish the introduction first" with no
    # introduction, nor any question, to follow.
    return Reply(_asked_again(turn, _noted(turn, items, why=why, bare=bare)), data=data)


_MAY_LIST = re.compile(r"[\n;,\d]|\s(?:and|и)\s", re.IGNORECASE)
"""What a message of two items or more has: lines, semicolons, a sentence's commas, the
numbers of a one-line list ("1. milk 2. bread"), or an "and" between two actions ("I need to
fix the sink and pay rent")."""


def _late_tasks(turn: Turn) -> Reply | None:
    """A to-do list said to the coordinator once the brain dump has closed ("buy milk, and
    book a dentist": two items or more, as discovery reads one): saved to the inbox as an
    inbox request is, and counted in the wrap-up, not dropped by it. Said to the greeter, it
    is kept for the brain dump, as discovery keeps one."""
    if turn.agent not in ("coordinator", "greeter"):
        return None
    key = "deferred_inbox_items" if turn.inbox_ahead else "inbox_items"
    if turn.agent == "coordinator" and (late := task_mentions.late_task(turn.message)):
        # One task remembered at the last moment ("oh and buy milk", "one more thing: renew
        # passport"), said to "send me anything when you are ready": saved, not dropped.
        return _noted_at_the_end(turn, [late], {key: [late]})
    if not _MAY_LIST.search(turn.message):  # every greeter turn asks: "hello" lists nothing
        return None
    items = followup.task_list(turn.message)
    # To the greeter only actions: lines of anything else are no to-do list this early (a
    # pasted block of text was saved line by line).
    if not items or (turn.agent == "greeter" and not followup.only_actions(turn.message)):
        return None
    if turn.agent == "greeter":  # said as the chat starts, it got the greeting, and was lost
        why, listed = text(turn.language, "why_greeter"), "; ".join(items)
        kept = "greeter_tasks_kept" if turn.inbox_ahead else "noted_now"
        return Reply(text(turn.language, kept, items=listed, why=why), data={key: items})
    return _noted_at_the_end(turn, items, {key: items})


def _task_said(turn: Turn) -> Reply | None:
    """A task said in passing to the greeter or discovery ("hi, remember to call mom btw", "oh
    and fix the bike too", "напомни мне завтра позвонить врачу"): kept for the brain dump as an
    inbox request is (saved now when no inbox step lies ahead), said so in a line, and the step
    goes on with the rest of the message, or asks its question again. It was answered as if
    the task had not been said ("I did not quite get that.") and lost."""
    if turn.agent not in ("greeter", "discovery"):
        return None
    found = task_mentions.task_mention(turn.message)
    if found is None:
        return None
    key = "deferred_inbox_items" if turn.inbox_ahead else "inbox_items"
    noted = text(turn.language, "task_kept" if turn.inbox_ahead else "noted", items=found.item)
    kept = {key: [found.item]}
    if not words(found.rest):
        return Reply(_asked_again(turn, noted), data=kept)
    told = RULES[turn.agent](turn.model_copy(update={"message": found.rest}))
    return Reply(f"{noted}\n{told.message}", told.action, told.reason, {**told.data, **kept})


def _asked_again(turn: Turn, said: str) -> str:
    """`said`, then the question the step waits on."""
    if turn.agent == "discovery":
        return then_asked(turn, said)
    return f"{said}\n{question_again(turn)}"


def _noted(turn: Turn, items: list[str], why: str, *, bare: bool = False) -> str:
    """What became of an inbox request: kept for the inbox step, or saved now; with no items,
    put off by the user, that it can wait, and naming nothing to remember (`bare`: "Запиши в
    inbox: не забыть"), what it is."""
    if bare:
        return f"{text(turn.language, 'inbox_remember_what')} {why}".strip()
    if not items:
        key = "put_off_ahead" if turn.inbox_ahead else "put_off"
        return text(turn.language, key, why=why).strip()
    if turn.inbox_ahead:
        return text(turn.language, "deferred", why=why).strip()
    return text(turn.language, "noted_now", items="; ".join(items), why=why).strip()


def _noted_at_the_end(
    turn: Turn, items: list[str], kept: dict[str, list[str]], *, bare: bool = False
) -> Reply:
    """The coordinator's wrap-up, after saying what became of the request."""
    if turn.inbox_ahead or not items:
        said = _noted(turn, items, why="", bare=bare).strip()
        wrap_up = _wrap_up(turn)
    else:
        said = text(turn.language, "noted", items="; ".join(items))
        counted = turn.inbox_count + len(items)
        wrap_up = _wrap_up(turn.model_copy(update={"inbox_count": counted}))
    wrap_up.message = f"{said}\n{wrap_up.message}"
    wrap_up.data = {**wrap_up.data, **kept}
    return wrap_up


def inbox_collector(turn: Turn) -> Reply:
    """Splits the message into inbox items, confirms them; completes on "done" with 3+ items;
    explains the brain dump when the message holds neither items nor "done". On a step a list
    widget closes, the list is what counts: no chat items are asked for, "done" completes once
    the workflow says the step can close, and until then the reply asks for the list."""
    earlier = [e.get("text", "") for e in turn.history if e.get("role") == "user"]
    # "удали кроссовки, уже купил"; of an item said before the history's window too: "удали
    # молоко" long after it was said was saved as the item "удали молоко".
    removal = inbox_requests.removal_request(turn.message, [*earlier, *turn.inbox_open])
    if inbox_requests.removes_last(turn.message):  # "delete the last one", "удали последнее"
        removal = _saved_last(turn)
        if removal is None:  # which one is last is not known: ask, naming the last few
            if not turn.inbox_open:
                return Reply(text(turn.language, "inbox_remove_nothing"))
            held = "; ".join(turn.inbox_open[-3:])
            return Reply(text(turn.language, "inbox_remove_last_which", items=held))
    # "no wait not milk, oat milk", "ой нет, подарок уже купила"
    fix = None if removal else corrections.read(turn.message, earlier, turn.inbox_open)
    if isinstance(fix, corrections.Unclear):  # "already did it": which one? nothing is saved
        if not fix.items:  # nothing saved it could mean
            return Reply(text(turn.language, "inbox_remove_missing", said=fix.said))
        items_held = "; ".join(reversed(fix.items))  # as said, the earliest first
        asked = "inbox_change_missing" if fix.changes else "inbox_done_which"
        if fix.meant:  # "I meant bread": into which item?
            asked = "inbox_change_which"
        return Reply(text(turn.language, asked, said=fix.said, items=items_held))
    later = brain_dump.puts_off(turn.message)  # "потом", "not now", "Запиши в inbox: потом"
    agreed = _agrees_to_close(turn)  # "ok" to "Before we close... anything else?"
    skip = later or removal or fix or agreed
    heard = [] if skip else distinct(brain_dump.dumped_items(turn.message))
    if heard and all(_bare_area(item) for item in heard):
        heard = []  # "health": still on discovery's priorities, no task
    if not turn.messages_in_step:
        # "not enough time" to the opening question: still discovery's "what holds you back?"
        # ("мало времени. купить хлеб" saves the bread alone).
        heard = [item for item in heard if not dump_item.tells_of_the_user(item)]
    items, again = _new_and_again(turn, heard)
    no = finishing.says_no(turn.message) or finishing.declines(turn.message) or later
    done = not removal and (
        brain_dump.says_done(turn.message) or (_asked_for_more(turn) and no) or agreed
    )
    # The service says what the removal did (`service.late_inbox.told_removed`): one item goes,
    # when one open item is what it names; "remove oat milk" with none left ("There is no ...")
    # was counted as one fewer all the same.
    gone = _removes_one(turn, removal) if removal else bool(fix and fix.new is None)
    total = turn.inbox_count + len(items) - (1 if gone else 0)
    widget_step = "widget_completed" in (_criteria(turn) or ())
    parts = []
    if turn.promoted:
        parts.append(text(turn.language, "promoted", items="; ".join(turn.promoted)))
    if items:
        parts.append(text(turn.language, "saved", items="; ".join(items), total=total))
    if again:
        parts.append(text(turn.language, "already_saved", items="; ".join(again)))
    data: dict[str, Any] = {"inbox_items": items} if items else {}
    if removal:  # its words were saved as an item ("удали кроссовки, уже купил")
        data["removed_inbox_items"] = [removal]
    if fix:  # the service says what became of it: "Changed: buy milk → buy oat milk."
        data["removed_inbox_items"] = [fix.old]
        if fix.new is not None:
            data.update(inbox_items=[fix.new], inbox_corrections={fix.old: fix.new})
    if done and widget_step and turn.can_complete:  # the list is in: the chat's count is not
        parts.append(text(turn.language, "inbox_widget_done"))
        return Reply(_then(turn, parts), "complete_step", "user_confirmed", data)
    key = _next_request(turn, bool(heard), done, total, widget_step)
    if key in _ASK_FOR_MORE and brain_dump.reminds_of_nothing(turn.message):
        key = "inbox_remember_what"  # "не забыть" alone: what is it? (no item, nor counted)
    if brain_dump.asks_how_many(turn.message):  # "why do you need 3 items?"
        parts.append(text(turn.language, "inbox_how_many", least=MIN_ITEMS))
    elif (topic := brain_dump.asked_about(turn.message)) is not None:
        # "how long does this take?", "who will see this": answered as discovery answers it.
        parts.append(text(turn.language, f"faq_{topic}"))
    elif brain_dump.asks(turn.message) and key not in _SAY_WHAT_BECOMES_OF_ITEMS:
        parts.append(text(turn.language, "inbox_answer"))  # "what happens to these?"
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


def _saved_last(turn: Turn) -> str | None:
    """The open item saved last, as the agent's replies told it ("Saved to your inbox: a; b.
    Items so far: 2."): the latest one still open (`inbox_open`), None when none is told."""
    held = {same_item(content): content for content in turn.inbox_open}
    for entry in reversed(turn.history):
        if entry.get("role") != "assistant":
            continue
        said = entry.get("text", "")
        for told in reversed([found for saved in _SAVED for found in saved.finditer(said)]):
            for item in reversed(told.group("items").split("; ")):
                if same_item(item) in held:
                    return held[same_item(item)]
    return None


def _saved_pattern(code: lang.Lang) -> re.Pattern[str]:
    """What the "saved" reply says in one language, its items as the group `items`."""
    before, _, after = text(code, "saved", items="\x00", total="\x01").partition("\x00")
    ending = after.partition("\x01")[0]
    return re.compile(f"{re.escape(before)}(?P<items>[^\\n]*?){re.escape(ending)}\\d")


_SAVED = (_saved_pattern("ru"), _saved_pattern("en"))


def _removes_one(turn: Turn, removal: str) -> bool:
    """Whether taking `removal` out removes a whole item the inbox holds open, as the store
    reads it (`to_remove`, `without_part`): none holding it, several (which one?) or a part of
    one (the rest stays an item) leave as many items as before."""
    found = to_remove(turn.inbox_open, removal)
    return len(found) == 1 and without_part(turn.inbox_open[found[0]], removal) is None


_AREA_JOINS = frozenset({"and", "и", "my", "мой", "моя", "моё", "мое", "мои"})


def _bare_area(item: str) -> bool:
    """The item only names life areas ("health", "работа и семья"): no task. An action of area
    words is one ("learn guitar", "учиться рисовать" were dropped unsaved)."""
    said = words(item)
    if not 0 < len(said) <= 3 or action_lists.is_action(item):
        return False
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
    """The message is a bare "ok" (`_OK_ALONE`) to the brain dump's closing question
    (`inbox_not_yet`): nothing more, so done, as a "no" to it is."""
    said = words(turn.message)
    return len(said) == 1 and said[0] in _OK_ALONE and last_reply_says(turn, "inbox_not_yet")


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


def coordinator(turn: Turn) -> Reply:
    """Congratulates with the counts and explains what comes next; the workflow completes.
    A refusal ("нет", "not yet", "подожди") to the brain dump's "send me anything when you are
    ready" waits instead: it completed onboarding all the same. Not on the step's last message
    (`max_messages`): the workflow closes the step after it whatever the reply, and "no rush"
    would promise a wait that does not come."""
    if readiness.is_not_ready(turn.message) and not is_last_message(turn.step):
        return Reply(text(turn.language, "coordinator_wait"))
    return _wrap_up(turn)


def _wrap_up(turn: Turn) -> Reply:
    """The coordinator's congratulation with the counts, completing the step."""
    counts = {"facts": len(turn.facts), "items": turn.inbox_count}
    name = names.known_name(turn.step)
    if name is None:
        message = text(turn.language, "coordinator", **counts)
    else:
        message = text(turn.language, "coordinator_named", name=name, **counts)
    return Reply(message, "complete_step", "criteria_met")


RULES: dict[str, Callable[[Turn], Reply]] = {
    "greeter": greeter,
    "discovery": discovery,
    "inbox_collector": inbox_collector,
    "coordinator": coordinator,
}

STORED = frozenset({"facts", "notes", "inbox_count", "inbox_open"})
"""The fields of a `Turn` the service reads from its stores for the turn (not the command)."""

READS: dict[str, frozenset[str]] = {
    "greeter": frozenset(),  # its closing reads what was named off the history
    "discovery": frozenset({"facts", "notes"}),
    "inbox_collector": frozenset({"inbox_count", "inbox_open"}),
    "coordinator": frozenset({"facts", "inbox_count"}),
}
"""Which of `STORED` each agent's rules look at; a test keeps this true of `RULES`."""


def reads(agent: str) -> frozenset[str]:
    """The stored fields the rules of `agent` read (an agent without rules reads none)."""
    return READS.get(agent, frozenset())
