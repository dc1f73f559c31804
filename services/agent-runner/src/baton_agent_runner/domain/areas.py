"""The life areas discovery asks about (seed 001: work, health, relationships, growth,
hobbies), the words that name them, and what the user says of one area; a clause that lists
several is read in `listings`."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from baton_agent_runner.domain.area_balance import (
    NO_BALANCE_AFTER,
    NO_BALANCE_BEFORE,
    WORK_LIFE_BALANCE,
)
from baton_agent_runner.domain.area_cases import nominative
from baton_agent_runner.domain.area_everyday import (
    HEALTH_EVERYDAY,
    HOBBIES_EVERYDAY,
    RELATIONSHIPS_EVERYDAY,
)
from baton_agent_runner.domain.area_slang import HEALTH_SLANG, WORK_SLANG
from baton_agent_runner.domain.fact_details import DEFINED_AS, DEGREE_MORE
from baton_agent_runner.domain.fact_filler import FILLER_LEADING, FILLER_TRAILING
from baton_agent_runner.domain.wording import normalised, words

# Patterns matched at a word's start (`\b` before them), on lowercase text with "ё" read as
# "е": a bare stem is a prefix ("работ" finds "работе"), a trailing `\b` makes a whole word
# where a prefix would catch other words ("рост" in "просто" and "роста" alike, "сон" in
# "сонный", "work" in "workout", which is health; "homework" never starts with "work").
# Kin and pets: relationships, but also whom an errand is for ("call mom", "позвонить маме",
# "walk the dog"), which `language` reads as no priority (`KIN`). Whole words where a stem
# would catch others: "мамонт", "папка", "который" ("кот"), "сынок" is kin too.
_KIN = (
    r"parents?\b", r"(?:grand)?(?:mom|mum|mother|dad|father)s?\b", r"grandkids?\b",
    r"grandchild(?:ren)?\b", r"(?:sons?|daughters?)\b", r"(?:dogs?|cats?|pets?)\b",
    r"мам(?:а|ы|е|у|ой|очк[аеиуо]й?|уле|ули|уля|улю|улей)\b",
    r"пап(?:а|ы|е|у|ой|очк[аеиуо]й?)\b", "родител", r"бабушк", r"дедушк", "внук", "внуч",
    r"сын(?:а|у|ом|е|ов|овья|овей|овьям|овьями|ы|ок|ка|ку|ком)?\b",
    r"доч(?:ь|ери|ерью|ерей|ерям|ерьми|ка|ки|ке|ку|кой|ек)\b",
    r"реб[её]н(?:ок|ка|ку|ком|ке)\b", r"питом(?:ец|ца|цу|цем|це|цы|цев)\b",
    r"собак", r"(?:кош(?:ка|ки|ке|ку|кой|ек)|кот(?:а|у|ом|е|ы|ов|ам)?)\b",
    # "девушка", "мой парень", as "girlfriend", "boyfriend" are; "позвонить парню" an errand.
    r"девушк(?:а|и|е|у|ой)\b", r"(?:парень|парн(?:я|ю|ем|е))\b",
    # Siblings and the wider family: "my brother and my grandma" named nothing, "my mental
    # health and my sister" health alone. Whole words: "брать", "дядька" aside.
    r"(?:sisters?|brothers?|siblings?)\b", r"grand(?:ma|pa|parents?|mas|pas)\b",
    r"grann(?:y|ies)\b", r"(?:aunts?|uncles?|cousins?|nieces?|nephews?)\b",
    r"сестр(?:а|ы|е|у|ой|ам|ами|ах|енк[аиеуо]й?|ичк[аиеуо]й?)?\b",
    r"брат(?:а|у|ом|е|ья|ьев|ьям|ьями|ьях|ишк[аиеуо]й?|ик[аиуе]?)?\b",
    r"тет(?:я|и|е|ю|ей)\b", r"дяд(?:я|и|е|ю|ей)\b",
)  # fmt: skip
# The others an errand is as often for: "book swim lessons for the kids, order new running
# shoes", said to discovery's summary, replaced the relationships fact with that errand.
_CLOSE_ONES = (
    r"kids?\b", r"children\b", r"wife\b", r"husband\b", r"partner\b", r"(?:girl|boy)friend\b",
    r"[gb]f\b", r"дет(?:и|ей|ям|ьми|ях)\b", r"муж(?:а|у|ем)?\b", r"жен(?:а|ы|у|ой|е)\b",
)  # fmt: skip
KIN = re.compile(r"\b(?:" + "|".join((*_KIN, *_CLOSE_ONES)) + ")")
"""The kin, pet and partner words of relationships: in an errand ("позвонить маме", "pick up
the kids") no priority."""
# Where and for whom the user works ("my startup", "my boss" went unheard): they name work,
# and say which, so "my startup" is no mere name of work again (`SAYS_WHICH`).
_WHICH_WORK = (
    r"start-?ups?\b", r"boss(?:es)?\b", "стартап",
    r"начальни(?:к|ка|ку|ком|ке|ца|цы|цу|цей)\b", r"босс(?:а|у|ом|е)?\b",
)  # fmt: skip
SAYS_WHICH = re.compile(r"\b(?:" + "|".join(_WHICH_WORK) + ")")
"""Area words that say which of the area it is ("startup"), not only name it."""
# "Work out", "working out" as exercise: "I need to work out more" was kept as a work priority.
# Not what is worked out ("work out the details", "work out a plan"), nor a thing that
# worked out ("things worked out", "it worked out": `THING_WORKS` reads "it").
_WORK_OUT = (
    r"(?<!\bthings )(?<!\bthat )(?<!\bthis )(?<!\beverything )"
    r"work(?:s|ed|ing)?[\s-]+out\b(?!\s+(?:the|a|an|my|our|your|his|her|their|this|that|these"
    r"|those|how|what|whether|if|why|when|where|who|which|it|them|some|any|a\s+plan)\b)"
)
# Running as exercise ("I love running", "go for a run"), not what else runs: "running late",
# "running errands", "running a business" (work by its own word), "running out of time".
_RUNNING = (
    r"(?<!\bkeep )(?<!\bkeeps )(?<!\bbeen )running\b(?![\s-]+(?:late|out|low|behind|errands?|a|an"
    r"|the|my|our|his|her|their|this|that|it|things|around|away|into|over|through|on|for|up"
    r"|down|of|shoes?|water|costs?|total|joke|gag|list|time|mate)\b)"
    r"|\b(?:go(?:es|ing)?|went)\s+(?:for\s+(?:a\s+)?)?runs?\b"
    r"|\b(?:morning|evening|daily|long|weekend)\s+runs?\b"
    # "I run every morning" was kept with the savings after it as finances; not "I run a
    # business", which is work, nor "I run late".
    r"|\b(?:i|we)\s+(?:also\s+|still\s+)?run\s+(?=(?:every|each|daily|most|twice|once|three"
    r"|four|five|\d+|a\s+few|a\s+lot|regularly|in\s+the\s+(?:morning|evening)|on\s+weekends"
    r"|marathons?|\d+\s*k)\b)"
)
AREAS: dict[str, tuple[str, ...]] = {
    "work": (
        # Not "work out", "working out": exercise, which is health (`_WORK_OUT`).
        r"(?:co-?)?work(?:ing|ers?|loads?|places?|days?|life)?\b(?![\s-]+out\b)"
        + NO_BALANCE_AFTER,
        r"jobs?\b",
        "career", r"promot(?:ed|ions?)\b", r"salar(?:y|ies)\b", r"a\s+(?:pay\s+)?raise\b",
        # A promotion, not a rise in blood pressure or prices ("повышение давления").
        r"повышени(?:е|я|ю|ем|и)\b(?!\s+(?:давлени|цен|температур|сахар|уровн))", "зарабат",
        # Not the verb of a thing: "how this works", "that works for me", "it worked".
        r"(?<!\bit )(?<!\bthis )(?<!\bthat )(?<!\bhow )work(?:s|ed)\b(?![\s-]+out\b)",
        # Not "none of your business", "mind your own business": no work, a refusal.
        r"(?<!your )(?<!your own )business", r"side[\s-]+(?:hustle|gig|project|business)s?\b",
        *_WHICH_WORK,
        NO_BALANCE_BEFORE + "работ",
        "заработ", "подработ", "переработ", "карьер", "бизнес", "зарплат",
        # The user's own trade, said as what they are ("я программист, люблю играть на
        # гитаре" was kept as hobbies alone): only after "I'm a", "я", not "my doctor".
        r"(?:i'?m|i\s+am)\s+an?\s+(?:(?:software|web|civil)\s+)?(?:nurse|teacher|developer"
        r"|programmer|engineer|designer|manager|lawyer|accountant|consultant|freelancer"
        r"|doctor|dentist|architect|chef|cook|driver|mechanic|electrician|plumber|salesman"
        r"|sales\s+rep|journalist|writer|translator|analyst|researcher|pharmacist"
        r"|paramedic|firefighter|police\s+officer|barista|waiter|waitress)\b",
        r"я\s+(?:(?:по\s+профессии|работаю)\s+)?(?:программист|разработчик|учитель|учительница"
        r"|врач|инженер|дизайнер|менеджер|бухгалтер|юрист|медсестра|медбрат|архитектор|повар"
        r"|водитель|механик|электрик|сантехник|продавец|продавщица|журналист|переводчи(?:к|ца)"
        r"|аналитик|фрилансер|консультант|таксист|курьер|официант(?:ка)?|парикмахер"
        r"|стоматолог|фармацевт|тестировщи(?:к|ца)|предприниматель)\b",
        # Russian in Latin letters ("rabota, zdorovie, semya"): see `translit`.
        r"rabot[auye]?\b", r"kar'?er[auye]\b",
        *WORK_SLANG,
    ),
    "health": (
        "health", "sport", "fitness", r"gym\b", r"workouts?\b", "exercis", "sleep",
        *HEALTH_SLANG,
        *HEALTH_EVERYDAY,
        *WORK_LIFE_BALANCE,
        # Said as what the user wants to do: "getting fit", "lose weight" went unheard.
        r"(?:get(?:ting)?|stay(?:ing)?|keep(?:ing)?)\s+fit\b", r"weight(?:\s+loss)?\b",
        # "I'd also like to get in shape" went unheard.
        r"(?:get(?:ting)?|stay(?:ing)?|keep(?:ing)?|back)\s+in(?:to)?\s+(?:better\s+|good\s+)?shape\b",
        # Not "swim lessons for the kids", an errand; running as exercise only (`_RUNNING`).
        _WORK_OUT, r"yoga\b", r"swimming\b(?!\s+(?:lessons?|class(?:es)?|suits?|pool\s+pass))",
        r"cycling\b", r"jogging\b", _RUNNING, r"(?:half[\s-]+)?marathons?\b", "meditat",
        r"smoking\b",
        r"кур(?:ить|ение|ения|ю)\b",
        "похуде", "плавани", r"бассейн", "марафон", "медитац", r"медитир",
        "здоровь", r"здоров(?:ый|ая|ое|ые|ым|ой|ыми|ого|ом)?\b", "спорт", "фитнес",
        "трениров", r"(?:сон|сна|сну|сном|сне)\b", "высып", "выспа",
        r"(?:спать|сплю|спим|спится)\b",
        # "бег", "йога", "качалка" went unheard: what Russian users say of their health.
        r"бег\b", "пробежк", r"йог(?:а|ой|у|и)\b", "качалк", "качалочк", "тренажер",
        # "зал", the gym as said: "стартап, зал, жена" kept "стартап, зал" as work.
        r"(?<!актовый )(?<!актовом )(?<!концертный )(?<!концертном )зал(?:е|а|у|ом)?\b",
        r"zdorov(?:'?i?e|'?ye|'?ya|'?ja|'?je)\b",
    ),
    "relationships": (
        "relationship", r"famil(?:y|ies)\b", r"(?:girl|boy|best)?friend(?!l)", "partner",
        r"wife\b", "husband", r"kids?\b", "children", r"[gb]fs?\b", r"marri(?:age|ed)\b",
        "отношени", r"семь(?:я|и|е|ю|ей)\b", "семейн", "друз", "подруг", "партнер",
        r"муж(?:а|у|ем|е)?\b", r"жен(?:а|ы|у|ой|е)\b", r"дет(?:и|ей|ям|ьми|ях)\b",
        *_KIN,
        r"sem'?(?:ya|ia|ja|yu|ju|ey|ei)\b", "otnosheni", r"deti\b", r"druz'?(?:ya|ia|ja)\b",
        # Friends as chat says them: "мои кореша", "my homies" named nothing.
        "кореш", "друган", r"homies?\b", r"buddies\b", r"besties?\b",
        *RELATIONSHIPS_EVERYDAY,
    ),
    "growth": (
        "growth", r"grow(?:s|ing)?\b(?!\s+(?:up|old)\b)", "learn", r"stud(?:y|ies|ying)\b",
        r"develop(?:ing|ment)?\b", "educat",
        # Reading as a goal ("read more books"); "reading" alone is a pastime (hobbies).
        r"read(?:ing)?\s+more\b", r"read\s+(?:\w+\s+)?books?\b",
        # "Ещё хочу больше читать" named nothing.
        r"больше\s+читать\b", r"читать\s+больше\b",
        "развити", "развива", "саморазвит", "учеб", "обучени", r"уч(?:усь|иться|ишься|ить)\b",
        "выуч", "изуч", r"учу\b", r"науч(?:иться|усь)\b",
        r"рост(?:а|у|ом|е)?\b", "образовани",
        # Not "old-school", "after-school": a hyphen before it says how, not where one learns.
        # Nor where the user works: "работаю учителем в школе" was kept as growth too.
        r"(?<!-)(?<!work at a )(?<!work at the )(?<!works at a )(?<!teach at a )"
        r"(?<!teacher at a )(?<!teacher at the )school(?:s|ing)?\b",
        r"uni\b", "universit", r"colleges?\b", r"courses\b",
        r"(?:psycho)?therap(?:y|ies|ist)\b",
        "универ", "институт",
        r"(?<!работаю в )(?<!учителем в )(?<!учительницей в )(?<!работает в )школ(?:а|ы|е|у|ой)\b",
        r"курс(?:ы|ов|ах|ам)\b",
        "психотерап", r"терапи(?:я|и|ю|ей)\b", r"психолог(?:а|у|ом|е)?\b",
        # Faith is inner growth, not one of the hobbies: it is said as what the user grows in.
        # "Вера" alone is as often a friend's name ("время с Верой"): only "вера в бога".
        r"faith\b", r"church(?:es)?\b", "religio", "spiritual",
        r"вер(?:а|ы|е|у|ой)\s+в\s+бог", r"церк(?:овь|ви|овью)\b", "религи", "духовн",
        "razviti", r"uch(?:e|yo|jo|io)b[auye]\b", "obucheni",
        # Oneself as what one works on or improves: "I want to work on myself" was kept as work.
        # Only after the verb (each a fixed-width look behind), as "by myself" names nothing.
        *(rf"(?<={verb} on )(?:myself|me)\b" for verb in ("work", "works", "worked", "working")),
        *(rf"(?<={verb} над )собой\b" for verb in ("работать", "работаю", "работает", "работал",
                                                      "работала", "работали", "работаем")),
        r"(?:improv(?:e|ing)|better(?:ing)?)\s+(?:myself|me)\b", r"self[\s-]*(?:improv|develop)",
        "самосовершенств",
        # "Хочу заняться собой", "занимаюсь собой": taking oneself in hand, not a job.
        r"(?<=заняться )собой\b", r"(?<=заниматься )собой\b", r"(?<=занимаюсь )собой\b",
        r"(?<=займусь )собой\b",
    ),
    "hobbies": (
        r"hobb(?:y|ies)\b", r"(?<!\bas a )music", "guitar", "painting", "drawing", "travel",
        r"gam(?:ing|es)\b", r"video\s*games?\b", r"reading\b(?!\s+more\b)", r"fishing\b",
        r"garden(?:ing)?\b", r"hik(?:e|es|ing)\b", r"danc(?:e|es|ing)\b",
        r"knit(?:s|ting)?\b", r"chess\b", r"camping\b", r"baking\b",
        r"(?:rock\s+)?climbing\b(?!\s+(?:the\s+)?(?:career\s+|corporate\s+)?ladder)",
        r"photograph(?:y|ing)\b", r"outdoors\b", r"volunteer(?:s|ing)?\b",
        # "I'm writing a novel on weekends" named nothing; not "write a report", a task.
        r"writ(?:e|es|ing)\s+(?:a\s+|my\s+)?(?:novel|poems?|poetry|fiction|short\s+stories"
        r"|songs?)\b",
        r"(?:пишу|писать)\s+(?:роман|стихи|рассказы|песни)\b",
        # An instrument one plays or learns ("maybe learn piano?", "может, научиться играть на
        # пианино?" named no area, or growth alone).
        r"pianos?\b", r"violins?\b", r"drums\b", r"play(?:s|ing)?\s+(?:the\s+)?bass\b",
        r"ukuleles?\b", r"saxophones?\b", r"cellos?\b",
        # Singing: "only add the choir" to the summary named nothing to add.
        r"choirs?\b", r"singing\b", r"хор(?:а|у|ом|е|ы)?\b",
        "пианино", "фортепиано", r"скрипк(?:а|е|у|ой|и)\b", r"барабан(?:ы|ах|ам)\b", "укулеле",
        "саксофон",
        r"поход(?:ы|ов|ах|ами)\b", "танц", "вязан", "шахмат",
        "хобби", "увлечени", "увлека", "музык", "гитар", "рисова", "путешеств",
        r"игр(?:ы|ам|ах|ами)\b", "чтени", r"книг(?:и|а|у|ами|ам)?\b", "рыбалк", "огород",
        *HOBBIES_EVERYDAY,
        r"дач(?:а|и|е|у|ей)\b",
        r"k?hobbi\b", "uvlechen",
    ),
    # Not among the seed's five, and what users name most often besides them: "money mostly"
    # went unheard, and a user with two of the five got asked for a third again and again.
    "finances": (
        r"money\b", "financ", r"savings?\b", r"debts?\b", "budget", r"invest(?:ing|ments?)?\b",
        r"mortgage", "деньг", "денег", "финанс", "бюджет", "накоплен", "сбережен",
        r"долг(?:и|ов|ам|ами|ах)?\b", "инвест", "ипотек", "кредит",
    ),
}  # fmt: skip
# Who told the user about Baton names no priority: "my coworker recommended this" was saved
# as work, "my friend told me about this app" as relationships. A person word as the one who
# recommended, told about or suggested it, either side of the verb ("посоветовал друг").
_REFERRER = (
    r"(?:co-?workers?|colleagues?|(?:girl|boy|best)?friends?|wife|husband|partner|boss"
    r"|mom|mum|dad|sister|brother|коллег\w*|друг\w*|друз\w*|подруг\w*|жен(?:а|ой)|муж(?:ем)?"
    r"|мам(?:а|ой)|пап(?:а|ой)|сестр(?:а|ой)|брат(?:ом)?|начальни\w*"
    # "hi, my therapist recommended this app" was kept as growth.
    r"|(?:psycho)?therapist|doctor|coach|психолог|психотерапевт|терапевт|врач|коуч"
    # Kin too: "Дочка посоветовала это приложение" was kept as relationships.
    r"|daughter|son|kids|дочк\w*|доч[ьи]|сын\w*|внук\w*|внучк\w*)"
)
_TOLD_ABOUT = (
    r"(?:recommend(?:ed|s)|told\s+me\s+about|suggest(?:ed|s)|посоветовал[аи]?"
    r"|порекомендовал[аи]?|рассказал[аи]?)"
)
REFERRAL = re.compile(
    rf"\b{_REFERRER}\b(?:\s+[\w-]+){{0,3}}?\s+{_TOLD_ABOUT}\b"
    rf"|\b{_TOLD_ABOUT}(?:\s+[\w-]+){{0,3}}?\s+{_REFERRER}\b"
)
"""On normalised text: a person who recommended Baton; the areas its words name are none."""
# "work" as what a thing does, not the user's job: "How does it work?", the question a new user
# asks first, was kept as a work priority ("How does it work") and left unanswered. A thing
# ("it", "this", "everything") with a modal before or after it and the bare verb ("does this
# work", "will that work", "that'd work", "it doesn't work"), with "be" and "working" ("is it
# working"), after "how" ("how this all works"), or "it" right before it ("make it work").
# "that work", "this is work", "all that work" stay: they name the user's work.
_THING = (
    r"(?:it|this|that|this\s+(?:thing|app|whole\s+thing)|the\s+(?:app|bot)|everything|things"
    r"|all\s+(?:of\s+)?this|this\s+all|it\s+all|onboarding|baton)"
)
_MODAL = (
    r"(?:(?:does|did|do|will|would|can|could|should|might|must)(?:n'?t)?|won'?t|can'?t"
    r"|cannot|may|'ll|'d)"
)
_BE = r"(?:(?:is|was|are|were)(?:n'?t)?|'s|'re)"
_HOW = r"(?:really\s+|actually\s+|even\s+|still\s+|not\s+|never\s+|just\s+|exactly\s+|all\s+)*"
THING_WORKS = re.compile(
    rf"\b(?:{_MODAL}|how)\s+{_THING}\s+{_HOW}work(?:s|ed)?\b"
    rf"|\b{_BE}\s+{_THING}\s+{_HOW}working\b"
    rf"|\b{_THING}\s*{_MODAL}\s+{_HOW}work\b"
    rf"|\b{_THING}\s*{_BE}\s+{_HOW}working\b"
    rf"|\bit\s+{_HOW}(?:to\s+)?work(?:s|ed|ing)?\b"
    r"|(?:^|[,.;:!?]\s*)works\s+for\s+(?:me|us)\b"
)
"""On normalised text: "work" as what a thing does ("how does it work?"); no area."""
ASKED = ("work", "health", "relationships", "growth", "hobbies")
"""The areas discovery names when it asks for more (seed 001's five); `AREAS` also reads
others the user may name."""
# The words that only name an area, not a kind of it: "health i guess" says no more of health
# than its name, while "yoga", "gaming", "my startup" say which health, which hobby, which work.
_NAMES = (
    r"work(?:s|ing)?\b", r"jobs?\b", r"careers?\b", r"business(?:es)?\b", r"работ[аыеуо]?й?\b",
    r"работ(?:ой|ою)\b", r"карьер(?:а|ы|е|у|ой)\b", r"бизнес(?:а|у|ом|е)?\b", r"rabot[auye]?\b",
    r"health\b", r"здоровь(?:е|я|ю|ем)\b", r"sports?\b", r"спорт(?:а|у|ом|е)?\b", r"fitness\b",
    r"фитнес(?:а|у|ом|е)?\b", r"zdorov", r"relationships?\b", r"famil(?:y|ies)\b",
    r"отношени(?:я|й|ям|ями|ях)\b", r"семь(?:я|и|е|ю|ей)\b", r"семейн",
    r"sem'?(?:ya|ia|ja|yu|ju|ey|ei)\b", "otnosheni", r"growth\b", r"grow(?:s|ing)?\b",
    r"develop(?:ing|ment)?\b", r"развити(?:е|я|ю|ем)\b",
    r"развива", r"саморазвити", r"рост(?:а|у|ом|е)?\b", "razviti", r"hobb(?:y|ies)\b", r"хобби\b",
    r"увлечени(?:е|я|ю|ем|й|ями)\b", r"k?hobbi\b", "uvlechen", r"money\b", r"financ", r"финанс",
    r"деньг", r"денег\b",
)  # fmt: skip
NAMES_ONLY = re.compile(r"(?:" + "|".join(_NAMES) + r")\w*")
"""On one normalised word (`fullmatch`, a stem taking its endings: "семейная", "финансы"): a
word that names an area and says nothing of which part of it."""
AREA_PATTERNS = {
    area: re.compile(r"\b(?:" + "|".join(stems) + ")") for area, stems in AREAS.items()
}
"""Each area's stems as one pattern, for lowercase text with "ё" read as "е" (`normalised`)."""

# Words that only say whose an area is: a listed area with none but these is bare ("my health").
OWNING = frozenset({
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


# "I mean it", "I mean, really": emphasis after what was said, no lead-in to what was meant
# ("work, i mean it" kept the fact "it").
_EMPHASIS = (
    r"(?![\s,]+(?:it|that|really|seriously|truly|honestly)"
    r"(?:[\s,]+(?:really|seriously|truly|honestly))*[\s.!…]*$)"
)
# What a correction says before what the user meant: "I meant", "я имел в виду", "actually",
# "на самом деле", "I said", "я сказала". Not "I mean to ...", which says what the user intends.
_MEANT = (
    rf"(?:i\s+mean(?:t)?(?!\s+to\b){_EMPHASIS}|(?:я\s+)?име(?:л[аи]?|ю)\s+в\s+виду|actually"
    r"|на\s+самом\s+деле|i\s+said|я\s+(?:же\s+)?сказал[аи]?)\b"
)
# A self-correction: what follows it in its sentence replaces what came before it ("health i
# think... no wait, work" is work's alone), once what follows names an area. A marker that
# takes back (`strong`) does so whatever area follows, and opening a sentence it takes back the
# one before ("Health. No wait, work."). One that may only say more of what came before
# (`vague`: "I mean", "то есть", "точнее") does so only when what follows names an area that
# did not come before ("работа и здоровье, точнее сон" says what health is), and not opening a
# sentence ("Work is busy. I mean, family matters more" takes nothing back). A marker that ends
# in "no"/"нет" needs a stop after it: "хотя нет времени на спорт", "wait no hobbies" say no.
_STOP_AFTER = r"(?=\s*(?:[,.!…:;—–]|-\s|$))"
# "no, that's wrong" and "нет, подожди" take back too; "подожди" alone may only go on ("Семья.
# Подожди, ещё работа" adds work), and "поменялось:" says what the area is now ("нет,
# поменялось: отношения теперь это муж").
_TAKING_BACK = (
    rf"no,?\s+wait|(?:wait|actually),?\s+no{_STOP_AFTER}|scratch\s+that"
    r"|sorry,?\s+i\s+mean(?:t)?(?!\s+to\b)|нет,?\s+стоп|нет,?\s+подожди"
    r"|no,?\s+(?:that'?s|that\s+is|its|it'?s)\s+(?:wrong|not\s+right)"
    rf"|(?:хотя|ой,?)\s+нет{_STOP_AFTER}"
)
_SAYING_MORE = (
    rf"i\s+mean(?:t)?(?!\s+to\b){_EMPHASIS}|(?:я\s+)?име(?:л[аи]?|ю)\s+в\s+виду"
    r"|вернее|точнее|то\s+есть|в\s+смысле|подожди"
    r"|(?:вс[её]\s+)?(?:поменялось|изменилось)(?=\s*(?:[,:—–]|-\s))"
)
CORRECTION = re.compile(
    rf"\b(?:(?P<strong>{_TAKING_BACK})|(?P<vague>{_SAYING_MORE}))\b[\s,:;!…—–-]*",
    re.IGNORECASE,
)
"""The self-corrections, read on `normalised` text (`language.corrected` applies them)."""
SENTENCE_END = re.compile(r"(?<!\.)[.!?](?!\.)|[;\n]")
"""Where a self-correction's reach ends: a sentence's end, not the dots of "..." (a pause)."""
# Joining words around what the user says of an area, which the fact does not keep: "also
# growth", "hobbies too", "ещё семья", "скорее саморазвитие" ("rather self-development"),
# "then my job", the "no," a correction starts with ("нет, хобби — это фотография"), what it
# says before what was meant, with what it takes back ("not kids, I meant my partner", "не
# дети, я имела в виду партнёра"), and a leading "это" ("это фотография"). Not a leading
# "too": "too much work" says something; nor a "нет" without its comma ("нет времени на
# спорт").
_LEADING = re.compile(
    r"^(?:(?:и|а|ещ[её]|также|тоже|плюс|скорее|потом|затем|and|also|plus|rather|then)\b[\s,]*"
    # A filler before what is said of the area: "ok, I guess learning Spanish", "Ну разве что
    # хочу научиться рисовать" kept "ok, I guess" and "Ну разве что" in the fact.
    # Chat's own: "хз, наверн друзья еще", "ладно, ещё работа", "короч работа жрет все время",
    # "А вот саморазвитие" kept them.
    r"|(?:ну|хм+|наверное|наверно|наверн|хз|ладно|короч|кароче|вот"
    r"|пожалуй|разве\s+что|ок|окей|ok|okay|well|hmm+|um+|i\s+guess|idk"
    r"|dunno|honestly|tbh|lol|haha"
    r"|i\s+think|maybe|probably|perhaps|может(?:\s+быть)?|(?:нет,?\s+)?подожди|wait"
    # Discourse markers: "смотрите, семья важнее всего", "короче, работа", "like, family".
    r"|смотри(?:те)?|слушай(?:те)?|короче|basically|like(?=\s*,)"
    # A correction's "rather" after the "not" it corrects: "нет, не работа, точнее семья".
    r"|точнее|вернее|то\s+есть)(?:[\s,]+|$)"
    r"|(?:нет|не|no|nope)\s*,\s*"
    # A yes before a change asked of the summary, and the asking: "да, только добавь хобби",
    # "Всё так, только ещё хобби", "добавь ещё хобби", "yes, just add hobbies" kept those
    # words in the fact of hobbies.
    r"|(?:да|yes|yeah|yep)\s*,\s*(?:(?:только|но|just|but)\s+)?"
    r"|(?:вс[её]\s+(?:так|верно|правильно)|верно|правильно)\s*,\s*(?:только|но)\s+"
    # "only add the choir", "добавь только хор" kept "only add", "только" too.
    r"|(?:только|лишь|only|just)\s+(?=(?:добавь|допиши|add)\b)"
    r"|(?:добавь(?:те)?|допиши|add)(?:\s+(?:ещ[её]|also|только|лишь|only|just"
    r"|в\s+(?:приоритеты|список)|to\s+(?:the\s+|my\s+)?(?:list|priorities)))*\s+(?=\S)"
    # That the summary is wrong, before what is right: "нет, не так, работа важнее" kept "не
    # так, работа важнее" as the fact of work.
    r"|(?:не\s+(?:совсем\s+)?так|неверно|неправильно|(?:that'?s\s+|it'?s\s+)?(?:wrong|incorrect)"
    r"|not\s+(?:quite|right|like\s+that))\s*[,:—–]\s*"
    # A yes to the summary before what it adds: "yes but add hobbies", "yes except gym is
    # really yoga" kept the yes in the fact.
    r"|(?:yes|yeah|yep|yup|да)\b[\s,!.]*(?:(?:but|except|though|and|но|кроме|и)\b[\s,]*)?"
    r"(?:(?:please\s+)?(?:add|добавь(?:те)?)\s+(?=\S))?"
    # What a correction takes back before what the user meant: "не семья, а дети", "not
    # family but kids" ("не семья а дети" kept as a fact of relationships).
    r"|(?:not|не)\s+[^\s,.;:!?—–]+(?:\s+[^\s,.;:!?—–]+)?\s*,?\s*(?:а|but)\s+(?=\S)"
    rf"|(?:(?:not|не)\s+[^,.;:!?—–]+?\s*(?:,|[—–]|\s-\s)\s*)?{_MEANT}[\s,:—–-]*"
    rf"|это\b[\s,:—–-]*{FILLER_LEADING})+",
    re.IGNORECASE,
)
# ... and a "ну" left by the split of "здоровье, ну и семья": no part of what was said; nor
# a hedge or a marker after it ("friends I guess", "работа, наверное", "family, like"), one
# or two of them. The spaces before each are bounded, so that a long run of them is read in
# linear time.
_TRAILING = re.compile(
    r"(?:[\s,]{0,4}\b(?:тоже|также|too|also|as\s+well|ну|добавь|добавьте"
    r"|to\s+(?:my\s+|the\s+)?(?:list|priorities)|в\s+(?:список|приоритеты)|i\s+guess|i\s+think"
    r"|i\s+suppose|probably|maybe|наверное|наверно|пожалуй|думаю|короче|,\s*like|lol|lmao|haha"
    rf"|конечно|of\s+course|obviously|btw|ещ[её]{FILLER_TRAILING}"
    r")){1,2}[\s.!…]*$",
    re.IGNORECASE,
)
# An area named only to say what it is: "хобби — это фотография", "моя работа, я имею в виду
# стартап", "work means my startup", "hobbies, I mean photography": the fact is what follows.
# So is an area named as a label before a colon ("growth: learning C++", "работа: мой
# стартап"). Without "это" or "means" the dash stays ("Работа — мой стартап"): it may say what
# the area is like, as a sentence does.
# The head ends on a letter, and the white space after it is taken whole (`\s*+`), by one way
# only: with a head that could end in white space and a `\s*` then a `\s+` after it, a run of
# spaces could be split three ways, and "work" with 400 spaces and "x" took 0.6 s, 1,000 took
# 9 s (cubic), in the event loop of the agent-runner every user's turn waits on.
_NAMED_AS = re.compile(
    rf"^(?P<head>[^,:;—–]*?[^\s,:;—–])\s*+(?:(?:,|:|[—–]|(?<=\s)-)\s*(?:это\b|{_MEANT})"
    # A head before a colon is a label: "growth: learning C++" kept "growth:" in the fact.
    r"|:(?=\s*\S)|(?<=\s)means\b"
    # So is a head before "=" or an arrow: "health = trying to lose 10kg" kept "health =".
    r"|(?:=|->|→|=>)(?=\s*\S)"
    # What an area is now, said after a change: "отношения теперь это муж".
    rf"|(?<=\s)теперь(?:\s*(?:[—–]|-\s))?\s+это\b|(?<=\s)now\s+means\b{DEFINED_AS})"
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
    rf"|многое|целый\s+мир|весь\s+мир|больше\s+всего|важно|важное|главное{DEGREE_MORE})"
    r"(?:\s+(?:to|for)\s+(?:me|us)|\s+для\s+(?:меня|нас)|\s+(?:мне|нам)"
    r"|\s+in\s+(?:my|our|the)\s+(?:life|world)|\s+в\s+(?:моей\s+|нашей\s+)?жизни)*[\s.!…]*",
    re.IGNORECASE,
)


def trimmed(part: str) -> str:
    """What the user says of an area without the joining words around it ("also growth":
    "growth") and without the lead-in of what it means ("хобби — это фотография":
    "фотография"), but for a lead-in to how much it matters ("Family means everything to
    me" stays); an area's word alone in the nominative ("работой": "работа", `nominative`);
    the part as it is when nothing else is left."""
    part = _once(_unadorned(part))
    kept = _TRAILING.sub("", _LEADING.sub("", part))
    said = _NAMED_AS.match(kept)
    # The head names the area and says nothing, and the rest is no degree ("everything").
    if said and named_in(said["head"]) and around(said["head"]) == ([], []):
        kept = kept if _DEGREE.fullmatch(said["rest"]) else _LEADING.sub("", said["rest"])
    return nominative(kept) if kept else part


def _unadorned(part: str) -> str:
    """The part without emoji and other symbols at its ends ("саморазвитие 🙂": "саморазвитие";
    a skin tone, a variation selector, a joiner too): the fact kept them."""
    start, end = 0, len(part)
    while start < end and _adornment(part[start]):
        start += 1
    while end > start and _adornment(part[end - 1]):
        end -= 1
    return part[start:end] or part.strip()


def _adornment(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) in ("So", "Sk") or char in "\u200d\ufe0f"


def _once(part: str) -> str:
    """A part that is one piece said again after a comma ("здоровье, здоровье", a listing's
    area named twice: "работа и здоровье, здоровье") as that piece once."""
    pieces = [piece.strip() for piece in part.split(",")]
    if len(pieces) > 1 and pieces[0] and all(p.casefold() == pieces[0].casefold() for p in pieces):
        return pieces[0]
    return part


def around(piece: str) -> tuple[list[str], list[str]]:
    """The words of `piece` before its first area word and after its last one, but for the
    words that only own it ("my", "мой")."""
    before, after = _around(piece)
    return list(before), list(after)


@lru_cache(maxsize=1024)
def _around(piece: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    # Kept: a discovery turn asks it of the same pieces of its message and history tens of
    # times over (its listings, its lead-ins, its corrections), each a search of every area.
    lowered = normalised(piece)
    spans = [
        (hit.start(), _word_end(lowered, hit.end()))
        for pattern in AREA_PATTERNS.values()
        for hit in pattern.finditer(lowered)
    ]
    if not spans:
        return tuple(words(piece)), ()
    first, last = min(start for start, _ in spans), max(end for _, end in spans)
    before = tuple(w for w in words(lowered[:first]) if w not in OWNING)
    return before, tuple(w for w in words(lowered[last:]) if w not in OWNING)


def _word_end(text: str, at: int) -> int:
    """Where the word that goes on at `at` ends (a stem's match ends inside its word)."""
    while at < len(text) and (text[at].isalnum() or text[at] == "_"):
        at += 1
    return at


def named_in(piece: str) -> set[str]:
    """The areas a piece of text names."""
    lowered = normalised(piece)
    return {area for area, pattern in AREA_PATTERNS.items() if pattern.search(lowered)}
