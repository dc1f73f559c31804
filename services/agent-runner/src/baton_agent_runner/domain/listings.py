"""Reading a clause that lists several life areas ("Работа, здоровье и семья"): how its pieces
group by area, each area's own part of it, and the areas listed bare that share what one piece
says ("work and health matter most")."""

# ruff: noqa: RUF001, RUF002  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from baton_agent_runner.domain.action_words import is_action
from baton_agent_runner.domain.areas import (
    AREA_PATTERNS,
    MATTERS,
    OWNING,
    UNIMPORTANT,
    around,
    named_in,
)
from baton_agent_runner.domain.wording import is_negation, normalised, words

# Where a clause that lists several areas parts: commas (and the joining words after them:
# "не только работа, но и семья"), "и", "или", "and", "or", "/", "&", "+".
# A separator starts where a run of white space starts (`(?<!\s)`), and takes the run whole
# (`*+`, `++`): tried from each space of a run, each try read the rest of the run, and "work"
# with 8,000 spaces after it took the greeter 10 s (quadratic), in the agent-runner's loop.
_LISTED = re.compile(
    r"(?<!\s)(?:\s*+,\s*(?:(?:и|а|но|или|также|and|but|or|also|plus)\s+)*"
    r"|\s++(?:и|или|а\s+также|and|or|as\s+well\s+as|plus|&|\+)\s+|\s*+/\s*)",
    re.IGNORECASE,
)
# A lead-in before a listing says that all the areas listed matter ("Для меня важны
# карьера, здоровье и семья", "What matters to me is ...", "For me it's ..."): words of these,
# and a word of `MATTERS` or "для меня"/"for me"/"to me" among them. A word that ranks the
# first area above others that say something of their own ("Самое важное — работа, потом
# здоровье") makes it the first's.
_LEAD_IN = frozenset({
    "для", "меня", "мне", "лично", "сейчас", "очень", "это", "у", "и", "а", "ну", "вот", "что",
    "for", "to", "me", "personally", "what", "is", "are", "it's", "its", "it", "that's",
    "thats", "these", "those", "they", "right", "now", "really", "i", "things", "that", "am",
    "so", "well", "about", "currently", "very", "today", *OWNING,
})  # fmt: skip
# Not "больше"/"more": "Мне нужно больше спорта" says something of sport alone.
_RANKS = (
    "most", "first", "top", "main", "especially", "number", "primar", "самое", "самая",
    "самый", "главное", "главная", "главный", "важнее", "важнейш", "всего", "особенно",
    "прежде", "сначала", "перв",
)  # fmt: skip
# A dash in a listed piece that says nothing after its area puts what it says before it:
# "Самое важное — работа, здоровье — бегаю" is two clauses, and work is not listed bare.
_DASH = re.compile(r"[—–]|\s-\s")


def parts_of(clause: str) -> dict[str, str]:
    """Each area's own part of a clause that lists several ("Работа, здоровье и семья"): from
    the piece naming it to the next piece naming another area, a lead-in ("Для меня важны")
    with the first. Areas listed bare before one piece that goes on ("работа и здоровье
    важнее всего", "work, health and family matter most") share what it says: each gets the
    listing, from its first area (or its lead-in) to the end. A clause of one area is its own
    part (none here)."""
    if each_a_word := _bare_words(clause):
        return each_a_word
    groups = _groups(clause)
    if len(set().union(*(areas for _, _, areas in groups))) < 2:
        return {}
    parts: dict[str, str] = {}
    spans = _spans(clause, groups)
    if spans[0] == groups[0][:2]:  # the first area's part is its own: no lead-in of all
        bare = all(around(clause[first:last]) == ([], []) for first, last, _ in groups[1:])
        spans[0] = (spans[0][0] + _lead_in(clause[slice(*spans[0])], bare), spans[0][1])
    for (_, _, areas), (first, end) in zip(groups, spans, strict=True):
        for area in areas:
            parts.setdefault(area, clause[first:end].strip())
    return parts


def _bare_words(clause: str) -> dict[str, str]:
    """Each area of a clause of area words alone, without commas ("работа здоровье семья",
    "work health family"): a word each; {} for any other clause."""
    pieces = [piece.strip(_PUNCTUATION) for piece in clause.split()]
    if len(pieces) < 2 or is_action(clause):
        return {}  # "learn piano" is one thing to do, not growth's "learn" and a hobby's "piano"
    named = [named_in(piece) for piece in pieces]
    if any(len(areas) != 1 for areas in named) or len(set().union(*named)) != len(pieces):
        return {}
    return {area: piece for areas, piece in zip(named, pieces, strict=True) for area in areas}


_PUNCTUATION = ".,;:!?…()\"'«»"


Groups = tuple[tuple[int, int, frozenset[str]], ...]


# A turn reads the same clause's groups dozens of times (`parts_of`, `listed_bare` and
# `listed_after`, for each reading of its message), each a `named_in` of every piece: for
# "work" and 8,000 commas that took discovery 0.8 s. Read once, the groups are kept.
@lru_cache(maxsize=64)
def _groups(clause: str) -> Groups:
    """The (start, end, areas) of each run of consecutive pieces of a listing that name the
    same areas, a piece naming none going on with the one before it."""
    groups: list[tuple[int, int, frozenset[str]]] = []
    start = 0
    for separator in [*_LISTED.finditer(clause), None]:
        end = len(clause) if separator is None else separator.start()
        areas = frozenset(named_in(clause[start:end]))
        if groups and not (areas and groups[-1][2] and not areas <= groups[-1][2]):
            first, _, known = groups.pop()  # the same areas, or none: the same part goes on
            groups.append((first, end, known | areas))
        else:
            groups.append((start, end, areas))
        start = len(clause) if separator is None else separator.end()
    return tuple(groups)


def listed_bare(clause: str) -> list[tuple[int, int, int]]:
    """The areas listed bare before one that says something after it, which they share:
    (start, end, at) for each, `at` where the area word they share it with starts ("Hobbies
    and work don't matter": "Hobbies", and where "work" starts)."""
    groups = _groups(clause)
    said = [around(clause[first:end]) for first, end, _ in groups]
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


def listed_after(clause: str) -> list[tuple[int, int, int]]:
    """The areas listed bare after a first one that says nothing after its area, which share
    what is said before it: (start, end, at) for each, `at` where the first's area word starts
    ("нет хобби и спорта": "спорта", and where "хобби" starts). The listing is joined as in
    `_listing_start`: by one joining word, commas before it ("нет хобби, спорта и музыки")."""
    groups = _groups(clause)
    said = [around(clause[first:end]) for first, end, _ in groups]
    joins = [_joined(clause[left[1] : right[0]]) for left, right in pairwise(groups)]
    found: list[tuple[int, int, int]] = []
    # Each group read once, not once for each group before it (thousands of "work, health, "
    # took discovery seconds): how far the joined bare groups go on from it (`reach`), where
    # the commas alone before it start (`commas`), and the last join before it that is
    # neither a comma nor its own (`other`).
    reach = list(range(len(groups)))
    for at in range(len(joins) - 1, -1, -1):
        if joins[at] is not None and said[at + 1] == ([], []):
            reach[at] = reach[at + 1]
    commas = list(range(len(groups)))
    for at in range(1, len(groups)):
        if joins[at - 1] == ",":
            commas[at] = commas[at - 1]
    other: list[int] = []
    seen: dict[str | None, int] = {}
    for at, join in enumerate(joins):
        other.append(max((n for word, n in seen.items() if word != join), default=-1))
        if join != ",":
            seen[join] = at
    first = 0
    while first < len(groups):
        # a comma alone lists no more ("нет хобби и спорта, работа")
        last = max(first, commas[reach[first]])
        # The first area says nothing after it, and one word joins, the last join among them.
        if not said[first][1] and last > first and other[last - 1] < first:
            piece = normalised(clause[slice(*groups[first][:2])])
            word = min(
                (hit.start() for one in AREA_PATTERNS.values() for hit in one.finditer(piece)),
                default=0,
            )
            found += [
                (*groups[each][:2], groups[first][0] + word) for each in range(first + 1, last + 1)
            ]
        first = last + 1
    return found


def _listing_start(
    clause: str,
    groups: Groups,
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
    while before and before[-1].group() in OWNING:  # "my work" keeps its "my"
        area_at = before.pop().start()
    tokens = [word.group() for word in before]
    says_it_matters = any(token.startswith(MATTERS) for token in tokens) or bool(
        set(pairwise(tokens)) & {("для", "меня"), ("for", "me"), ("to", "me")}
    )
    lead = all(token in _LEAD_IN or token.startswith(MATTERS + _RANKS) for token in tokens)
    ranks = any(token.startswith(_RANKS) for token in tokens)
    return area_at if says_it_matters and lead and (bare or not ranks) else 0


# What the words after the last area of a listing say of every area before it: that they
# matter, or how much ("work and health matter most", "работа и семья важнее всего", "family
# and friends mean everything to me"). Other words are the last area's own: "career, fitness
# and learning Spanish", "работа, спорт и изучение английского" gave every area the listing.
_OF_ALL = (*MATTERS, *_RANKS, "everything", "всё", "все", "lot", "world")


def _says_of_all(after: list[str]) -> bool:
    """Whether the words after a listing's last area say something of all the areas."""
    return any(word.startswith(_OF_ALL) for word in after)


def _labels(piece: str) -> bool:
    """The piece names its area as a label before a colon ("health: busy"): what follows it
    says of each area listed bare before it too ("Work and health: busy" kept the fact "Work"
    for work)."""
    head, colon, rest = piece.partition(":")
    return bool(colon and rest.strip() and named_in(head)) and around(head) == ([], [])


def _labelled_from(
    clause: str, groups: Groups, said: list[tuple[list[str], list[str]]], at: int
) -> int:
    """The first of the groups that group `at`, a label (`_labels`), labels with it: the bare
    ones joined to it by "and"/"и" ("Work and health: busy"), not by a comma alone, nor one
    with words of its own ("I love work and health: running"); none when a comma lists more
    before them: the "and" ends a listing ("work, health and hobbies: pottery" gave health
    "pottery")."""
    first = at
    while first > 0 and said[first - 1] == ([], []) and said[first][0] == []:
        if "," in clause[groups[first - 1][1] : groups[first][0]]:
            return at
        first -= 1
    return first


def _spans(clause: str, groups: Groups) -> list[tuple[int, int]]:
    """Each group's part of the clause: its own, or, for a group listed bare before one that
    says something after its area, from the first such group (or a lead-in's group before
    them) to the end of the one that says it. What says no ("хобби нет", "hobbies don't
    matter", "хобби неважны") is not shared as a part (`listed_bare` shares it to decline the
    areas), nor is it with a group that says its own before a dash ("Самое важное — работа")."""
    spans = [(first, end) for first, end, _ in groups]
    said = [around(clause[first:end]) for first, end, _ in groups]
    for at, (_, after) in enumerate(said):
        no = any(is_negation(word) or word in ("нет", "no") for word in after)
        if _labels(clause[slice(*groups[at][:2])]):
            first = _labelled_from(clause, groups, said, at)
            spans[first : at + 1] = [(groups[first][0], groups[at][1])] * (at + 1 - first)
            continue
        if not _says_of_all(after) or no or UNIMPORTANT.search(" ".join(after)):
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
