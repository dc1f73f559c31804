"""Reading a message to the greeter: readiness, a plea to wait, confusion, the next step."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from baton_agent_runner.domain.impatience import IMPATIENT
from baton_agent_runner.domain.wording import (
    clauses,
    has_phrase,
    hits,
    negated_next_to,
    normalised,
    starts,
    words,
)

# Phrases are matched as whole words on the normalised text (lowercase, "е" for "ё").
READY = (
    "понял", "поняла", "понятно", "давай", "давайте", "поехали", "готов", "готова", "ок",
    "got it", "let's go", "lets go", "ready", "ok", "okay", "sure", "go ahead",
    "can't wait", "cant wait", "cannot wait", "начнем", "начинаем", "let's start", "lets start",
    "let's begin", "lets begin", "ясно", "understood", "i understand", "let's do it",
    "lets do it", "let's do this", "lets do this", "sounds good", "count me in",
    "погнали", "вперед",
    # Answered with "Ready to start?" again.
    "we can begin", "we can start", "паехали", "поехали уже",
    # Said to "Ready to start?" and answered with it again: "let's get started" looped.
    "let's get started", "lets get started", "let's get going", "lets get going", "let's roll",
    "lets roll", "go for it", "bring it on", "sounds like a plan",
    "okey dokey", "okie dokie", "let's goo", "lets goo", "let's gooo", "lets gooo",
    # Asking the greeter to go on ("начинай", "Хорошо, продолжай", "ну попробуем") got its
    # explanation again.
    "начинай", "начинайте", "продолжай", "продолжайте", "продолжаем", "продолжим", "попробуем",
    # Russian in Latin letters ("ok davai", "poehali"): see `translit`.
    "davai", "davay", "davaj", "poehali", "poekhali", "pognali", "gotov", "gotova", "ponyal",
    "ponyala", "ponyatno",
    *IMPATIENT,
)  # fmt: skip
# "Go" is readiness only alone, or with these ("go!", "ok go", "го"): "where do I go?" is not;
# so are "start", "begin" ("ok, start"): "where do I start?" is no readiness; and asking to
# skip the introduction ("skip", "skip the intro", "next", "дальше") was answered with it.
GO, WITH_GO = (
    frozenset(
        {
            "go",
            "го",
            "gogo",
            "start",
            "begin",
            "letsgo",
            "lesgo",
            "lessgo",
            "skip",
            "next",
            "continue",
            "proceed",
            "дальше",
            "пропусти",
            "пропустим",
            "bet",
        }
    ),
    frozenset(
        {
            "ok",
            "okay",
            "ок",
            "ну",
            "then",
            "ahead",
            "the",
            "this",
            "it",
            "intro",
            "introduction",
            "please",
            "pls",
            "давай",
            "вступление",
            "это",
            # "норм, го", "ладно го", "yes go" got the introduction again.
            "норм",
            "ладно",
            "окей",
            "да",
            "yes",
            "yeah",
            "alright",
            "fine",
            "whatever",
        }
    ),
)
_WAIT = ("подожди", "погоди", "пока нет", "еще нет", "not yet", "wait", "hold on")
# "Вопросов пока нет" answers the greeter's "any questions?": its "пока нет" is no "not yet",
# and its "нет" (as "no questions") no "no" to starting.
_NO_QUESTIONS = re.compile(
    r"\b(?:(?:пока|еще|больше)\s+)?(?:нет|никаких)\s+(?:(?:пока|еще|больше)\s+)?вопрос\w*"
    r"|\bвопрос\w*\s+(?:(?:у\s+меня|пока|еще|больше|вроде|тоже)\s+)*нет\b"
    r"|\bno\s+(?:more\s+)?questions?\b"
)
# Putting it off: a clause of these words alone, with one of `LATER` ("Давай позже", "maybe
# later", "не сейчас", "not now"); "Поехали, потом разберусь" is ready.
LATER = frozenset({"позже", "попозже", "потом", "later", "завтра", "tomorrow"})
_NOT_NOW = ("не сейчас", "not now", "not right now", "другой раз", "another time")
PUTTING_OFF = LATER | {
    "давай", "давайте", "может", "можно", "лучше", "ну", "пожалуйста", "тогда", "в", "как",
    "нибудь", "не", "сейчас", "другой", "раз", "maybe", "perhaps", "let's", "lets", "do", "it",
    "this", "please", "not", "now", "right", "another", "time", "some", "other", "then",
}  # fmt: skip
# A bare "no" to starting: every word one of these, one of them a "no" ("Нет", "Не-а", "Not
# really", "No thanks"); "Нет, давай" is ready, "Нет вопросов" a calm answer.
NO = frozenset({"нет", "неа", "не", "no", "nope", "nah", "not"})
SAYING_NO = NO | {
    "а", "пока", "еще", "совсем", "спасибо", "извини", "ну", "really", "quite", "yet", "thanks",
    "thank", "you", "sorry", "well", "i", "think", "guess",
}  # fmt: skip
# A readiness word asked about, not said: "готов ли я", "if I'm ready", "whether I'm ready".
_ASKED_AFTER, _ASKED_BEFORE = "ли", frozenset({"if", "whether"})
_NEXT_QUESTION = (
    "что дальше", "что теперь", "какой следующий", "what's next", "what next", "what now",
    "next step", "что потом",
)  # fmt: skip
# A question ending on "дальше", "потом" or "next" ("А дальше что?", "What happens next?"),
# or one about the next step or stage in Russian ("Что будет на следующем шаге?", "А следующий
# этап какой?") or about what comes after this ("What comes after this?", "А после этого?").
_NEXT_ASKED = re.compile(
    r"\b(?:(?:дальше|потом)(?:\s+что)?|next)\s*\?"
    r"|\bследующ\w*\s+(?:шаг|этап)\w*[^.!?]*\?|\b(?:шаг|этап)\w*\s+следующ\w*[^.!?]*\?"
    r"|\b(?:after\s+(?:this|that)|после\s+этого)\b[^.!?]*\?"
)
_CONFUSED = (
    "непонятно", "неясно", "запутал", "запуталась", "запутался", "в смысле", "confused",
    "unclear", "what do you mean", "еще раз", "повтори", "объясни", "поясни", "explain",
    "once more", "one more time", "say that again", "repeat", "не догоняю", "i'm lost",
    "im lost", "что это значит", "what does that mean", "what does it mean", "what is this",
    "what's this", "что это такое", "что такое", "зачем мне это", "зачем это",
    # "А что это вообще такое и зачем оно мне?" got only the plain greeting.
    "что это вообще такое", "что это вообще", "зачем оно мне", "зачем мне оно", "зачем оно",
    "зачем мне это все", "зачем это все",
)  # fmt: skip
# A bare question is confusion too: "Что?", "Чего?", "What?", "Huh?", "??", "Ok, but what?".
_BARE_QUESTION_WORDS = frozenset({
    "что", "чего", "че", "чо", "а", "э", "как", "what", "huh", "eh", "sorry", "pardon", "hm",
    "hmm", "но", "but",
})  # fmt: skip
_STOPS = ".!?…"
_AFTER_A_BUT = re.compile(r",|\b(?:but|но)\b")
_UNDERSTOOD = (
    "понял", "поняла", "понятно", "понимаю", "ясно", "уверен", "уверена",
    "understand", "understood", "get it", "got it", "clear", "sure",
)  # fmt: skip
"""Said with a negation before them ("не понятно", "not sure"), these are confusion."""


Readiness = Literal["confused", "waiting", "ready"]


@lru_cache(maxsize=64)  # a turn asks it up to three times of the same message
def readiness(text: str) -> Readiness | None:
    """What the last clause that speaks of readiness says: confusion ("непонятно", "I don't get
    it"), a plea to wait ("подожди", "не готов", "not yet") or readiness ("поехали", "let's go"),
    so that "I'm not sure, but let's go" is ready and "Понял, но подожди" is not."""
    said: Readiness | None = None
    told = _NO_QUESTIONS.sub(" ", normalised(text))
    for tokens in clauses(told):
        padded = " " + " ".join(tokens) + " "
        if any(f" {p} " in padded for p in _CONFUSED) or hits(tokens, _UNDERSTOOD, negated=True):
            said = "confused"
        elif hits(tokens, _WAIT, negated=False) or _puts_off(tokens) or _unready(tokens):
            said = "waiting"
        elif hits(tokens, READY, negated=False):
            said = "ready"
    if said is None and _says_no(words(told)):
        said = "waiting"
    if said is None and _go_alone(words(told)):
        said = "ready"
    if _bare_question(told):
        said = "confused"
    return said


def _last_sentence(text: str) -> tuple[str, str]:
    """The text's last sentence without its stops, and the stops it ends on ("Ok, but what?!":
    " but what", "?!"), read back from the end. A pattern was tried from each stop of a run:
    "1 1 1 ... work? no" took the greeter 6 s, and "?" said 8,000 times before "health?" 1 s."""
    body = text.rstrip()
    said = body.rstrip(_STOPS)
    start = max(said.rfind(stop) for stop in _STOPS) + 1
    return said[start:], body[len(said) :]


def _bare_question(text: str) -> bool:
    """The message ends on a question of nothing but question words ("Что?", "What?", "??",
    "Ok, but what?"): the user did not follow, whatever came before it."""
    sentence, stops = _last_sentence(text)
    if "?" not in stops:
        return False
    tail = _AFTER_A_BUT.split(sentence)[-1]
    return all(token in _BARE_QUESTION_WORDS for token in words(tail))


def _puts_off(tokens: list[str]) -> bool:
    """The clause puts it off ("давай позже", "не сейчас", "maybe later")."""
    later = bool(LATER.intersection(tokens)) or any(True for _ in starts(tokens, _NOT_NOW))
    return later and all(token in PUTTING_OFF for token in tokens)


def puts_off(text: str) -> bool:
    """The whole text puts it off, and says nothing else ("потом", "давай позже", "maybe
    later", "not now"); "потом купить хлеб" is a task."""
    return _puts_off(words(text))


def _unready(tokens: list[str]) -> bool:
    """A readiness word negated ("не готов") or asked about ("готов ли я", "if I'm ready")."""
    for at in starts(tokens, READY):
        after = tokens[at + 1 : at + 2]
        if negated_next_to(tokens, at) or after == [_ASKED_AFTER] or _asked(tokens, at):
            return True
    return False


def _asked(tokens: list[str], at: int) -> bool:
    """ "if" or "whether" before the word at `at`, with only "I'm", "I am" between (read back
    from `at`: reading the whole clause before each word took seconds on "ok ok ok ...")."""
    for back in range(at - 1, -1, -1):
        if tokens[back] not in _BETWEEN_ASKED:
            return tokens[back] in _ASKED_BEFORE
    return False


_BETWEEN_ASKED = frozenset({"i", "i'm", "im", "am", "we're"})


def _go_alone(tokens: list[str]) -> bool:
    return bool(GO.intersection(tokens)) and all(t in GO or t in WITH_GO for t in tokens)


def _says_no(tokens: list[str]) -> bool:
    return bool(NO.intersection(tokens)) and all(token in SAYING_NO for token in tokens)


def is_confused(text: str) -> bool:
    """The user says they do not understand ("непонятно", "не понял", "not sure")."""
    return readiness(text) == "confused"


def is_not_ready(text: str) -> bool:
    """A readiness word negated ("я пока не готов", "not ready") or asked about ("готов ли я"),
    a plea to wait ("подожди", "not yet"; not "can't wait", nor "вопросов пока нет"), putting
    it off ("давай позже", "not now"), or a bare "no" ("Нет", "Not really")."""
    return readiness(text) == "waiting"


def is_ready(text: str) -> bool:
    """Readiness words ("понял", "поехали", "got it", ...), not negated, and no confusion or
    plea to wait after them."""
    return readiness(text) == "ready"


def asks_next_step(text: str) -> bool:
    """A question about what comes next ("Что дальше?", "А потом что?", "What comes next?")."""
    return has_phrase(text, _NEXT_QUESTION) or bool(_NEXT_ASKED.search(normalised(text)))
