"""Everyday words for the life areas, read with the area words of `areas`: "doctor", "knees",
"football", "кино", "mates", "my band", "woodworking", "crossfit" named no area, and the user
was asked for the areas again."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

HEALTH_EVERYDAY = (
    # Doctors named as a part of life ("doctor", "doctor visits", "врачи"), not one an errand
    # sees ("see a doctor", "записаться к врачу", "поход к врачу": tasks), the user's trade
    # ("I'm a doctor", "я врач", "работала врачом": work), nor one who only speaks ("my
    # doctor", "врач сказал", "my doctor recommended Baton": `areas.REFERRAL`).
    r"(?<!\ba )(?<!\bthe )(?<!\bmy )doctors?\b(?!\s+(?:said|says|told|recommended|suggested)\b)",
    r"(?<!\bя )врачи?\b"
    r"(?!\s+(?:сказал|говорит|советует|посоветовал|порекомендовал|рекомендует|рассказал))",
    # Going to the doctor as a habit, more or regularly: "going to the doctor more", "чаще
    # ходить к врачу" (it named no area); not once, as an errand does ("see the doctor").
    r"(?:go(?:es|ing)?|get(?:ting)?|see(?:ing)?|visit(?:ing)?)\s+(?:to\s+)?(?:the\s+|a\s+|my\s+)?"
    r"doctors?\s+(?:more|regularly|often|every)\b",
    r"(?:чаще|регулярно)\s+(?:ходить|хожу|ходит|бывать)\s+(?:к|у)\s+врач(?:у|ам|ей|а)\b",
    r"(?:ходить|хожу|бывать)\s+(?:к|у)\s+врач(?:у|ам|ей|а)\s+(?:чаще|регулярно)\b",
    # The body: "knees", "back pain", "колени", "my blood pressure"; "давление" as the blood's,
    # not pressure at work ("давление на работе", "давление начальства").
    r"knees?\b",
    r"(?:back|neck|joint|knee)\s+pain\b",
    r"blood\s+pressure\b",
    r"колен(?:и|о|а|ей|ям|ями|ях)\b",
    # "повышение давления" stays the rise it names (no promotion, and no priority).
    r"давлени(?:е|ем)\b(?!\s+(?:на\s|со\s+сторон|начальств|руководств|родител|обществ"
    r"|коллег|сроков|дедлайн|сверху))",
    # Eating as a habit: "eating better", "eat healthier"; not "eat out".
    r"eat(?:ing)?\s+(?:better|healthier|healthy|well|right|less\s+junk)\b",
    r"crossfit\b",
    r"кроссфит",
)
HOBBIES_EVERYDAY = (
    # Not "футболка" (a T-shirt), "кинотеатр" is one: "кино" as a whole word.
    r"football\b",
    r"soccer\b",
    r"футбол(?:а|у|ом|е)?\b",
    r"cooking\b",
    r"кино\b",
    # Pastimes that named no area: "my band", "woodworking", "играю в группе" (a music band;
    # not a rubber or a resistance band, nor a group at work).
    r"(?:my|our)\s+bands?\b",
    r"bands?\s+(?:practice|rehearsals?|gigs?)\b",
    # Playing "in a band", not working in one: "I work in a band", "I work as a musician in a
    # band" named hobbies beside work (and "as a music..." is a trade: `areas`).
    r"(?<!\bwork )(?<!\bworks )(?<!\bworking )(?<!\bworked )(?<!\bmusician )in\s+a\s+band\b",
    r"(?:играю|играть|играем)\s+в\s+(?:своей\s+|нашей\s+|рок-)?группе\b",
    r"woodwork(?:ing)?\b",
    r"pottery\b",
    r"sewing\b",
    r"crafts\b",
    r"surfing\b(?!\s+(?:the\s+)?(?:web|internet|net)\b)",
    r"skiing\b",
    r"lego\b",
    r"anime\b",
)
RELATIONSHIPS_EVERYDAY = (
    # Friends as British chat says them; not "roommates", "teammates", "classmates".
    r"mates\b",
)
