"""Reading a user's message: its language, the life areas it names, and confirmation."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Literal

from baton_agent_runner.domain.action_lists import lists_actions
from baton_agent_runner.domain.area_spelling import spelled
from baton_agent_runner.domain.areas import (
    AREA_PATTERNS,
    AREAS,
    CORRECTION,
    KIN,
    REFERRAL,
    SENTENCE_END,
    THING_WORKS,
    around,
    named_in,
    trimmed,
)
from baton_agent_runner.domain.brain_dump import says_done, unlisted
from baton_agent_runner.domain.finishing import NOTHING_COMES, moves_on
from baton_agent_runner.domain.listings import listed_after, listed_bare, parts_of
from baton_agent_runner.domain.mentions import Mention, said_of, sharing
from baton_agent_runner.domain.readiness import is_confused
from baton_agent_runner.domain.swaps import as_instead
from baton_agent_runner.domain.translit import is_translit_russian
from baton_agent_runner.domain.wording import (
    INITIAL_DOT,
    has_phrase,
    normalised,
    said,
    without_end,
    words,
)

Lang = Literal["ru", "en"]

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?", re.IGNORECASE)
CLEAR_LATIN_WORDS = 3
"""A Latin-only message of fewer words ("ok", "done", "got it") may be either language's."""

# ", но" parts clauses as ", but" does: "Да, но ещё хобби" kept the whole as hobbies' fact.
_CLAUSE_END = re.compile(rf"(?:(?!{INITIAL_DOT})[.;!?\n])+|,\s+(?:а|и|но|but|and)\s+")
AREA_NAMES: dict[Lang, dict[str, str]] = {
    "en": {a: a for a in AREAS},
    "ru": {
        "work": "работа",
        "health": "здоровье",
        "relationships": "отношения",
        "growth": "развитие",
        "hobbies": "хобби",
        "finances": "финансы",
    },
}

_CONFIRM = (
    "да", "верно", "правильно", "точно", "все так", "ага", "угу", "ок", "окей", "именно",
    "так и есть", "yes", "yeah", "yep", "yup", "correct", "right", "exactly", "ok", "okay",
    "sure", "perfect", "all good", "looks good", "sounds good", "подтверждаю", "согласен",
    "согласна", "i confirm", "confirmed", "agreed", "i agree",
    # Said to the summary and answered "I did not quite get that".
    "spot on", "nailed it", "you got it", "pretty much", "close enough",
)  # fmt: skip
# Yes only when the message says nothing else: "давай" to "Is that right?" says yes, "давай
# поменяем работу" does not; so "норм", "go", "fine", "lol ok" (the summary was shown again).
_YES_ALONE = frozenset({
    "давай", "давайте", "норм", "нормально", "годится", "пойдет", "подходит", "ладно", "отлично",
    "супер", "класс", "круто", "конечно", "go", "fine", "great", "cool", "nice", "lgtm", "k", "kk",
    "yea", "ya", "ye", "yass", "yes", "yeah", "yep", "yup", "ok", "okay", "ок", "окей", "да",
    "ага", "угу", "sure", "perfect", "correct", "right", "exactly",
    # "absolutely", "of course" to "Ready to start?" got the same question again.
    "absolutely", "definitely", "certainly", "totally", "alright", "course", "yess", "yesss",
    # "Хорошо" to "Начнём?" or "Всё верно?" is the commonest Russian yes after "да": it got
    # the greeter's explanation again; so did "валяй", "разумеется".
    "хорошо", "хорош", "валяй", "естественно", "разумеется", "ладушки", "агась", "четко", "гуд",
    # Russian in Latin letters (`translit`): "da" to "Напиши «да»" was not understood.
    "da", "aga", "ugu", "verno", "pravilno", "norm", "konechno", "horosho", "khorosho", "ladno",
    "davai", "davay",
})  # fmt: skip
# "Всё" too: "всё хорошо", "всё отлично", "всё норм" to the summary got "Не совсем понял".
_AROUND_YES = frozenset(
    {"ну", "lol", "haha", "ха", "хаха", "then", "тогда", "ahead", "вроде", "all", "of", "все"}
)
# A yes said with an emoji alone: "👍", "👌", "✅", "❤️" (skin tones and variation selectors
# aside). The summary was shown again to each.
_YES_EMOJI = re.compile(
    "^[\\s!.)]*(?:(?:[\U0001f44d\U0001f44c\u2705\u2714\u2611\u2764\U0001f4af\U0001f64c"
    "\U0001f197\U0001f44f][\U0001f3fb-\U0001f3ff\ufe0f]*)[\\s!.)]*)+$"
)
_DENY_FIRST = ("нет", "не", "неа", "no", "nope", "not")
# After a leading "нет,"/"no," these still confirm: "Нет, всё верно", "No, that's right".
_STILL_RIGHT = (
    "верно", "правильно", "все так", "точно", "that's right", "thats right", "that is right",
    "that's correct", "that is correct", "exactly",
)  # fmt: skip
_FIX = r"(?:менять|меняй|исправлять|исправляй|править|правь|поправлять|поправь)"
# Confirmations made of "no" words: "Yes, nothing wrong", "ничего не нужно менять"; and the
# answers to "Anything to add?", which a summary not yet closed asks ("nope, nothing to add").
_ALL_GOOD = re.compile(
    rf"\bничего\s+(?:не\s+(?:нужно|надо)\s+{_FIX}|{_FIX}\s+не\s+(?:нужно|надо)|не\s+{_FIX})\b"
    rf"|\b{_FIX}\s+ничего\s+не\s+(?:нужно|надо)\b"
    r"|\bnothing(?:'s|\s+is)?\s+(?:wrong|to\s+(?:change|fix|correct))\b"
    r"|\bnothing\s+(?:else\s+|more\s+)?to\s+add\b|\bnothing\s+(?:else|more)\b"
    r"|\bнечего\s+добавить\b|\bдобавить\s+нечего\b|\bничего\s+(?:не\s+)?добав\w*"
    r"|\bбольше\s+ничего\b"
    rf"|\b(?:{NOTHING_COMES})\b"  # "Nothing comes to mind" to "Anything to add?"
)
_DENY = ("да нет", "не так", "неверно", "неправильно", "wrong", "incorrect")


def language_of(text: str) -> Lang:
    """Russian when the text has Cyrillic letters or Russian in Latin ones, else English."""
    return (
        "ru" if _CYRILLIC.search(text) or is_translit_russian(_LATIN_WORD.findall(text)) else "en"
    )


def clear_language(text: str) -> Lang | None:
    """Russian for Cyrillic letters or Russian written in Latin ones ("privet", "davai"),
    English for several Latin words; None when it could be either ("ok", "done", "👍")."""
    if _CYRILLIC.search(text):
        return "ru"
    latin = _LATIN_WORD.findall(text)
    if is_translit_russian(latin):  # "privet, chto eto?", "ok davai"
        return "ru"
    return "en" if len(latin) >= CLEAR_LATIN_WORDS else None


def language_in(message: str, earlier: Iterable[str]) -> Lang:
    """The message's language when it is clear; else that of the latest clear one of the
    user's `earlier` messages (oldest first); else the message's own guess."""
    for text in [message, *reversed(list(earlier))]:
        found = clear_language(text)
        if found is not None:
            return found
    return language_of(message)


def denies(text: str) -> bool:
    """A "no": "неверно", "wrong", "да нет", a negated confirmation ("не совсем верно", "that's
    not right"), an area said to be wrong ("всё верно, кроме работы"), or a message that
    starts with "нет"/"no"/"not" and does not go on to confirm ("Нет, всё верно", "No, that's
    right" and "nothing wrong" are no denials)."""
    told = _ALL_GOOD.sub(",", normalised(text))
    if has_phrase(told, _DENY) or said(told, _CONFIRM, negated=True) or _wrong_areas(text):
        return True
    tokens = words(told)
    if not tokens or tokens[0] not in _DENY_FIRST:
        return False
    all_good = told != normalised(text)
    return not all_good and not said(told, _STILL_RIGHT, negated=False)


def confirms(text: str) -> bool:
    """A short confirmation ("да", "верно", "yes", "correct", "nothing wrong"), neither
    negated nor a correction naming an area."""
    if is_confused(text) or denies(text) or areas_in(text):
        return False
    told = normalised(text)
    if _YES_EMOJI.match(told) or _yes_alone(words(told)):
        return True
    return bool(_ALL_GOOD.search(told)) or said(told, _CONFIRM, negated=False)


def _yes_alone(tokens: list[str]) -> bool:
    """Every word a yes of `_YES_ALONE` or a filler beside one ("ну давай", "lol ok")."""
    return any(t in _YES_ALONE for t in tokens) and all(
        t in _YES_ALONE or t in _AROUND_YES for t in tokens
    )


def finishes(text: str) -> bool:
    """ "That's all", "done", "готово", "всё", as the brain dump reads them, naming no area:
    nothing to add or correct ("Всё?", asked, says nothing yet)."""
    # "next step" closes the brain dump, but to discovery it passes on a question.
    done = says_done(text) and not moves_on(text)
    return done and not areas_in(text) and not _wrong_areas(text)


def areas_in(text: str) -> dict[str, str]:
    """Life areas the text talks about as priorities, each with the clause that mentions it;
    not those it says the user has not or that do not matter ("у меня нет хобби", "work isn't
    a priority", "не работа, а здоровье": health only), nor one it only says is wrong ("всё
    верно, кроме работы")."""
    return {area: clause for area, clause, said in _mentions(text) if said == "named"}


def areas_said(text: str) -> tuple[dict[str, str], set[str]]:
    """`areas_in` and `declined_areas` of the text, read once ("I said work, not health": work,
    and health declined)."""
    mentions = _mentions(text)
    named = {area: clause for area, clause, said in mentions if said == "named"}
    return named, {area for area, _, said in mentions if said == "declined"}


def declined_areas(text: str) -> set[str]:
    """The areas the text names only to say they are no priority ("У меня нет хобби")."""
    return {area for area, _, said in _mentions(text) if said == "declined"}


def _wrong_areas(text: str) -> set[str]:
    """The areas the text names only to say they are wrong ("кроме работы", "wrong about")."""
    return {area for area, _, said in _mentions(text) if said == "wrong"}


_PATTERNS = tuple(AREA_PATTERNS.items())
_ANY_AREA = re.compile("|".join(pattern.pattern for pattern in AREA_PATTERNS.values()))
"""Whether any area's pattern matches: the same patterns, searched once."""


_MOST_CORRECTIONS = 20
"""The self-corrections of one message that are read, first first: each reads the text before
and after it, and a message of a thousand ("no wait, no wait, ...") took minutes. People make
one or two."""


def corrected(text: str) -> str:
    """The text as the user meant it: what a self-correction takes back left out ("health i
    think... no wait, work": "work"; "family, health... no wait, work": "family, work";
    `areas.CORRECTION` says which and how far back). The
    text as it is when it takes nothing back ("work, i mean it", "no wait, I'm not done")."""
    start, taken = 0, False
    for _ in range(_MOST_CORRECTIONS):
        if (found := CORRECTION.search(normalised(text), start)) is None:
            break
        back = _taken_back(text, found)
        if back is None:
            start = found.end()
            continue
        joint = " " if back and not text[back - 1].isspace() else ""  # "family, work"
        text = text[:back] + joint + text[found.end() :]
        start, taken = back, True
    return _once_each(text) if taken else text


def _once_each(text: str) -> str:
    """A corrected text without an item said again right after itself: "work, health... no
    wait, work, family" is "work, family", not a fact "work, work"."""
    items = text.split(",")
    kept = [item for i, item in enumerate(items) if not i or _differs(item, items[i - 1])]
    return ",".join(kept)


def _differs(item: str, before: str) -> bool:
    """Whether `item` differs from the `before` it follows (as words, case aside)."""
    return item.strip(_NO_WORDS).casefold() != before.strip(_NO_WORDS).casefold()


def _taken_back(text: str, marker: re.Match[str]) -> int | None:
    """Where what the self-correction `marker` takes back starts: its sentence's start (or the
    sentence before, for a strong marker opening its own); None when it takes nothing back."""
    if _said_back(text, marker):
        return marker.start()  # "work and family. no wait, not family, health": family alone
    after = text[marker.end() :]
    meant = set(_named(after[: _sentence_end(after)]))
    ends = [end.end() for end in SENTENCE_END.finditer(text, 0, marker.start())]
    back = ends[-1] if ends else 0
    if not text[back : marker.start()].strip(_NO_WORDS) and marker["strong"] and ends:
        back = ends[-2] if len(ends) > 1 else 0  # "Health. No wait, work."
    before = text[back : marker.start()]
    if not meant:
        return None
    if not before.strip(_NO_WORDS):  # the marker alone, when it opens the text ("Нет, стоп, ...")
        return None if text[: marker.start()].strip(_NO_WORDS) else marker.start()
    if marker["vague"] and meant <= named_in(before):
        return None  # "работа и здоровье, точнее сон": what health is
    if named_in(before) and not _named(before):
        # "not health, I meant hobbies": what comes before says no already; taken back, the
        # "not health" went with it, and the health fact stayed.
        return None
    return _last_item(text, back, marker.start())


# "not family", "не семья" right after a self-correction: the areas it takes back, named.
_NOT_AREA = re.compile(
    r"[\s,]*(?:not|не)\s+(?P<said>[^,.;:!?—–\n]+?)\s*(?=[,.;:!?—–\n]|\s+(?:а|but)\s|$)",
    re.IGNORECASE,
)


def _said_back(text: str, marker: re.Match[str]) -> set[str]:
    """The areas a self-correction names as those it takes back ("no wait, not family", "нет,
    стоп, не семья"), of those said before it; none when it names none of them."""
    said = _NOT_AREA.match(text, marker.end())
    if said is None or around(said["said"]) != ([], []):
        return set()
    areas = named_in(said["said"])
    return areas if areas and areas <= named_in(text[: marker.start()]) else set()


def _last_item(text: str, back: int, marker: int) -> int:
    """Where the last item before a self-correction starts, of a list of several between `back`
    and the `marker`: the correction takes back what was said last ("family, health i think...
    no wait, work" is family and work), an item naming an area; `back` when there is one."""
    said = text[back:marker].rstrip(_NO_WORDS)
    for start in reversed([found.end() for found in _ITEM_SEPARATOR.finditer(said)]):
        if _named(said[start:]):
            return back + start
    return back


_ITEM_SEPARATOR = re.compile(r"[,;]|\s[—–-]\s")
"""Between the items of a list, as a correction reads back: "and"/"и" join what it takes back
together ("health and hobbies, scratch that, work" is work's alone)."""


_NO_WORDS = " ,.:;!?-—–…\n"


def _sentence_end(text: str) -> int:
    end = SENTENCE_END.search(text)
    return len(text) if end is None else end.start()


# The words a correction puts before or after the area it swaps in: "no, not finances,
# replace it with health" kept "replace it with health", "нет, убери финансы, лучше здоровье"
# "лучше здоровье". Read only of a correction ("лучше здоровье" alone may be the goal).
_SWAP_LEAD = re.compile(
    r"^(?:(?:replace|swap|change)\s+(?:it|that|this)\s+(?:with|for|to)|replace\s+with"
    r"|put|make\s+it|instead|rather|лучше|вместо\s+(?:этого|него|нее|неё)"
    r"|(?:замени|поменяй)(?:\s+(?:это|его|ее|их))?\s+на|а\s+лучше)\b[\s,:—–-]*",
    re.IGNORECASE,
)
# Searched by `sub`: it starts only where a run of commas and spaces starts, and gives none
# of it back, or each comma of a run read the rest of it again (8,000 commas: 2.4 s a part).
_SWAP_TAIL = re.compile(
    r"(?<![\s,])[\s,]++(?:instead|rather|вместо\s+(?:этого|него|нее|неё))[.!]*+$", re.IGNORECASE
)


def _swapped_in(part: str) -> str:
    """The area a correction swaps in without the correction's own words ("health")."""
    kept = _SWAP_TAIL.sub("", _SWAP_LEAD.sub("", part.strip()))
    return kept or part


@lru_cache(maxsize=16)
def _mentions(text: str) -> tuple[tuple[str, str, Mention], ...]:
    """`_mentions_of` of the text with its mistyped area words read as meant (`spelled`:
    "wrok and helth"), a list on one line parted (`_listed_apart`), a swap of areas read as
    "instead" (`as_instead`: "поменяй работу на учёбу"), the named parts without a
    correction's lead ("replace it with health": "health") when the text takes an area back or
    opens with a "no".

    Kept for the last texts read: one discovery turn asks it of the same message five times
    (`areas_in`, `declined_areas`, `_wrong_areas`, ...), and a message of 8,000 characters of
    self-corrections took 0.4 s of the agent-runner's only core to read five times."""
    text = as_instead(spelled(unlisted(text)))
    found = _mentions_of(text)
    if not any(said == "declined" for *_, said in found) and not _opens_with_no(text):
        return tuple(found)
    return tuple(
        (area, _swapped_in(part) if said == "named" else part, said) for area, part, said in found
    )


_NO_OPENING = re.compile(r"^\W*(?:нет|неа|no|nope)\b", re.IGNORECASE)


def _opens_with_no(text: str) -> bool:
    return _NO_OPENING.match(text) is not None


def _mentions_of(text: str) -> list[tuple[str, str, Mention]]:
    """Each area a clause of the text, as the user meant it (`corrected`), names, its part of
    the clause, and what it says of it: named (any of its words in the clause), else wrong,
    else declined."""
    if "?" in text:
        text = _ANSWERED_NO.sub(_no_to_asked, text)
    if CORRECTION.search(normalised(text)):
        for marker in CORRECTION.finditer(normalised(text)):
            if back := _said_back(text, marker):
                return _said_back_mentions(text, marker, back)
        text = corrected(text)
    return _mentioned(text)


def _said_back_mentions(
    text: str, marker: re.Match[str], back: set[str]
) -> list[tuple[str, str, Mention]]:
    """The mentions of a text whose self-correction names the areas it takes back ("work and
    family. no wait, not family, health"): those before it but the areas taken back (work),
    then those after it, which win ("not family": declined; "не семья, а дети": "дети")."""
    kept = {found[0]: found for found in _mentions(text[: marker.start()]) if found[0] not in back}
    kept.update((found[0], found) for found in _mentions(text[marker.end() :]))
    return list(kept.values())


# An area asked back and answered "no" by the user ("work? not really. family yes", "работа?
# не особо"): declined, as "no work" is. Only a bare area before the "?" ("Hmm, work? no")
# and a "no" alone after it, up to a stop: "work? not really my thing, but family" stays.
# The question is read from where its run of words starts (the lookbehind), not again from
# each character of it: "1 1 1 ... health?" (8,000 characters) took discovery 8 s.
_ANSWERED_NO = re.compile(
    r"(?<![^.,;:!?\n])(?P<asked>[^.,;:!?\n]++)\?+"
    r"\s*(?:not\s+really|not\s+much|not\s+so\s+much|nope|nah|no"
    r"|не\s+особо|не\s+очень|не\s+особенно|не\s+совсем|неа|нет)(?=\s*(?:[.!;,\n]|$))",
    re.IGNORECASE,
)


def _no_to_asked(found: re.Match[str]) -> str:
    asked = found["asked"]
    if not named_in(asked) or around(asked) != ([], []):
        return found.group()
    lead = asked[: len(asked) - len(asked.lstrip())]
    return f"{lead}no {asked.strip()}"


def _named(text: str) -> list[str]:
    """The areas the text names as priorities, no self-correction read."""
    return [area for area, _, said in _mentioned(text) if said == "named"]


def _mentioned(text: str) -> list[tuple[str, str, Mention]]:
    found: dict[str, tuple[str, str, Mention]] = {}
    for clause in _clauses(text):
        lowered = normalised(clause)
        # Most clauses name no area: the listing's reading is only done for one that does
        # (a greeter's closing reads every earlier message of the chat again).
        if not _ANY_AREA.search(lowered):
            continue
        referred = [hit.span() for hit in REFERRAL.finditer(lowered)]
        referred += [hit.span() for hit in THING_WORKS.finditer(lowered)]
        bought = _bought_in(lowered)
        starts = {
            area: [
                hit.start()
                for hit in p.finditer(lowered)
                if not (_within(hit, referred) or bought(hit.start()))
            ]
            for area, p in _PATTERNS
        }
        if not any(starts.values()):
            # "my coworker recommended this": who told of Baton; "buy a gym bag": what an
            # errand gets; "how does it work?": what a thing does; no priority
            continue
        if _errand_only(clause, lowered, starts):
            continue  # "позвонить маме", "call mom": a to-do, no priority
        parts = parts_of(clause)
        bare, after = sharing(listed_bare(lowered)), sharing(listed_after(lowered))
        for area, at in starts.items():
            said = {said_of(lowered, start, bare, after) for start in at}
            for kind in ("named", "wrong", "declined"):
                if kind in said and (area not in found or found[area][2] != "named"):
                    found[area] = (area, trimmed(parts.get(area, clause)), kind)
                    break
    return list(found.values())


def _within(hit: re.Match[str], spans: list[tuple[int, int]]) -> bool:
    return any(start <= hit.start() < end for start, end in spans)


def _errand_only(clause: str, lowered: str, starts: dict[str, list[int]]) -> bool:
    """Whether the clause names areas only by kin or pets (`areas.KIN`) and is actions alone:
    whom an errand is for ("позвонить маме", "I need to call mom, fix the sink"), no priority
    ("Хочу больше времени с мамой" is one)."""
    kin = {hit.start() for hit in KIN.finditer(lowered)}
    named = {at for hits in starts.values() for at in hits}
    return bool(kin) and named <= kin and lists_actions(clause.strip())


# Verbs of buying: what follows them is a thing to get, whatever area its words name.
_BUYING = frozenset({
    "buy", "purchase", "order", "купить", "заказать", "приобрести", "докупить", "покупать",
})  # fmt: skip


_NOT_BOUGHT = frozenset({"and", "и", "but", "но", "а", "or", "или", "then", "потом", "also"})
"""Words after which an area's word is no longer what the verb before them buys."""
_PART_END = re.compile(r"[,;:.!?—–]")
_PART_TOKEN = re.compile(r"[\w']+|[,;:.!?—–]")


def _nothing_bought(_at: int) -> bool:
    return False


def _bought_in(lowered: str) -> Callable[[int], bool]:
    """Whether the area's word at a place of `lowered` is what a verb of buying before it, in
    its part of the clause, buys ("i need to buy a gym bag", "купить абонемент в спортзал"): a
    thing to get, no priority ("I want to go to the gym more" is health, and so is "buy a gym
    bag and work on my health").

    The clause is read once, word by word, for all its area words: reading its part again for
    each of them took discovery seconds on a message of 8,000 characters of area words. A
    clause without a verb of buying in it, as most are, is not read at all."""
    if not any(verb in lowered for verb in _BUYING):
        return _nothing_bought
    starts: list[int] = []
    ends: list[int] = []
    states: list[bool] = []
    state = False
    for token in _PART_TOKEN.finditer(lowered):
        state = _buying_after(state, token.group())
        starts.append(token.start())
        ends.append(token.end())
        states.append(state)

    def bought(at: int) -> bool:
        n = bisect_right(ends, at)
        state = states[n - 1] if n else False
        if n < len(starts) and starts[n] < at:  # a word the area's word starts within
            state = _buying_after(state, lowered[starts[n] : at])
        return state

    return bought


def _buying_after(state: bool, token: str) -> bool:
    """Whether what comes after `token` is bought, given whether what came before it was."""
    if _PART_END.fullmatch(token):
        return False
    if token in _BUYING:
        return True
    return state and token not in _NOT_BOUGHT


def _clauses(text: str) -> list[str]:
    """The clauses of `text`: parted at sentence ends and at ", а", ", и", ", but", ", and";
    an initial's dot is no sentence end, and one after a name stays ("Петров В."); nor is the
    comma of a listing before its last area (`_last_of_a_listing`)."""
    found, start = [], 0
    for end in [*_CLAUSE_END.finditer(text), None]:
        if end is not None and _last_of_a_listing(text[start : end.start()], text, end):
            continue
        clause = text[start : len(text) if end is None else end.start()]
        if end is not None and end.group().startswith("."):
            clause = without_end(clause + ".", ".")  # the dot back, if an initial's
        found.append(clause)
        start = len(text) if end is None else end.end()
    return found


def _last_of_a_listing(before: str, text: str, end: re.Match[str]) -> bool:
    """ ", and"/", и" at `end` brings the last area of a listing (the Oxford comma: "Work,
    health, and hobbies don't matter"), not a clause of its own: what comes before it lists
    areas parted by commas, all bare but the first, which ends on its area ("For me work,
    health"), and an area comes after it. "I love work, and hobbies don't matter" is two."""
    if words(end.group())[-1:] not in (["and"], ["и"]):
        return False
    first, *rest = before.split(",")
    after = re.split(r"[,.;:!?\n]", text[end.end() :], maxsplit=1)[0]
    if not (rest and named_in(first) and named_in(after)):
        return False
    return not around(first)[1] and all(around(piece) == ([], []) for piece in rest)
