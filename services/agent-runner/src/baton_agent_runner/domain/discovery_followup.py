"""What discovery asks once the user has confirmed its summary but the step may not close yet:
seed 001's "Понять приоритеты между ними" and "Узнать текущую ситуацию и constraints", one
question a turn, each answer kept as a note; never its own last reply word for word."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from typing import Literal

from baton_agent_runner.domain import action_words, brain_dump
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.area_cases import nominative
from baton_agent_runner.domain.areas import AREA_PATTERNS, NAMES_ONLY, OWNING, SAYS_WHICH
from baton_agent_runner.domain.extracted import distinct
from baton_agent_runner.domain.ranked_below import names_one_area, without_areas_below
from baton_agent_runner.domain.readiness import PUTTING_OFF, puts_off
from baton_agent_runner.domain.scripted_turn import Turn, last_reply
from baton_agent_runner.domain.self_corrections import corrected
from baton_agent_runner.domain.skipping import asks_to_skip
from baton_agent_runner.domain.texts import in_every_language, text
from baton_agent_runner.domain.wording import normalised, words

QUESTIONS = ("focus", "constraints", "good_week")
"""The notes' keys, in the order they are asked: which area matters most now, what holds the
user back, and (asked only when the step still needs a turn) what would make a good week."""


def asked(turn: Turn) -> str | None:
    """The question the last reply ended on, in either language (None: it asked none)."""
    last = last_reply(turn).rstrip()
    return next((key for key in QUESTIONS if last.endswith(_questions(key))), None)


def next_question(turn: Turn) -> str | None:
    """The first question neither answered (a note) nor asked in the history (a "готово"
    to it said the user would rather not answer)."""
    said = [e.get("text", "") for e in turn.history if e.get("role") == "assistant"]
    return next(
        (
            key
            for key in QUESTIONS
            if key not in turn.notes and not any(q in s for s in said for q in _questions(key))
        ),
        None,
    )


def ask(language: lang.Lang, key: str, lead: str) -> str:
    """The question `key`, after `lead` ("Хорошо." to a confirmation, "Записал." to an answer)."""
    return f"{text(language, lead)} {text(language, f'discovery_ask_{key}')}"


def note(key: str, message: str, language: lang.Lang) -> str:
    """The answer as kept, as the user meant it (`language.corrected`): which area matters
    most names the area ranked first ("отношения — Семья, конечно"), alone when the answer is
    only its name ("health i guess": "health"), and without a lead-in ("Самое важное —
    здоровье, потом дача": "здоровье — здоровье, потом дача"); the others are the user's
    words."""
    # As the user meant it: "health i think... no wait, work" is work's alone; a yes to the
    # summary before it is no part of it ("да, всё так, только здоровье на первое место").
    said = _YES_BUT.sub("", " ".join(corrected(message).split()))
    if key == "focus":  # "health matters most, not work or my hobbies": neither in the note
        said = message = without_areas_below(said)
    found = _ranked(said, lang.areas_in(message)) if key == "focus" else []
    if not found:
        return said
    names = ", ".join(lang.AREA_NAMES[language][area] for area in found)
    # "работой" as "работа": the note read "работа — работой".
    said = nominative(_LEAD_IN.sub("", said) or said)
    # "работа — работа", "health — health" said nothing the area's name does not.
    if _names_only(said, found):
        return names
    return f"{names} — {said}"


# "yes, work first" to the summary: its yes too (the note read "work — yes, work first").
_YES_BUT = re.compile(
    r"^(?:(?:да|yes|yeah|yep)\b[\s,!.]*(?:(?:вс[её]\s+(?:так|верно|правильно)|that'?s\s+right)"
    r"[\s,!.]*)?(?:(?:только|но|but|just)\s+)?|(?:только|но|but|just)\s+)(?=\S)",
    re.IGNORECASE,
)
# What says an area is ranked first, before it: "Самое важное — здоровье", "главное семья",
# "most important: work". The note names the area already, so it keeps what follows.
_LEAD_IN = re.compile(
    r"^(?:(?:для\s+меня|for\s+me)[\s,]+)?(?:самое\s+(?:главное|важное)|главное|важнее\s+всего"
    r"|в\s+первую\s+очередь|прежде\s+всего|сначала|на\s+первом\s+месте"
    r"|(?:the\s+)?most\s+important(?:\s+(?:thing|one))?(?:\s+is)?|first\s+of\s+all"
    r"|above\s+all|top\s+priority(?:\s+is)?|number\s+one(?:\s+is)?)"
    # "Главное для меня сейчас — здоровье" was noted "здоровье — для меня сейчас — здоровье".
    r"(?:\s+(?:для\s+меня|сейчас|в\s+жизни|for\s+me|right\s+now|now))*"
    r"\s*(?:[—–:]|-\s)?\s*(?:это\b)?[\s,]*",
    re.IGNORECASE,
)
# Where a ranking goes on to the next area: "family first, then work", "здоровье, потом дача".
_THEN = re.compile(r",?\s*\b(?:(?:and|а|и)\s+)?(?:then|потом|затем|after\s+that)\b", re.IGNORECASE)


def _ranked(said: str, found: dict[str, str]) -> list[str]:
    """The areas `said` names as mattering most, in the order said: those before the first
    "then"/"потом" of a ranking ("kids and my mom come first, then work": relationships),
    all of them when it ranks none."""
    lowered = normalised(said)
    at = {area: hit.start() for area in found if (hit := AREA_PATTERNS[area].search(lowered))}
    ordered = sorted(found, key=lambda area: at.get(area, len(lowered)))
    first = _THEN.search(said)
    leading = [area for area in ordered if first and at.get(area, len(lowered)) < first.start()]
    return leading or ordered


def _names_only(said: str, areas: list[str]) -> bool:
    """Whether `said` is only the areas' names, in either language, and filler ("health i
    guess", "Работа."): no more than the note's area names say."""
    names = {lang.AREA_NAMES[language][area] for language in ("en", "ru") for area in areas}
    left = [word for word in words(said) if word not in _HEDGES]
    return bool(left) and all(word in names for word in left)


# A hedge says nothing a note would keep ("health i guess"); "Health, definitely", "Работа,
# конечно" say how sure the user is, and the note keeps them.
_HEDGES = frozenset({
    "i", "guess", "think", "suppose", "probably", "maybe", "perhaps", "well", "hmm", "um", "so",
    "ok", "okay", "ну", "наверное", "наверно", "пожалуй", "думаю", "может", "быть", "хм", "ок",
})  # fmt: skip


FILLER = frozenset({
    "i", "guess", "think", "suppose", "probably", "maybe", "perhaps", "definitely", "surely",
    "of", "course", "obviously", "well", "hmm", "um", "ok", "okay", "so", "yeah", "yes", "first",
    "then", "and", "also", "too", "still", "now", "right", "come", "comes", "is", "are", "most",
    "matters", "matter", "important", "the", "my", "tbh", "honestly", "really", "i'd", "say",
    "ну", "наверное", "пожалуй", "конечно", "наверно", "может", "быть", "думаю", "скорее",
    "всего", "сначала", "потом", "затем", "и", "а", "еще", "тоже", "это", "главное", "важнее",
    "самое", "важное", "сейчас", "пока", "мой", "моя", "мое", "мои", "да", "ок", "хм",
})  # fmt: skip
"""Words that say nothing of an area beside its name: "health i guess", "наверное, работа",
"probably family first" name the area and add nothing to a fact or note of it."""


def adds_nothing(said: str, kept: str = "") -> bool:
    """Whether what a message says of an area (`language.areas_in`) is only `FILLER`, area
    names ("health i guess", "work", "then work") and the area words of the fact `kept` for
    it ("yoga i guess" after "yoga twice a week"): nothing that would replace the fact the user
    gave it before ("my health is kinda bad tbh"). A word that names a kind of an area, not
    yet in its fact, says which: "hobbies, I mean gaming" after "hobbies: reading" was
    dropped as saying no more than "hobbies"."""
    known = set(words(kept))
    left = [word for word in words(said) if word not in FILLER and word not in OWNING]
    return not any(
        SAYS_WHICH.match(word)
        or not any(p.match(word) for p in AREA_PATTERNS.values())
        or not (NAMES_ONLY.fullmatch(word) or word in known)
        for word in left
    )


# A follow-up question passed over: "пропустим", "skip", "не знаю", "idk", "no idea", "next".
# Every word one of `_PASSING`, one of them a word of `_PASSES` or "не знаю"/"don't know";
# "потом" and "later" too, alone or with `PUTTING_OFF`'s words ("давай потом"). "Nothing"
# answers "what holds you back?", and "нет" answers it as well: neither is passing.
_PASSES = frozenset({
    "пропусти", "пропустим", "пропустить", "пропускаю", "дальше", "следующий", "хз", "skip",
    "pass", "next", "idk", "dunno", "понятия", "idea", "sure",
})  # fmt: skip
_PASSING = _PASSES | {
    "давай", "давайте", "можно", "этот", "вопрос", "не", "знаю", "пока", "без", "сложно",
    "трудно", "сказать", "ответить", "могу", "i", "don't", "dont", "know", "no", "not", "it",
    "this", "one", "question", "let's", "lets", "please", "пожалуйста", "maybe", "really", "yet",
    # "не знаю даже", "честно, не знаю", "вообще не знаю" were kept as the answer.
    "даже", "честно", "вообще", "ну", "хм", "honestly", "even",
}  # fmt: skip
_KNOW_NOT = re.compile(r"\b(?:не\s+знаю|(?:don'?t|do\s+not)\s+know|не\s+могу\s+сказать)\b")
# A question back ("а зачем тебе это?", "what do you mean by most?", "whats next?"): a
# question word opens it, past "а"/"и"/"and"/"so"/"wait". "Maybe family?" is an answer.
_ASKING = frozenset({
    "что", "зачем", "почему", "как", "кто", "когда", "где", "куда", "какой", "какая", "какие",
    "what", "what's", "whats", "why", "how", "who", "when", "where", "which", "is", "are",
    "do", "does", "can", "will",
})  # fmt: skip
_BEFORE_ASKING = frozenset({"а", "и", "ну", "так", "and", "so", "but", "wait", "ok", "okay"})
_NO_WORDS = re.compile(r"^\W*$|^(?:\W*\b(?:lol|lmao|haha\w*|ha|hah|хах\w*|ха|хех|хм+|hmm+)\b\W*)+$")


# A bare "no" answers "what holds you back?" (nothing does); to which area matters most or
# what would make a good week, it answers nothing ("хорошая неделя: нет" was kept).
_BARE_NO = frozenset({"нет", "неа", "ничего", "no", "nope", "nah", "nothing", "none"})


def no_answer(message: str, asked: str = "") -> Literal["pass", "question", "nothing"] | None:
    """What a message to the follow-up question `asked` says instead of an answer: that the
    user passes on it ("пропустим", "не знаю", "later"; a bare "no" but to "what holds you
    back?"), a question back ("а зачем тебе это?"), or nothing ("lol", an emoji); None for an
    answer. Each was kept as the answer, and the answers after it slipped one question
    ("потом" kept as what matters most)."""
    lowered = normalised(message)
    if _NO_WORDS.match(lowered):
        return "nothing"
    said = words(lowered)
    if asked != "constraints" and said and set(said) <= _BARE_NO:
        return "pass"
    if asks_to_skip(message):  # "пропусти этот шаг" was kept as the answer
        return "pass"
    passing = all(word in _PASSING for word in said) and (
        any(word in _PASSES for word in said) or bool(_KNOW_NOT.search(lowered))
    )
    if passing or (puts_off(message) and all(word in PUTTING_OFF for word in said)):
        return "pass"
    opening = [word for word in said if word not in _BEFORE_ASKING][:2]
    if opening and opening[0] in _ADDRESSED:  # "а тебе зачем?" was kept as the answer
        opening = opening[1:]
    if message.rstrip().endswith("?") and opening and opening[0] in _ASKING:
        return "question"
    return None


# Who a question back is about, before its question word: "а тебе зачем?", "а это зачем?".
_ADDRESSED = frozenset({"тебе", "тебя", "ты", "вам", "вас", "вы", "это", "мне", "you", "this"})


# Said before it is asked ("работа, семья, здоровье. главное семья, а мешает нехватка
# времени"): which area matters most, and what holds the user back. Both were asked again;
# so was a ranking ("kids and my mom come first, then work", "probably family first",
# "сначала семья, потом работа"). "First" ends its clause or comes before "then": "my
# first job" ranks nothing.
_FOCUS = re.compile(
    r"\b(?:главн\w*|важнее\s+всего|самое\s+важное|в\s+первую\s+очередь|прежде\s+всего"
    r"|сначала|на\s+первом\s+месте"
    # Asked of the summary: "только здоровье поставьте повыше", "здоровье на первое место"
    # replaced the fact of health with those words.
    r"|на\s+первое\s+место|повыше|(?:to|on)\s+(?:the\s+)?top\b"
    r"|most\s+important|matters?\s+(?:the\s+)?most|first\s+of\s+all|above\s+all"
    r"|top\s+priority|number\s+one|first(?=\s*(?:$|[,.;!?—–]|-\s|then\b)))"
)
_HOLDS_BACK = re.compile(
    r"\b(?:меша\w*|не\s+хватает|нехватк\w*|нет\s+(?:времени|сил)|устаю|выгора\w*"
    r"|holds?\s+me\s+back|no\s+time|not\s+enough\s+(?:time|energy)|lack\s+of|too\s+(?:tired|busy)"
    r"|burn(?:ed|t)?\s*out|struggl\w*)\b"
)
_VOLUNTEERED_CLAUSE = re.compile(
    r"[.;!?\n]+|,\s*(?=(?:а|но|и|but|and)\s)|,?\s+(?=(?:then|потом|затем)\b)"
)


def says_of(area: str, message: str) -> bool:
    """Whether the message says something of `area` in a clause that opens with it ("work: I
    switched to day shifts", "работа — теперь удалёнка")."""
    return any(
        # The head is area words only, an area's name or a kind of it ("yoga: every morning").
        area in lang.areas_in(head) and adds_nothing(head, kept=head)
        for head, _ in _HEADED.findall(message)
    )


_HEADED = re.compile(r"(?:^|[.;!?\n,])\s*([^.;!?\n,:—–]+?)\s*(?:[:—–]|\s-\s)\s*(\S[^.;!?\n]*)")
"""A clause that opens with a head and a colon or dash ("work: ...", "работа — ...")."""


def holds_back(message: str) -> bool:
    """Whether the message says what holds the user back anywhere in it ("family comes first,
    so no time for gym": the ranking's clause says it too)."""
    return bool(_HOLDS_BACK.search(normalised(message)))


def ranks(message: str) -> bool:
    """Whether the message ranks an area first ("family first", "главное — семья")."""
    return bool(_FOCUS.search(normalised(corrected(message))))


def volunteered(message: str, language: lang.Lang) -> dict[str, str]:
    """The notes a message gives before their questions are asked: `focus`, a clause that
    ranks one area first ("главное семья", "family matters most"), and `constraints`, one that
    says what holds the user back ("мешает нехватка времени", "no time is my problem")."""
    found: dict[str, str] = {}
    for clause in _VOLUNTEERED_CLAUSE.split(corrected(message)):
        said = " ".join(clause.split()).strip(" ,")
        lowered = normalised(said)
        if "focus" not in found and _FOCUS.search(lowered) and names_one_area(said):
            found["focus"] = note("focus", said, language)
        elif "constraints" not in found and _HOLDS_BACK.search(lowered):
            found["constraints"] = _without_joining(said)
    return found


def _without_joining(clause: str) -> str:
    """The clause without the joining word it starts with ("а мешает ...": "мешает ...")."""
    return re.sub(r"^(?:а|но|и|but|and)\s+", "", clause, flags=re.IGNORECASE)


# A new area said to "what holds you back?" or "what would make a good week?" is a priority
# only when the answer says so ("also finances matter to me"); "money tbh" holds one back.
_A_PRIORITY = re.compile(
    r"\b(?:priorit\w*|important|matters?|care\s+about|add|приоритет\w*|важн\w*|добав\w*"
    r"|главн\w*)\b"
)


def lists_priority(asked: str, message: str) -> bool:
    """Whether a message to the follow-up question `asked` names its areas as priorities: any
    that answers which matters most, another only in so many words."""
    return asked == "focus" or bool(_A_PRIORITY.search(normalised(message)))


def lines(language: lang.Lang, notes: dict[str, str]) -> list[str]:
    """The notes as summary lines, in the questions' order."""
    return [f"- {label}: {note}" for label, note in labelled(language, notes)]


def labelled(language: lang.Lang, notes: dict[str, str]) -> list[tuple[str, str]]:
    """Each note with what it answers ("matters most"), in the questions' order."""
    return [(text(language, f"note_{key}"), notes[key]) for key in QUESTIONS if key in notes]


def looks_like_tasks(message: str) -> bool:
    """A to-do list said to discovery, as the brain dump reads one: items naming no area, at
    least two of them or one asked about ("купить хлеб. А что будет с этим?")."""
    if lang.areas_in(message):
        return False
    items = brain_dump.split_items(message)
    return len(items) >= 2 or (len(items) == 1 and brain_dump.asks(message))


def only_actions(message: str) -> bool:
    """Whether every item of a to-do list (`looks_like_tasks`, which the caller has checked)
    is an action ("позвонить маме; оплатить налог", "call mom; pay rent"): said to "what holds
    you back?", it is no answer ("время; силы" is a list too, of no actions)."""
    items = brain_dump.split_items(message)
    return len(items) > 1 and all(action_words.is_action(item) for item in items)


def task_list(message: str) -> list[str]:
    """The items of a to-do list said to discovery, two or more naming no area ("позвонить
    маме; записаться к врачу"), kept for the brain dump; none for one item asked about
    ("купить хлеб. А что будет с этим?"), which as often is no task ("Interesting. How do you
    use it?")."""
    # Each item once: "buy milk, buy milk" is saved once, and the reply names it once.
    items = distinct(brain_dump.split_items(message)) if looks_like_tasks(message) else []
    return items if len(items) > 1 else []


def actions_beside_areas(message: str) -> list[str]:
    """The actions naming no area of a list that names an area in another item ("1. finish
    the report 2. call mom 3. go running": "finish the report", "call mom"), when each item
    naming no area is an action; none otherwise ("- sleep well\n- see friends\n- relax" is
    how a good week feels, no to-do list). The items naming areas are what the week is for,
    not tasks: `task_list` took none of such a list, and the two tasks never reached the
    inbox."""
    items = distinct(brain_dump.split_items(message))
    plain = [item for item in items if not lang.areas_in(item)]
    if len(items) < 2 or not plain or len(plain) == len(items):
        return []
    return plain if all(action_words.is_action(item) for item in plain) else []


def _questions(key: str) -> tuple[str, ...]:
    return in_every_language(f"discovery_ask_{key}")
