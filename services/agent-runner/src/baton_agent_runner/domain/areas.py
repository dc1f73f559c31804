"""The life areas discovery asks about (seed 001: work, health, relationships, growth,
hobbies), the words that name them, and each area's own part of a clause that lists several."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from itertools import pairwise

from baton_agent_runner.domain.wording import is_negation, normalised, words

# Patterns matched at a word's start (`\b` before them), on lowercase text with "ё" read as
# "е": a bare stem is a prefix ("работ" finds "работе"), a trailing `\b` makes a whole word
# where a prefix would catch other words ("рост" in "просто" and "роста" alike, "сон" in
# "сонный", "work" in "workout", which is health; "homework" never starts with "work").
AREAS: dict[str, tuple[str, ...]] = {
    "work": (
        r"(?:co-?)?work(?:s|ed|ing|ers?|loads?|places?|days?|life)?\b", r"jobs?\b", "career",
        "business", "работ", "заработ", "подработ", "переработ", "карьер", "бизнес",
    ),
    "health": (
        "health", "sport", "fitness", r"gym\b", r"workouts?\b", "exercis", "sleep",
        "здоровь", r"здоров(?:ый|ая|ое|ые|ым|ой|ыми|ого|ом)?\b", "спорт", "фитнес",
        "трениров", r"(?:сон|сна|сну|сном|сне)\b", "высып", "выспа",
    ),
    "relationships": (
        "relationship", r"famil(?:y|ies)\b", r"(?:girl|boy|best)?friend(?!l)", "partner",
        r"wife\b", "husband", r"kids?\b", "children",
        "отношени", r"семь(?:я|и|е|ю|ей)\b", "семейн", "друз", "подруг", "партнер",
        r"муж(?:а|у|ем|е)?\b", r"жен(?:а|ы|у|ой|е)\b", r"дет(?:и|ей|ям|ьми|ях)\b",
    ),
    "growth": (
        "growth", r"grow(?:s|ing)?\b", "learn", r"stud(?:y|ies|ying)\b",
        r"develop(?:ing|ment)?\b", "educat",
        "развити", "развива", "саморазвит", "учеб", "обучени", r"уч(?:усь|иться|ишься)\b",
        r"рост(?:а|у|ом|е)?\b", "образовани",
    ),
    "hobbies": (
        r"hobb(?:y|ies)\b", "music", "guitar", "painting", "drawing",
        "хобби", "увлечени", "увлека", "музык", "гитар", "рисова",
    ),
}  # fmt: skip
AREA_PATTERNS = {
    area: re.compile(r"\b(?:" + "|".join(stems) + ")") for area, stems in AREAS.items()
}
"""Each area's stems as one pattern, for lowercase text with "ё" read as "е" (`normalised`)."""

# Where a clause that lists several areas parts: commas (and the joining words after them:
# "не только работа, но и семья"), "и", "или", "and", "or", "/", "&", "+".
_LISTED = re.compile(
    r"\s*,\s*(?:(?:и|а|но|или|также|and|but|or|also|plus)\s+)*"
    r"|\s+(?:и|или|а\s+также|and|or|as\s+well\s+as|plus|&|\+)\s+|\s*/\s*",
    re.IGNORECASE,
)
# Words that only say whose an area is: a listed area with none but these is bare ("my health").
_OWNING = frozenset({
    "my", "our", "the", "мой", "моя", "мое", "мои", "моих", "наш", "наша", "наше", "наши",
    "свой", "своя", "свое", "свои",
})  # fmt: skip
MATTERS = ("важн", "важен", "главн", "приоритет", "волну", "интерес", "нуж", "important",
           "priorit", "matter", "care")  # fmt: skip
"""Stems of the words that say an area matters ("важна", "важен", "matters", "priority")."""
UNIMPORTANT = re.compile(
    r"\b(?:неважн(?:а|ы)|неважен|это\s+неважно|ничего\s+не\s+знач(?:ит|ат)|наименее\s+важн\w*"
    r"|means?\s+nothing|least\s+important|matters?\s+(?:the\s+)?least)\b"
    r"(?!\s+(?:but|except|without|кроме|без)\b)"
)
"""Words (normalised, one space apart) that say an area does not matter with no negation of a
word of `MATTERS`: "хобби неважны", "Хобби ничего не значат", "work means nothing to me",
"work is the least important". Not "неважный", nor "неважно" but after "это", which say how it
goes ("Сон неважный", "высыпаюсь неважно"); not "means nothing but stress", which says what
it is."""
# A lead-in before a listing says that all the areas listed matter ("Для меня важны
# карьера, здоровье и семья", "What matters to me is ...", "For me it's ..."): words of these,
# and a word of `MATTERS` or "для меня"/"for me"/"to me" among them. A word that ranks the
# first area above others that say something of their own ("Самое важное — работа, потом
# здоровье") makes it the first's.
_LEAD_IN = frozenset({
    "для", "меня", "мне", "лично", "сейчас", "очень", "это", "у", "и", "а", "ну", "вот", "что",
    "for", "to", "me", "personally", "what", "is", "are", "it's", "its", "it", "that's",
    "thats", "these", "those", "they", "right", "now", "really", "i", "things", "that", "am",
    "so", "well", "about", "currently", "very", "today", *_OWNING,
})  # fmt: skip
# Not "больше"/"more": "Мне нужно больше спорта" says something of sport alone.
_RANKS = (
    "most", "first", "top", "main", "especially", "number", "primar", "самое", "самая",
    "самый", "главное", "главная", "главный", "важнее", "важнейш", "всего", "особенно",
    "прежде", "сначала", "перв",
)  # fmt: skip


# What a correction says before what the user meant: "I meant", "я имел в виду", "actually",
# "на самом деле". Not "I mean to ...", which says what the user intends.
_MEANT = (
    r"(?:i\s+mean(?:t)?(?!\s+to\b)|(?:я\s+)?име(?:л[аи]?|ю)\s+в\s+виду|actually"
    r"|на\s+самом\s+деле)\b"
)
# Joining words around what the user says of an area, which the fact does not keep: "also
# growth", "hobbies too", "ещё семья", "скорее саморазвитие" ("rather self-development"),
# "then my job", the "no," a correction starts with ("нет, хобби — это фотография"), what it
# says before what was meant, with what it takes back ("not kids, I meant my partner", "не
# дети, я имела в виду партнёра"), and a leading "это" ("это фотография"). Not a leading
# "too": "too much work" says something; nor a "нет" without its comma ("нет времени на
# спорт").
_LEADING = re.compile(
    r"^(?:(?:и|а|ещ[её]|также|тоже|плюс|скорее|потом|затем|and|also|plus|rather|then)\b[\s,]*"
    r"|(?:нет|no|nope)\s*,\s*"
    rf"|(?:(?:not|не)\s+[^,.;:!?—–]+?\s*(?:,|[—–]|\s-\s)\s*)?{_MEANT}[\s,:—–-]*"
    r"|это\b[\s,:—–-]*)+",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"[\s,]*\b(?:тоже|также|too|also|as\s+well)[.!]*$", re.IGNORECASE)
# An area named only to say what it is: "хобби — это фотография", "моя работа, я имею в виду
# стартап", "work means my startup", "hobbies, I mean photography": the fact is what follows.
# Without "это" or "means" the dash stays ("Работа — мой стартап").
_NAMED_AS = re.compile(
    rf"^(?P<head>[^,:;—–]+?)\s*(?:(?:,|:|[—–]|\s-)\s*(?:это\b|{_MEANT})|\s+means\b)"
    r"[\s,:—–-]*(?P<rest>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)
# But what follows "means"/"это" may say how much the area matters, not what it is: "Family
# means everything to me", "Семья — это всё", "Health means a lot to me". Read as a definition,
# the fact kept only "everything to me"; a degree (with "to me", "в жизни" and the like) and
# nothing else keeps the whole clause. The whole of what follows must be one, so "work means
# everything I do at the startup" is still what work is.
_DEGREE = re.compile(
    r"(?:(?:so|very|really|truly|just|absolutely|literally|очень|так|просто|самое)\s+)*"
    r"(?:(?:my|мо[её])\s+)?(?:everything|all|a\s+lot|lots|much|a\s+great\s+deal|the\s+world"
    r"|the\s+most|most|more\s+than\s+anything(?:\s+else)?|вс[её](?:\s+на\s+свете)?|много"
    r"|многое|целый\s+мир|весь\s+мир|больше\s+всего|важно|важное|главное)"
    r"(?:\s+(?:to|for)\s+(?:me|us)|\s+для\s+(?:меня|нас)|\s+(?:мне|нам)"
    r"|\s+in\s+(?:my|our|the)\s+(?:life|world)|\s+в\s+(?:моей\s+|нашей\s+)?жизни)*[\s.!…]*",
    re.IGNORECASE,
)
# A dash in a listed piece that says nothing after its area puts what it says before it:
# "Самое важное — работа, здоровье — бегаю" is two clauses, and work is not listed bare.
_DASH = re.compile(r"[—–]|\s-\s")


def trimmed(part: str) -> str:
    """What the user says of an area without the joining words around it ("also growth":
    "growth") and without the lead-in of what it means ("хобби — это фотография":
    "фотография"), but for a lead-in to how much it matters ("Family means everything to
    me" stays); the part as it is when nothing else is left."""
    part = part.strip()
    kept = _TRAILING.sub("", _LEADING.sub("", part))
    said = _NAMED_AS.match(kept)
    # The head names the area and says nothing, and the rest is no degree ("everything").
    if said and named_in(said["head"]) and _around(said["head"]) == ([], []):
        kept = kept if _DEGREE.fullmatch(said["rest"]) else _LEADING.sub("", said["rest"])
    return kept or part


def parts_of(clause: str) -> dict[str, str]:
    """Each area's own part of a clause that lists several ("Работа, здоровье и семья"): from
    the piece naming it to the next piece naming another area, a lead-in ("Для меня важны")
    with the first. Areas listed bare before one piece that goes on ("работа и здоровье
    важнее всего", "work, health and family matter most") share what it says: each gets the
    listing, from its first area (or its lead-in) to the end. A clause of one area is its own
    part (none here)."""
    groups = _groups(clause)
    if len(set().union(*(areas for _, _, areas in groups))) < 2:
        return {}
    parts: dict[str, str] = {}
    spans = _spans(clause, groups)
    if spans[0] == groups[0][:2]:  # the first area's part is its own: no lead-in of all
        bare = all(_around(clause[first:last]) == ([], []) for first, last, _ in groups[1:])
        spans[0] = (spans[0][0] + _lead_in(clause[slice(*spans[0])], bare), spans[0][1])
    for (_, _, areas), (first, end) in zip(groups, spans, strict=True):
        for area in areas:
            parts.setdefault(area, clause[first:end].strip())
    return parts


def _groups(clause: str) -> list[tuple[int, int, set[str]]]:
    """The (start, end, areas) of each run of consecutive pieces of a listing that name the
    same areas, a piece naming none going on with the one before it."""
    groups: list[tuple[int, int, set[str]]] = []
    start = 0
    for separator in [*_LISTED.finditer(clause), None]:
        end = len(clause) if separator is None else separator.start()
        areas = named_in(clause[start:end])
        if groups and not (areas and groups[-1][2] and not areas <= groups[-1][2]):
            first, _, known = groups.pop()  # the same areas, or none: the same part goes on
            groups.append((first, end, known | areas))
        else:
            groups.append((start, end, areas))
        start = len(clause) if separator is None else separator.end()
    return groups


def listed_bare(clause: str) -> list[tuple[int, int, int]]:
    """The areas listed bare before one that says something after it, which they share:
    (start, end, at) for each, `at` where the area word they share it with starts ("Hobbies
    and work don't matter": "Hobbies", and where "work" starts)."""
    groups = _groups(clause)
    said = [_around(clause[first:end]) for first, end, _ in groups]
    joins = [_joined(clause[left[1] : right[0]]) for left, right in pairwise(groups)]
    found: list[tuple[int, int, int]] = []
    for at, (before, after) in enumerate(said):
        if not after or any(is_negation(word) or word in ("нет", "no") for word in before):
            continue  # "I have work and no hobbies" shares nothing
        first = _listing_start(clause, groups, said, joins, at)
        if first < at:
            piece = normalised(clause[slice(*groups[at][:2])])
            word = max(
                hit.start() for pattern in AREA_PATTERNS.values() for hit in pattern.finditer(piece)
            )
            found += [(*groups[each][:2], groups[at][0] + word) for each in range(first, at)]
    return found


def _listing_start(
    clause: str,
    groups: list[tuple[int, int, set[str]]],
    said: list[tuple[list[str], list[str]]],
    joins: list[str | None],
    at: int,
) -> int:
    """The first group of the listing that ends with group `at`: one joined to it by "и",
    "and", "or", "/" (commas before that word: "A, B and C don't matter"), bare, or with a
    lead-in ("Для меня работа и хобби не важны"); `at` when there is none, for a listing
    joined by a comma alone ("Работа, хобби нет": work yes, hobbies no), by a contrast
    ("Работа, но хобби не важны"), with a comma after its joining word ("Работа и здоровье,
    хобби нет"), or that goes on from words said of an area before it ("I love work and
    hobbies don't matter")."""
    last = joins[at - 1] if at else None
    if last in (None, ","):
        return at
    first = at
    while first > 0 and joins[first - 1] in (last, ","):
        before, after = said[first - 1]
        if after or _DASH.search(clause[slice(*groups[first - 1][:2])]):
            break
        if any(word not in _LEAD_IN for word in before):
            break
        first -= 1
        if before:
            return first  # a lead-in ("Для меня работа") opens the listing
    return first if first == 0 or joins[first - 1] in (None, ",") else at


def _joined(join: str) -> str | None:
    """What joins two pieces of a listing: its words ("и", "and", "а также"), "," for a comma
    alone, "/" for "/", "&" or "+"; None for a contrast (", а", ", но", ", but")."""
    said = words(join)
    if not said:
        return "," if "," in join else "/"
    if said[0] in ("а", "но", "but") and said != ["а", "также"]:
        return None
    return " ".join(said)


def _lead_in(piece: str, bare: bool) -> int:
    """How long the lead-in of a listing is at the start of its first piece ("Для меня важны
    карьера": up to "карьера"; "My priorities are my work": up to "my work"); 0 when the
    words before the first area say something of it alone ("Много работы"), as a ranking
    does unless the areas after it are `bare` ("Самое важное — работа, потом здоровье")."""
    lowered = normalised(piece)
    area_at = min(
        (hit.start() for pattern in AREA_PATTERNS.values() for hit in pattern.finditer(lowered)),
        default=0,
    )
    before = list(re.finditer(r"[\w']+", lowered[:area_at]))
    while before and before[-1].group() in _OWNING:  # "my work" keeps its "my"
        area_at = before.pop().start()
    tokens = [word.group() for word in before]
    says_it_matters = any(token.startswith(MATTERS) for token in tokens) or bool(
        set(pairwise(tokens)) & {("для", "меня"), ("for", "me"), ("to", "me")}
    )
    lead = all(token in _LEAD_IN or token.startswith(MATTERS + _RANKS) for token in tokens)
    ranks = any(token.startswith(_RANKS) for token in tokens)
    return area_at if says_it_matters and lead and (bare or not ranks) else 0


def _spans(clause: str, groups: list[tuple[int, int, set[str]]]) -> list[tuple[int, int]]:
    """Each group's part of the clause: its own, or, for a group listed bare before one that
    says something after its area, from the first such group (or a lead-in's group before
    them) to the end of the one that says it. What says no ("хобби нет", "hobbies don't
    matter", "хобби неважны") is not shared as a part (`listed_bare` shares it to decline the
    areas), nor is it with a group that says its own before a dash ("Самое важное — работа")."""
    spans = [(first, end) for first, end, _ in groups]
    said = [_around(clause[first:end]) for first, end, _ in groups]
    for at, (_, after) in enumerate(said):
        no = any(is_negation(word) or word in ("нет", "no") for word in after)
        if not after or no or UNIMPORTANT.search(" ".join(after)):
            continue
        first = at
        while first > 0 and not said[first - 1][1]:
            if _DASH.search(clause[slice(*groups[first - 1][:2])]):
                break  # "Самое важное — работа" says its own of work: nothing to share
            first -= 1
            if said[first][0]:
                break  # a lead-in ("Для меня важны работа") opens the listing
        for each in range(first, at + 1):
            spans[each] = (groups[first][0], groups[at][1])
    return spans


def _around(piece: str) -> tuple[list[str], list[str]]:
    """The words of `piece` before its first area word and after its last one, but for the
    words that only own it ("my", "мой")."""
    lowered = normalised(piece)
    spans = [
        (hit.start(), _word_end(lowered, hit.end()))
        for pattern in AREA_PATTERNS.values()
        for hit in pattern.finditer(lowered)
    ]
    if not spans:
        return words(piece), []
    first, last = min(start for start, _ in spans), max(end for _, end in spans)
    before = [w for w in words(lowered[:first]) if w not in _OWNING]
    return before, [w for w in words(lowered[last:]) if w not in _OWNING]


def _word_end(text: str, at: int) -> int:
    """Where the word that goes on at `at` ends (a stem's match ends inside its word)."""
    while at < len(text) and (text[at].isalnum() or text[at] == "_"):
        at += 1
    return at


def named_in(piece: str) -> set[str]:
    """The areas a piece of text names."""
    lowered = normalised(piece)
    return {area for area, pattern in AREA_PATTERNS.items() if pattern.search(lowered)}
