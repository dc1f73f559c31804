"""What a message says around an area's fact that is no part of it, as fragments of the
lead-in and the tail `areas.trimmed` takes off: that the area was said before ("work i said",
"здоровье тоже, я же сказал", "работа же") or forgotten ("you forgot my health: my knees"),
a hedge ("not sure, maybe health"), and a request about the area ("don't remove work, I still
work as a nurse", "работу всё-таки верни"). Each was kept in the summary as the fact."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

_KEEP_VERBS = r"(?:remove|delete|drop|forget|убирай(?:те)?|удаляй(?:те)?|вычеркивай(?:те)?)"
_UPTO_STOP = r"[^,.;:!?—–]+?\s*[,.;:!—–]\s*"

_OFFER = r"(?:say|put|pick|name|include|add|count|mention)"

# A hedge before what is said, with a comma: "not sure, ...", "не знаю, ...", "не уверен, ...".
_HEDGE = (
    r"(?:(?:i['’]?m|i\s+am)\s+)?not\s+(?:(?:so|really|too|quite)\s+)?sure\s*[,.]\s*(?=\S)"
    r"|(?:я\s+)?не\s+(?:знаю|уверен[аы]?)\s*[,.]\s*(?=\S)"
)
HEDGE = re.compile(rf"^\W*(?:{_HEDGE})", re.IGNORECASE)
"""A hedge that opens a message: no "no" ("not sure, maybe health" took the fact as said)."""

FILLER_LEADING = (
    # "you forgot my health: ...", "ты забыл про здоровье — ...": the label then says the fact.
    r"|(?:you\s+forgot(?:\s+about)?|ты\s+забыл[аи]?(?:\s+(?:про|о|об))?)\s+(?=\S)"
    # "don't remove work, I still ...", "не убирай работу, я ...": the area, then its fact.
    rf"|(?:don'?t|do\s+not|не)\s+{_KEEP_VERBS}\s+{_UPTO_STOP}(?=\S)"
    r"|(?:верни(?:те)?|bring\s+back|restore)\s+(?=\S)"
    # "not work — family": what is taken back before the dash, as before "but" or "а".
    r"|(?:not|не)\s+[^\s,.;:!?—–]+(?:\s+[^\s,.;:!?—–]+)?\s*[—–]\s*(?=\S)"
    # A hedge: "not sure, maybe health", "не знаю, наверное здоровье" kept it in the fact.
    rf"|{_HEDGE}"
    # A lead-in: "ок, тогда учёба — английский", "more like hobbies: chess", "oh, hobbies:
    # chess", and "keep" before a label ("keep health: the gym") were kept in the fact.
    r"|(?:тогда|oh|ah|ой|more\s+like)[\s,]+(?=\S)"
    r"|(?:keep|оставь(?:те)?)\s+(?=[^\s,.;:!?—–]+(?:\s+[^\s,.;:!?—–]+)?\s*:)"
    # An area offered as a question: "is it ok if I say my dog?", "can I put my band?", "а
    # можно сказать собака?", "does my dog count?" were kept whole as the fact.
    rf"|(?:is\s+it\s+ok(?:ay)?\s+(?:if\s+i\s+|to\s+)|(?:can|could|may)\s+i\s+){_OFFER}\s+(?=\S)"
    rf"|(?:а\s+)?можно\s+(?:ли\s+)?(?:сказать|назвать|написать|добавить)\s+(?=\S)"
    r"|does\s+(?=\S.*\bcount\W*$)"
    # The summary's rest confirmed first: "all good except health: I want to run", "yes,
    # except work is freelancing now" kept "all good except"/"except" in the fact.
    r"|(?:(?:all|looks)\s+good|вс[её]\s+(?:так|верно|норм))?\s*,?\s*(?:except(?:\s+for)?|кроме)\s+(?=\S)"
)
"""Alternatives of `areas._LEADING` (each opens with "|")."""

# "работа же", "здоровье ведь": the particle only says it was said, as "i said" does; and
# "friends instead" is what the area holds now, as "friends" (swaps.py reads what it was).
FILLER_TRAILING = (
    r"|i\s+said|я\s+(?:же\s+)?сказал[аи]?|вс[её]-?таки|верни(?:те)?|же|ведь|instead"
    r"|(?<=\S\s)count"  # "does my dog count?", its "does" in FILLER_LEADING
    # An area said to be right as it is: "health is fine, but add hobbies" added "health is
    # fine" to the health fact.
    # Not "нормально": "не сплю нормально" says how health goes.
    r"|(?:is|are)\s+(?:fine|ok|okay|good|right|correct)|в\s+порядке"
    # Thanks and chat's "obviously" after the area: "family, thanks", "work obv" were kept
    # whole as the fact.
    r"|thanks|thank\s+you|thx|спасибо|obv|obvs|ofc"
    # Russian "in general" after the area: "family вообще", "работа в общем" kept it.
    r"|вообще|вобще|в\s+общем"
)
"""Alternatives of `areas._TRAILING` (each opens with "|")."""
