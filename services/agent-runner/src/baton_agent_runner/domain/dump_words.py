"""The words and marks a brain dump's reading knows: what answers the agent, hesitates, waits or
puts off (no item), a bullet, where a phrase ends, what joins an afterthought on."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain import readiness
from baton_agent_runner.domain.finishing import LEADING, TRAILING
from baton_agent_runner.domain.interjections import INTERJECTION as INTERJECTION
from baton_agent_runner.domain.wording import NO_END_DOT

# A line of nothing but these acknowledges the agent; it is no item ("ок", "хорошо, давай").
ACK = frozenset({
    "ок", "окей", "хорошо", "давай", "давайте", "ладно", "понял", "поняла", "ясно", "понятно",
    "да", "ага", "угу", "конечно", "отлично", "супер", "поехали", "спасибо", "нет", "ну",
    "ok", "okay", "fine", "sure", "yes", "yeah", "yep", "alright", "good", "great", "cool",
    "thanks", "thank", "you", "got", "it", "let's", "go", "no", "nope",
    # Greetings and "let's start" answer the agent too ("Привет", "Давай попробуем", "Sounds
    # good", "Okay let's do it"): a brain dump of them closed the step with no thought in it.
    "привет", "здравствуй", "здравствуйте", "попробуем", "начнем", "начинаем", "hi", "hello",
    "hey", "sounds", "do", "start", "begin",
    # The yes words the greeter knows ("ya", "k", "lets go", "go ahead", "sure thing") were
    # saved as items to the brain dump's "Ready?".
    "ya", "yea", "yup", "k", "kk", "lets", "ahead", "thing",
    # "Right. I must renew my passport" saved "Right" as an item of its own.
    "right",
})  # fmt: skip
# A line of nothing but these is hesitation or "not yet", no item: "Я пока не готов", "Hmm, let
# me think", "Это не всё", "Nothing comes to mind", "Не знаю, что писать".
HESITATION = frozenset({
    "я", "пока", "еще", "не", "готов", "готова", "готово", "подожди", "погоди", "подождите",
    "секунду", "секундочку", "минутку", "сейчас", "дай", "дайте", "подумать", "подумаю",
    "думаю", "хм", "хмм", "эм", "ммм", "это", "все", "ничего", "приходит", "в", "голову", "знаю",
    "что", "писать", "написать", "записывать", "хочу", "i", "i'm", "im", "am", "not", "yet",
    "ready", "wait", "hold", "on", "one", "moment", "second", "sec", "minute", "let", "me",
    "think", "hmm", "um", "uh", "that's", "thats", "that", "is", "all", "done", "finished",
    "nothing", "comes", "to", "mind", "don't", "dont", "know", "what", "write", "have", "want",
    "вспомню", "вспомнить", "допишу", "соображу", "кое", "remember", "thinking", "понимаю",
    "напишу",
    # Not knowing, or not wanting to ("хз", "лень", "idk") was saved as an item; so was "не
    # знаю даже", "честно, не знаю".
    "хз", "лень", "неохота", "idk", "dunno", "lol", "даже", "честно", "вообще", "honestly",
    # Filler before a request ("короче напомни купить корм", "blah blah remind me to ...").
    "короче", "кароче", "короч", "blah", "anyway", "anyways",
    # Laughing alone ("лол", "кек", "ахах") was saved as an item; "lol" was not.
    "лол", "кек", "хах", "хаха", "хахах", "ахах", "ахаха", "ахахах",
    # Interjections and filler alone ("please", "oh", "ну вот", "блин") were saved as items;
    # drawn-out ones ("ohhh", "ммм", "эээ") are read by `INTERJECTION`.
    "please", "pls", "plz", "oh", "ah", "er", "erm", "ugh", "meh", "well", "so", "hm", "wow",
    "welp", "okey", "omg", "пожалуйста", "плиз", "плз", "ой", "ах", "ох", "эх", "ух", "мм", "вот",
    "блин", "а", "о", "э",
    # "кстати, а что потом будет с этим списком?" saved "кстати" before answering.
    "кстати", "кст", "btw",
    # Exclamations, "if I'm honest" and not knowing where to start were saved as items
    # ("shoot", "oops", "жесть", "если честно", "ugh where do i even start lol", "не знаю, с
    # чего начать").
    "shoot", "oops", "damn", "dang", "darn", "crap", "geez", "jeez", "gosh", "yikes", "omfg",
    "омг", "капец", "жесть", "боже", "если", "where", "even", "begin", "start", "с", "чего",
    "начать", "начинать",
})  # fmt: skip
# Adding more later ("потом допишу", "I'll add more later") puts it off, as "потом" does.
ADDING_LATER = frozenset({
    "допишу", "добавлю", "напишу", "вспомню", "дальше", "i'll", "ill", "will", "add", "more",
    "write", "the", "rest", "остальное",
})  # fmt: skip
# Asking to skip the step ("skip", "пропустим", "let's skip this") puts the items off, as
# "потом" does: it was saved as an item.
SKIP = frozenset({
    "skip", "skipping", "пропустим", "пропусти", "пропустите", "пропустить", "пропускаем",
    "пропускай",
})  # fmt: skip
SKIPPING = SKIP | readiness.PUTTING_OFF | {"step", "шаг", "этот", "это", "the", "for", "now"}
# Talk about the step itself ("so brain dump huh", "а, выгрузка мыслей") is no item either.
ABOUT_THE_STEP = frozenset({
    "brain", "dump", "braindump", "dumping", "inbox", "step", "выгрузка", "выгрузку", "выгрузки",
    "инбокс", "шаг",
})  # fmt: skip
TALK = ABOUT_THE_STEP | ACK | HESITATION | LEADING | {
    "so", "huh", "oh", "a", "the", "this", "is", "it", "ok", "hmm", "well", "мыслей", "мысли",
    "мозговой", "штурм", "так", "значит", "итак", "а", "о", "ох",
}  # fmt: skip
# Asking for a moment is no item either: a phrase of these words with one of `WAIT` in it
# ("wait a moment", "hold on a sec", "Подожди немного", "Дай мне минутку"); "wait for the
# delivery" is an item.
WAIT = frozenset({
    "подожди", "подождите", "погоди", "погодите", "секунду", "секундочку", "сек", "минутку",
    "минуточку", "минуту", "момент", "мгновение", "wait", "hold", "hang", "moment", "sec",
    "second", "minute",
})  # fmt: skip
WAITING = WAIT | {
    "немного", "чуть", "чуток", "одну", "пару", "мне", "пожалуйста", "a", "just", "give",
    "gimme", "please", "bit", "little", "few", "moments", "seconds", "secs", "minutes", "mins",
    "for", "it",
}  # fmt: skip
# A bullet, numbered or lettered or not, and a checkbox ("- [ ]", "[x]", "☐") after it are no
# part of the item. A number is a bullet with a space or a letter after it ("1. milk", "1.milk",
# "(1) milk"): "1.5 литра молока" is an item as it stands. A letter is one before ")" ("a)",
# "(б)"), or lowercase before ". "; "—", "·", "→" and the like are bullets as "-" is (phones
# turn "- " into "— ").
BULLET = re.compile(
    r"^\s*(?:[-*•–—·◦▪▫‣⁃→►▸✓✔✅☐☑]\ufe0f?\s*|\d+(?:[.)]|\s+[-–—])(?:\s+|$)"
    r"|\d+[.)](?=[^\W\d_])|\((?:\d+|[a-zа-яё])\)\s*|[a-zа-яё]\)\s+|(?-i:[a-zа-яё])\.\s+)?"
    r"(?:\[[ xX✓]?\]\s*)?(?:[☐☑✓✔✅•▪◦–—-]\ufe0f?\s+)?",
    re.IGNORECASE,
)
EXCEPTING = (
    r"(?:кроме(?:\s+как)?|помимо|разве\s+что|за\s+исключением|except(?:\s+for)?|apart\s+from"
    r"|aside\s+from|besides|other\s+than)\b"
)
# After "that's all", an exception names the last item ("Больше ничего, кроме отчёта", "That's
# it, except renew passport"): it is saved without its "кроме", and the list is done.
EXCEPT = re.compile(rf"^\s*{EXCEPTING}[\s,:—–-]*", re.IGNORECASE)
# Where a line parts into phrases for finding "that's all" in it: commas, stops, colons,
# dashes, and before an exception ("больше ничего кроме отчёта").
# An initial's dot ends no phrase: "В. Петрову позвонить" keeps its "В." ("в" alone would be
# a hedge's word, and "I." or "А." no part of the item).
# The exception's spaces are read from the first of a run (`(?<!\s)`), and so is a run of
# stops (`(?<![,.!?…:])`): tried from each, a run of thousands took seconds ("." 8,000 times
# before "done": 1.5 s at discovery, "?" before "health?": 2.9 s at the brain dump).
PHRASE_END = re.compile(
    rf"(?<![,.!?…:])(?!{NO_END_DOT})[,.!?…:]+(?:\s+|$)|\s[—–-]\s|(?<!\s)\s+(?={EXCEPTING})",
    re.IGNORECASE,
)
LONE_CAPITAL_AT_END = re.compile(r"(?<![\w'])[A-ZА-ЯЁ]$")  # an initial, when a dot follows
# Phrases of nothing but these before an item answer the agent or hedge; no part of the item.
PREAMBLE = ACK | HESITATION | LEADING | {"еще", "а", "also", "plus"}
# Second thoughts after "that's all" take it back: "Всё. Хотя нет, ..." is not done yet.
TAKE_BACK = frozenset({"хотя", "погоди", "подожди", "стоп", "actually", "wait", "hold"})
# Before "that's all", a part of nothing but these hedges or acknowledges it.
HEDGES = ACK | LEADING
# After "that's all", phrases of nothing but these are thanks or second thoughts, no item
# ("Это всё, спасибо!", "Всё. Хотя нет, ...").
AFTERWORDS = ACK | LEADING | TRAILING | TAKE_BACK | {
    "ой", "хм", "за", "помощь", "bye", "oh", "hmm", "on", "the", "help", "much", "a",
    "lot", "that's", "thats",
}  # fmt: skip
SEPARATORS = " ,.!?…:—–-"
# Words that join an afterthought on ("Всё. Хотя нет, ещё купить хлеб"); an initial is none
# ("А. Иванову написать").
JOINING = re.compile(
    r"^(?:(?:и|а|ещ[её]|also|oh\s+and|and|plus)\b(?!\.)[\s,:—–-]*)+", re.IGNORECASE
)
