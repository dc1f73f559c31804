"""The deterministic onboarding agents: seed 001 components 3 to 6 as rules, in ru and en."""

from __future__ import annotations

import re
from collections.abc import Callable

from baton_agent_runner.domain import (
    brain_dump,
    inbox_requests,
    names,
    readiness,
    task_mentions,
)
from baton_agent_runner.domain import discovery_followup as followup
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.discovery_replies import summary_shown, then_asked
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted_discovery import discovery, fact_holding
from baton_agent_runner.domain.scripted_greeter import greeter, question_again
from baton_agent_runner.domain.scripted_inbox import inbox_collector
from baton_agent_runner.domain.scripted_turn import (
    Reply,
    Turn,
    last_reply,
)
from baton_agent_runner.domain.step_context import is_last_message
from baton_agent_runner.domain.texts import text
from baton_agent_runner.domain.top_priority import asks_change, top_change
from baton_agent_runner.domain.translit import with_russian_i
from baton_agent_runner.domain.wording import words
from baton_agent_runner.domain.wrap_up_recaps import asks_recap, recap

__all__ = ["READS", "RULES", "STORED", "Turn", "reads", "run", "tidy"]


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
    run one character, whatever pattern reads it next.

    A Latin "i" between Russian words is read as the "и" meant (`with_russian_i`), here once
    for every rule that reads the message ("работа i здоровье" was one fact for both areas)."""
    if _LOOSE.search(said) is not None:
        said = _LINE_BREAKS.sub("\n\n", _BLANKS.sub(" ", said))
    return with_russian_i(said)


def tidied(turn: Turn) -> Turn:
    """The turn with the user's message, and their earlier messages, `tidy`."""
    history = [
        {**entry, "text": said}
        if entry.get("role") == "user"
        and (said := tidy(entry.get("text", ""))) != entry.get("text")
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
    if (
        turn.agent == "discovery"
        and fact_holding(removal, turn.facts)
        and not any(removal.casefold() in item.casefold() for item in turn.inbox_open)
    ):
        return None  # "remove pottery" of the fact "hobbies: pottery" is discovery's too
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
    if told is not None and (told.action == "complete_step" or told.data):
        # "Понял, поехали! И запиши в inbox: купить молоко": the step closes as the words
        # before the request say, and the reply first tells what became of the request.
        # So with the facts they save: "health, I skip the gym. Remind me to book a physio"
        # was asked about health again, as if it had not been named.
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
    if turn.agent not in ("coordinator", "greeter") or asks_change(turn.message):
        return None  # "change my top priority" was saved as a task remembered late
    key = "deferred_inbox_items" if turn.inbox_ahead else "inbox_items"
    if turn.agent == "coordinator" and (late := task_mentions.late_task(turn.message)):
        # One task remembered at the last moment ("oh and buy milk", "one more thing: renew
        # passport"), said to "send me anything when you are ready": saved, not dropped.
        return _noted_at_the_end(turn, [late], {key: [late]})
    if not _MAY_LIST.search(turn.message):  # every greeter turn asks: "hello" lists nothing
        return None
    # "actually also buy hiking boots and charge the headlamp": its lead no part of the list.
    said = task_mentions.past_late_lead(turn.message) if turn.agent == "coordinator" else ""
    items = followup.task_list(said or turn.message)
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
    # An errand of an area the summary holds ("I need to renew my gym membership") replaced
    # that area's fact.
    known = turn.facts.keys() if turn.agent == "discovery" and summary_shown(turn) else set()
    found = task_mentions.task_mention(turn.message, known)
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


def coordinator(turn: Turn) -> Reply:
    """Congratulates with the counts and explains what comes next; the workflow completes.
    A refusal ("нет", "not yet", "подожди") to the brain dump's "send me anything when you are
    ready" waits instead: it completed onboarding all the same. Not on the step's last message
    (`max_messages`): the workflow closes the step after it whatever the reply, and "no rush"
    would promise a wait that does not come."""
    if readiness.is_not_ready(turn.message) and not is_last_message(turn.step):
        return Reply(text(turn.language, "coordinator_wait"))
    wrap_up = _wrap_up(turn)
    if (top := top_change(turn)) is not None:  # "change my top priority" was ignored
        said, notes = top
        if notes:
            wrap_up.message, wrap_up.data = f"{said}\n{wrap_up.message}", {"notes": notes}
        elif not is_last_message(turn.step):
            return Reply(said)  # which area? the step waits on the answer
    if turn.facts and asks_recap(turn.message):  # "what did I say my priorities were?"
        wrap_up.message = f"{recap(turn.language, turn.facts)}\n{wrap_up.message}"
    return wrap_up


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
