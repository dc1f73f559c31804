"""Words of a message as the scripted agents compare them: normalised, in clauses, and the
negations before a word."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

_NEGATIONS = frozenset({
    "не", "ни", "not", "never", "cannot", "dont", "didnt", "doesnt", "cant", "isnt", "arent",
    "wasnt", "havent",
})  # fmt: skip
""""нет" is none: before a word it answers a question ("Нет, давай", "Вопросов нет давай")."""
# Words that may stand between a negation and the word it negates ("не совсем понятно", "not
# yet ready", "I don't think I'm ready"); any other word ends its reach, so "не знаю давай"
# and "I don't know, let's go" are ready.
_SOFTENERS = frozenset({
    "совсем", "очень", "вполне", "пока", "еще", "до", "конца", "особо", "полностью", "так",
    "то", "чтобы", "думаю", "что", "я", "yet", "quite", "really", "fully", "entirely",
    "completely", "totally", "so", "very", "too", "that", "all", "think", "i", "i'm", "im",
    "am", "feel",
})  # fmt: skip
_REACH = 3
"""At most this many softeners between a negation and its word."""
# A comma before "что" joins what it says to the clause before it: "Я не уверен, что готов"
# is one doubt, "Я думаю, что готов" one readiness.
_CLAUSE = re.compile(r"(?:[.;:!?()\n]|,(?!\s*что\b))+|\s[—–-]\s|\b(?:но|а|but|though)\b")


_CAPITAL, _SMALL = "A-ZА-ЯЁ", "a-zа-яё"
_LONGEST_NAME = 24
# After a name a lone capital is an initial that ends it ("Петров В. Работа важна"), so its dot
# may end a sentence: one negative lookbehind per length of the name before it, since `re`
# wants each of one width.
_NOT_AFTER_A_NAME = "".join(
    rf"(?<!\b(?-i:[{_CAPITAL}][{_SMALL}]{{{n}}}\s[{_CAPITAL}]))" for n in range(1, _LONGEST_NAME)
)
INITIAL_DOT = rf"(?<=\b(?-i:[{_CAPITAL}])){_NOT_AFTER_A_NAME}\.(?=[^\S\n]*(?-i:[{_CAPITAL}]))"
"""A pattern for the dot of an initial before a name ("В. Петрову", "J. Smith", "А.С. Пушкину"):
a lone capital's dot before a capital, not after a name. It ends no sentence: a pattern that
parts text at dots puts `(?!INITIAL_DOT)` before them, so that the initial stays with its name."""
COUNT_DOT = (
    r"(?<=\d)\.(?=[^\S\n]+(?:times|x|per|a\s+(?:day|week|month)|раза?|в\s+(?:день|неделю|месяц))\b)"
)
"""A pattern for a dot typed after a number that what follows counts ("gym 2. times a week",
"бегать 3. раза в неделю"): it ends no sentence, as `INITIAL_DOT` does not, and a pattern that
parts text at dots puts `(?!COUNT_DOT)` before them too. Saved, the item was cut in two ("gym
2", "times a week"), and discovery kept "gym 2"."""
NO_END_DOT = rf"(?:{INITIAL_DOT}|{COUNT_DOT})"
"""A dot that ends no sentence: an initial's or a count's."""
LIST_COMMA = r",(?!(?<=\d,)\d{3}(?!\d))"
"""A pattern for a comma that may part a list: not one between thousands ("$1,200", "3,450.00"):
"pay visa card ($1,200), call mom" was saved as "pay visa card ($1" and "200)"."""
_ENDS_WITH_INITIAL = re.compile(
    rf"(?-i:[{_CAPITAL}][{_SMALL}]+)\s+(?:(?-i:[{_CAPITAL}])\.\s*)*(?-i:[{_CAPITAL}])$"
)


def without_end(text: str, chars: str) -> str:
    """`text` without the `chars` that end it, but for the dot of an initial after a name
    ("позвонить Петрову В.", "call Smith J.", "Петрову В.В.")."""
    trimmed = text.rstrip(chars)
    if text[len(trimmed) :].startswith(".") and _ENDS_WITH_INITIAL.search(trimmed):
        return trimmed + "."
    return trimmed


def normalised(text: str) -> str:
    """Lowercase, one apostrophe, "е" for "ё", and "нету" (spoken "нет") as "нет": how phrases
    and stems are compared. Every character stays where it was (a space takes the "у"), since
    positions found in it are read in the text ("хобби нету" was saved as a hobby)."""
    return _NETU.sub("нет ", text.lower().replace("’", "'").replace("ё", "е"))


_NETU = re.compile(r"(?<!\w)нету(?!\w)")


def words(text: str) -> list[str]:
    """The words of `text`, normalised, punctuation dropped."""
    return re.findall(r"[\w']+", normalised(text))


def clauses(text: str) -> list[list[str]]:
    """The words of each clause of `text` (clauses end at punctuation, but for a comma before
    "что", at a spaced dash, "но", "а", "but", "though")."""
    return [words(clause) for clause in _CLAUSE.split(normalised(text))]


@cache
def _by_first_word(phrases: tuple[str, ...]) -> dict[str, tuple[list[str], ...]]:
    """The phrases of a (constant) phrase list by their first word, split into words once."""
    index: dict[str, list[list[str]]] = {}
    for phrase in phrases:
        want = phrase.split()
        index.setdefault(want[0], []).append(want)
    return {first: tuple(wants) for first, wants in index.items()}


def starts(tokens: list[str], phrases: tuple[str, ...]) -> Iterable[int]:
    """Where some phrase's words start in `tokens`: one pass over the tokens, not one per
    phrase (a turn reads its message against about a hundred phrases)."""
    index = _by_first_word(phrases)
    for i, token in enumerate(tokens):
        for want in index.get(token, ()):
            if tokens[i : i + len(want)] == want:
                yield i


def is_negation(token: str) -> bool:
    """ "не", "not", "never", a word ending in "n't"... ("нет" is none: see `_NEGATIONS`)."""
    return token in _NEGATIONS or token.endswith("n't")


def negated_before(tokens: list[str], at: int) -> bool:
    """A negation anywhere before `at` in its clause: how a confirmation is denied ("I don't
    think that's right")."""
    return any(is_negation(t) for t in tokens[:at])


def negated_next_to(tokens: list[str], at: int) -> bool:
    """A negation right before `at`, or with only softeners between ("not quite ready")."""
    for back in range(at - 1, max(at - 2 - _REACH, -1), -1):
        if is_negation(tokens[back]):
            return True
        if tokens[back] not in _SOFTENERS:
            return False
    return False


def said(text: str, phrases: tuple[str, ...], *, negated: bool) -> bool:
    """Some phrase is in `text`, with (or without) a negation before it in its clause
    (`negated_before`). The clause's first negation is found once: looked for again before each
    phrase, a clause of thousands of them ("ok ok ok ...") took seconds."""
    for tokens in clauses(text):
        found = list(starts(tokens, phrases))
        if not found:
            continue  # most clauses: no negation looked for
        first = next((at for at, token in enumerate(tokens) if is_negation(token)), len(tokens))
        if any((first < at) == negated for at in found):
            return True
    return False


def hits(tokens: list[str], phrases: tuple[str, ...], *, negated: bool) -> bool:
    """Some phrase is in the clause `tokens`, with (or without) a negation right before it."""
    return any(negated_next_to(tokens, at) == negated for at in starts(tokens, phrases))


def has_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    """Some phrase is in `text` as whole words, negated or not."""
    padded = " " + " ".join(words(text)) + " "
    return any(f" {p} " in padded for p in phrases)
