"""Questions a user asks back about discovery's own question, each with a short answer before
that question is asked again: what "areas" are, whether several may be named, whether one has
to answer, why it asks (before any area is named), and what comes next (at a follow-up
question). Each got the question again word for word, or the generic "I ask so that ..."."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from typing import Literal

from baton_agent_runner.domain.wording import normalised

Asked = Literal["areas", "several", "must", "why", "next"]

# What may stand before a question back or after it: "а", "so", "wait", "hmm", "?!".
_LEAD = r"^\W*(?:(?:а|и|ну|так|хм+|and|so|but|wait|ok|okay|hmm+|um)\b\W*)*"
_TAIL = r"\W*$"

# What one area is asked about by its name: "what do you mean by growth?", "что значит
# развитие?" (it was saved as the growth fact "what do you mean by growth").
_AREA = (
    r"(?:work|job|health|relationships|family|growth|hobb(?:y|ies)|financ\w*|money|работ\w*"
    r"|здоровь\w*|отношени\w*|семь\w*|развити\w*|саморазвити\w*|хобби|финанс\w*)"
)
_ABOUT_AREA = (
    rf"(?:what|whats|what's)\s+(?:do\s+you\s+mean\s+by|does|is|counts?\s+as)\s+{_AREA}"
    rf"(?:\s+mean)?|что\s+(?:значит|такое|ты\s+имеешь\s+в\s+виду\s+под|входит\s+в)\s+{_AREA}"
    # Which others there are: "what else is there?", "what other areas are there?", "а что
    # ещё можно?" got "I did not quite get that" at the summary.
    r"|what\s+(?:else|other\s+areas?)\s+(?:is|are)\s+there|что\s+ещ[её]\s+(?:можно|бывает)"
)

_ASKS: tuple[tuple[Asked, str], ...] = (
    ("areas", _ABOUT_AREA),
    (
        "areas",
        r"(?:what|whats|what's)\s+(?:do\s+you\s+mean\s+by|does|is\s+an?|are|counts?\s+as"
        r"|kind\s+of|sort\s+of|are\s+the)\s+(?:an?\s+)?(?:life\s+)?areas?(?:\s+of\s+(?:my\s+)?life)?"
        r"(?:\s+mean)?|what'?s\s+(?:an?\s+)?(?:life\s+)?area|(?:what|which)\s+areas|areas|like\s+what"
        r"|что\s+(?:значит|значат|такое|ты\s+имеешь\s+в\s+виду\s+под|за)\s+(?:области|область"
        r"|сферы|сфера)(?:\s+жизни)?|(?:в\s+смысле\s+)?област\w*|какие\s+(?:еще\s+|бывают\s+)?области"
        r"|(?:это\s+)?например\s+что",
    ),
    (
        "several",
        r"(?:can|may|could|should)\s+i\s+(?:say|name|pick|choose|list|give|have|mention)\s+"
        r"(?:more\s+than\s+one|several|multiple|a\s+few|many|two|three|more)(?:\s+areas?)?"
        r"|(?:more\s+than\s+one|several|multiple|only\s+one|just\s+one)(?:\s+areas?)?"
        r"|how\s+many(?:\s+areas)?(?:\s+(?:should\s+i\s+(?:name|say|pick)|do\s+(?:you|i)\s+need"
        r"(?:\s+to\s+(?:name|say|pick))?))?"
        r"|(?:а\s+)?можно\s+(?:назвать\s+)?(?:несколько|больше\s+одной|не\s+одну|пару|много)"
        r"(?:\s+(?:областей|сразу))?|(?:только\s+)?одну|(?:только\s+)?одну\s+область"
        r"|сколько\s+(?:нужно\s+|надо\s+|можно\s+)?(?:областей|назвать|называть)",
    ),
    (
        "must",
        r"do\s+i\s+(?:have|need)\s+to(?:\s+(?:answer|say|do\s+(?:this|it)|name\s+\w+))?|must\s+i"
        r"|is\s+(?:it|this)\s+(?:required|mandatory|necessary|obligatory)|(?:can|may)\s+i\s+not"
        r"|(?:а\s+)?(?:это\s+)?обязательно(?:\s+(?:три|отвечать|называть))?|(?:а\s+)?(?:надо|нужно)\s+(?:ли\s+)?(?:отвечать|это)"
        r"|(?:а\s+)?можно\s+не\s+(?:отвечать|говорить)",
    ),
    (
        "why",
        r"(?:зачем|для\s+чего|почему)(?:\s+(?:это|это\s+нужно|нужно|спрашиваешь))?"
        r"|why(?:\s+(?:this|that|though|is\s+that\s+needed))?|what\s+for|what'?s\s+(?:it|this)\s+for"
        # "зачем ты спрашиваешь?", "why are you asking?", "why does it matter?" got "I did
        # not quite get that", or the question again alone.
        r"|(?:зачем|почему|для\s+чего)\s+(?:ты|вы)\s+(?:это\s+)?(?:спрашиваешь|спрашиваете)"
        r"|why\s+(?:are\s+you\s+asking|(?:do|would)\s+you\s+(?:ask|want\s+to\s+know)"
        r"|does\s+(?:it|this|that)\s+matter)(?:\s+(?:this|that|me))?",
    ),
    (
        "next",
        r"(?:what|whats|what's)\s+(?:is\s+)?(?:next|after\s+(?:this|that))(?:\s+then)?"
        r"|what\s+(?:comes|happens)\s+(?:next|after\s+(?:this|that))"
        r"|(?:что|а\s+что)\s+(?:дальше|потом|будет\s+(?:дальше|потом|после))",
    ),
)
_PATTERNS = tuple((key, re.compile(f"{_LEAD}(?:{body}){_TAIL}")) for key, body in _ASKS)


def asked_back(message: str) -> Asked | None:
    """Which question about discovery's own question the whole message asks ("what do you mean
    by areas?", "what do you mean by growth?", "можно несколько?", "do i have to?", "зачем
    это?", "what's next?"), or None; its "?" may be left out. A message with more in it ("what
    do you mean by areas? work") is read as an answer."""
    lowered = normalised(message.strip())
    return next((key for key, pattern in _PATTERNS if pattern.match(lowered)), None)
