"""What a message asks of Baton itself, whose words name a life area all the same: "а как это
работает?" is no work priority, "а деньги за это возьмут?" none of finances."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

# On normalised text ("е" for "ё"). A thing ("это", "оно", "всё это", "бот") and the verb:
# "как это работает", "это вообще работает", "работает ли это"; "муж работает", "это работа"
# stay. The Russian of `areas.THING_WORKS`.
# "все" alone only after "как": "в семье все работают" names work.
_THING = r"(?:это(?:\s+все)?|все\s+это|оно|бот|baton|онбординг)"
_HOW = r"(?:(?:вообще|вс[её]|же|точно|правда|реально|не|у\s+тебя|тут|здесь)\s+)*"
THING_WORKS = re.compile(
    rf"\b(?:как\s+)?{_THING}\s+{_HOW}работа(?:ет|ют|ть)\b|\bкак\s+все\s+{_HOW}работает\b"
    rf"|\bработает\s+ли\s+{_THING}\b"
)
"""On normalised text: "работает" as what Baton does ("а как это работает?"); no area."""
# Paying for Baton: "а деньги за это возьмут?", "платить за это надо?", "денег за бота не
# берут?"; "деньги за квартиру" is a priority of finances.
PAID_FOR_IT = re.compile(
    r"(?:деньг\w*|денег|плат\w*|заплат\w*)\s+(?:\w+\s+)?за\s+(?:это|него|нее|бота|baton"
    r"|онбординг|сервис|приложение)\b"
    r"|(?:возьмут|берут|брать\s+будут)\s+(?:ли\s+)?(?:деньги|денег)\b"
)
"""On normalised text: money asked of as Baton's price; the words name no finances."""
