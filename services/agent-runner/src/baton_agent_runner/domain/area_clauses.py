"""The areas each clause of a message names and what it says of them (named, wrong,
declined), read as written: no self-correction is read here (`self_corrections` does that)."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from baton_agent_runner.domain import about_baton
from baton_agent_runner.domain.action_lists import lists_actions
from baton_agent_runner.domain.area_labels import labelled, labelled_part
from baton_agent_runner.domain.areas import (
    AREA_PATTERNS,
    KIN,
    REFERRAL,
    THING_WORKS,
    around,
    named_in,
    trimmed,
)
from baton_agent_runner.domain.fact_additions import added
from baton_agent_runner.domain.listings import listed_after, listed_bare, parts_of
from baton_agent_runner.domain.mentions import Mention, said_of, sharing
from baton_agent_runner.domain.skipping import skips_areas
from baton_agent_runner.domain.wording import NO_END_DOT, normalised, without_end, words

# ", но" parts clauses as ", but" does: "Да, но ещё хобби" kept the whole as hobbies' fact.
_CLAUSE_END = re.compile(rf"(?:(?!{NO_END_DOT})[.;!?\n])+|,\s+(?:а|и|но|but|and)\s+")
_PATTERNS = tuple(AREA_PATTERNS.items())
_ANY_AREA = re.compile("|".join(pattern.pattern for pattern in AREA_PATTERNS.values()))
"""Whether any area's pattern matches: the same patterns, searched once."""


def named_areas(text: str) -> list[str]:
    """The areas the text names as priorities, no self-correction read."""
    return [area for area, _, said in mentioned(text) if said == "named"]


def mentioned(text: str) -> list[tuple[str, str, Mention]]:
    found: dict[str, tuple[str, str, Mention]] = {}
    for clause in _clauses(text):
        lowered = normalised(clause)
        # Most clauses name no area: the listing's reading is only done for one that does
        # (a greeter's closing reads every earlier message of the chat again).
        if not _ANY_AREA.search(lowered):
            continue
        skipped = _skipped_parts(lowered)
        unlabelled = _area_starts(lowered, skipped)
        starts = labelled(lowered, unlabelled)
        if not any(starts.values()):
            # "my coworker recommended this": who told of Baton; "buy a gym bag", "pick up the
            # kids from school": what an errand gets; "how does it work?": what a thing does;
            # no priority
            continue
        if not skipped and _errand_only(clause, lowered, starts):
            continue  # "позвонить маме", "call mom": a to-do, no priority
        parts = parts_of(clause)
        bare, after = sharing(listed_bare(lowered)), sharing(listed_after(lowered))
        for area, at in starts.items():
            said = {
                "declined" if _within(start, skipped) else said_of(lowered, start, bare, after)
                for start in at
            }
            hid = starts != unlabelled  # "hobbies: reading, learning guitar": growth's word
            part = trimmed(labelled_part(clause, area, hid) or parts.get(area, clause))
            if "named" in said and area in found and found[area][2] == "named":
                # "Дети на первом месте... И с мужем хочется ...": the husband was dropped.
                found[area] = (area, added(found[area][1], part), "named")
                continue
            for kind in ("named", "wrong", "declined"):
                if kind in said and (area not in found or found[area][2] != "named"):
                    found[area] = (area, part, kind)
                    break
    return list(found.values())


def _area_starts(lowered: str, skipped: list[tuple[int, int]]) -> dict[str, list[int]]:
    """Where each area's words stand in the clause, but for those that name no priority: who
    told of Baton (`REFERRAL`), what a thing does (`THING_WORKS`, `about_baton.THING_WORKS`),
    Baton's price (`about_baton.PAID_FOR_IT`), a job left (`_PAST_JOB`), "work on" another area
    (`_working_on_another`), whom or what an errand fetches (`_FETCHING`) or buys
    (`_bought_in`); an area asked to be skipped (`skipped`) stands, to be declined."""
    unmeant = [
        hit.span()
        for pattern in (REFERRAL, THING_WORKS, _FETCHING, _PAST_JOB, *_OF_BATON)
        for hit in pattern.finditer(lowered)
    ]
    unmeant += _working_on_another(lowered)
    bought = _bought_in(lowered)
    return {
        area: [
            hit.start()
            for hit in p.finditer(lowered)
            if _within(hit.start(), skipped)
            or not (_within(hit.start(), unmeant) or bought(hit.start()))
        ]
        for area, p in _PATTERNS
    }


_OF_BATON = (about_baton.THING_WORKS, about_baton.PAID_FOR_IT)


def _within(at: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= at < end for start, end in spans)


_PART = re.compile(r"[^,;:.!?—–]+")


def _skipped_parts(lowered: str) -> list[tuple[int, int]]:
    """The parts of the clause (between commas, colons, dashes) that only ask to skip the
    areas they name (`skipping.skips_areas`: "Работа, здоровье, давай пропустим хобби" skips
    hobbies): those areas are declined, though "skip" before an area is an errand's verb
    ("skip work tomorrow")."""
    if "skip" not in lowered and "пропус" not in lowered:
        return []
    return [part.span() for part in _PART.finditer(lowered) if skips_areas(part.group())]


def _errand_only(clause: str, lowered: str, starts: dict[str, list[int]]) -> bool:
    """Whether the clause names areas only by kin or pets (`areas.KIN`) and is actions alone:
    whom an errand is for ("позвонить маме", "I need to call mom, fix the sink"), no priority
    ("Хочу больше времени с мамой" is one)."""
    kin = {hit.start() for hit in KIN.finditer(lowered)}
    named = {at for hits in starts.values() for at in hits}
    return bool(kin) and named <= kin and lists_actions(clause.strip())


# Verbs whose object is no priority, whatever area its words name: what is bought ("buy a gym
# bag"), what is missed ("skip work", "прогулять работу": work was named), whom and where an
# errand drives ("drive the kids to school", "отвезти детей в школу": growth was named).
_BUYING = frozenset({
    "buy", "purchase", "order", "купить", "заказать", "приобрести", "докупить", "покупать",
    "skip", "skipping", "ditch", "прогулять", "прогуливать", "пропустить", "пропускать",
    "drive", "driving", "отвезти", "отвозить", "отвести", "отводить", "забрать", "забирать",
    "забери", "заберите", "заберу", "подвезти", "подвозить",
})  # fmt: skip

# Fetching someone, or something from somewhere, is an errand too ("pick up the kids from
# school", "collect my daughter", "pick up my gym bag from the locker": growth, relationships
# and health were named), up to the end of its part ("..., then work" still names work). Not
# what is taken up again: "pick up guitar again", "pick up running" name their areas. Where
# "from" comes is looked for within 200 characters, so a message of "pick up" said a thousand
# times is read once.
_IN_PART = r"(?:(?!\b(?:and|but|or|then|also|и|а|но|или|потом)\b)[^,;:.!?—–\n])"
_FETCHING = re.compile(
    r"\b(?:pick(?:s|ed|ing)?\s+up|collect(?:s|ed|ing)?)\s+"
    rf"(?:(?=(?:(?:the|my|our|his|her|their)\s+)?{KIN.pattern})|(?={_IN_PART}{{0,200}}?\bfrom\b))"
    rf"{_IN_PART}*"
)

# A job the user has left is no priority now: "раньше работала врачом", "I used to work as a
# nurse", "my old job" were kept as the work fact. "I work as a nurse", "теперь работаю
# таксистом" after it still name work.
_PAST_JOB = re.compile(
    r"\b(?:i\s+)?(?:used\s+to|formerly|previously)\s+work(?:ed)?\b"
    r"|\b(?:old|former|previous|ex-?)\s*(?:jobs?|workplaces?|careers?|boss(?:es)?)\b"
    r"|\b(?:раньше|когда-то|прежде|в\s+прошлом|до\s+пенсии)\s+(?:я\s+)?работал[аи]?\b"
    r"|\bработал[аи]?\s+(?:раньше|когда-то|прежде|до\s+пенсии)\b"
    r"|\b(?:бывш|прошл|прежн)\w*\s+работ\w*"
)

# "Work on" and "работать над" as a verb of effort, whose object is the area: "I need to pick
# up the kids from school and work on my health" saved "work on my health" as a work fact as
# well as health's. Only where the object, up to the end of its part, names another area:
# "I work on weekends", "work on my startup" still name work. "Поработать над" never did
# ("работ" is matched at a word's start).
_WORKING_ON = re.compile(
    r"\b(?P<verb>work(?:s|ed|ing)?\s+on|работа(?:ть|ю|ешь|ет|ем|ете|ют|л|ла|ли)\s+над)\b"
    rf"(?P<object>{_IN_PART}{{0,80}})"
)


def _working_on_another(lowered: str) -> list[tuple[int, int]]:
    """Where "work on" / "работать над" stands with an object that names an area other than
    work: the verb's span, whose "work" is no area. Read with its verb, which "myself" needs
    to name growth ("work on myself")."""
    return [
        hit.span("verb")
        for hit in _WORKING_ON.finditer(lowered)
        if named_in(hit.group()) - {"work"}
    ]


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
