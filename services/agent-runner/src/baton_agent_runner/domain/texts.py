"""What the scripted agents say, in Russian and English."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

from baton_agent_runner.domain.discovery_texts import DISCOVERY_TEXTS
from baton_agent_runner.domain.greeter_texts import GREETER_TEXTS
from baton_agent_runner.domain.inbox_texts import INBOX_TEXTS

_WRAP_UP = {
    "ru": "Приоритетов: {facts}, мыслей в inbox: {items}. Дальше я помогу разобрать inbox и "
    "спланировать неделю.",
    "en": "Priorities: {facts}, inbox items: {items}. Next I will help you sort the inbox and "
    "plan your week.",
}
"""What the coordinator's congratulation goes on with, by name or not (`coordinator*`)."""

_FAQ: dict[str, dict[str, str]] = {
    # The answers to the questions `domain.greeter_questions` knows: the greeter's own replies
    # end on "Ready to start?", discovery's on the question it was waiting on.
    "how_long": {
        "ru": "Недолго: три шага, каждый займёт пару минут.",
        "en": "Not long: three steps of a couple of minutes each.",
    },
    "who": {
        "ru": "Я Baton — помогаю разложить по полочкам приоритеты и дела: узнаю, что для тебя "
        "важно, соберу в inbox всё, что висит в голове, и помогу это разобрать.",
        "en": "I am Baton: I help you sort out your priorities and tasks. I learn what matters "
        "to you, collect everything on your mind into an inbox, and help you sort it.",
    },
    "why": {
        "ru": "Зная, что для тебя важно, я смогу разобрать твой inbox по приоритетам и "
        "спланировать неделю вокруг главного, а не только срочного.",
        "en": "Knowing what matters to you lets me sort your inbox by your priorities and plan "
        "your week around what is important, not only what is urgent.",
    },
    "data": {
        "ru": "Всё, что ты расскажешь, хранится в твоей памяти и inbox в этом Baton, другие "
        "пользователи этого не видят.",
        "en": "What you tell me is kept in your own memory and inbox in this Baton, which other "
        "users cannot see.",
    },
    "cost": {
        "ru": "О ценах я ничего не знаю: это вопрос к тем, кто подключил тебе Baton. Сам "
        "онбординг займёт пару минут.",
        "en": "I know nothing about prices: ask whoever set Baton up for you. The onboarding "
        "itself takes a couple of minutes.",
    },
}
"""What Baton answers about itself, by topic (`faq_<topic>`, and `greeter_<topic>` with the
greeter's question after it)."""
_GREETER_AFTER_FAQ = {
    # Said at the greeting only: at discovery the priorities are being corrected already.
    "data": {
        "ru": "Приоритеты можно поправить на следующем шаге.",
        "en": "You can correct your priorities at the next step.",
    },
}
_START = {"ru": "Начнём?", "en": "Ready to start?"}


def _ready_to_start(topic: str) -> dict[str, str]:
    """The greeter's answer about `topic`, ending on its "Ready to start?"."""
    after = _GREETER_AFTER_FAQ.get(topic, {})
    return {
        language: " ".join(filter(None, [answer, after.get(language), _START[language]]))
        for language, answer in _FAQ[topic].items()
    }


TEXTS: dict[str, dict[str, str]] = {
    **{f"faq_{topic}": answer for topic, answer in _FAQ.items()},
    **DISCOVERY_TEXTS,
    **GREETER_TEXTS,
    **INBOX_TEXTS,
    # Any agent, when its model's reply could not be used (malformed, or nothing storable).
    "model_fallback": {
        "ru": "Извини, я не смог разобрать ответ. Повтори, пожалуйста, другими словами.",
        "en": "Sorry, I could not work that out. Could you say it again in other words?",
    },
    "greeter_early_priorities": {
        "ru": "Отлично, запомнил: {areas}. Подробно о приоритетах поговорим на следующем шаге. "
        "{why} Начнём?",
        "en": "Great, I have noted it: {areas}. We will talk about your priorities in detail "
        "at the next step. {why} Ready to start?",
    },
    # Priorities said in the very first message: noted, and the introduction still given
    # (it was skipped, and the user was never told what Baton is or what the steps are).
    "greeter_early_intro": {
        "ru": "Отлично, запомнил: {areas}. Подробно о приоритетах поговорим на следующем шаге. "
        "А сначала знакомство: я Baton — помогаю разложить по полочкам приоритеты и дела. "
        "Онбординг пройдёт в три шага: знакомство, разговор о твоих приоритетах и выгрузка "
        "всех мыслей в inbox. Начнём?",
        "en": "Great, I have noted it: {areas}. We will talk about your priorities in detail "
        "at the next step. But first, about me: I am Baton, and I help you sort out your "
        "priorities and tasks. Onboarding has three steps: this introduction, a talk about "
        "your priorities, and a brain dump into your inbox. Ready to start?",
    },
    "greeter_intro": {
        "ru": "Привет! Я Baton — помогаю разложить по полочкам приоритеты и дела. Онбординг "
        "пройдёт в три шага: знакомство, разговор о твоих приоритетах и выгрузка всех мыслей "
        "в inbox. Начнём?",
        "en": "Hi! I am Baton: I help you sort out your priorities and tasks. Onboarding has "
        "three steps: this introduction, a talk about your priorities, and a brain dump into "
        "your inbox. Ready to start?",
    },
    "greeter_about": {
        "ru": "Коротко о том, как всё устроено: три шага, каждый займёт пару минут, и в любой "
        "момент можно спросить, что дальше. Начнём?",
        "en": "In short, how it works: three steps of a couple of minutes each, and you can ask "
        "what comes next at any time. Ready to start?",
    },
    **{f"greeter_{topic}": _ready_to_start(topic) for topic in _FAQ},
    "greeter_explain": {
        "ru": "Объясню проще: сначала я узнаю, что для тебя важно, потом ты выгрузишь всё, что "
        "держишь в голове, а я разложу это по приоритетам. Что именно непонятно?",
        "en": "Put simply: first I learn what matters to you, then you dump everything on your "
        "mind and I sort it by your priorities. What exactly is unclear?",
    },
    "greeter_done": {
        "ru": "Отлично, поехали! Расскажи, какие области жизни для тебя сейчас главные.",
        "en": "Great, let's go! Tell me which areas of your life matter most right now.",
    },
    "greeter_done_noted": {
        # The closing once areas were named during the greeting (and kept as discovery's
        # facts): asking "which areas matter" again read as if they had not been said.
        "ru": "Отлично, поехали! Записал: {areas}. Что ещё для тебя сейчас важно?",
        "en": "Great, let's go! You named {areas}; what else matters to you right now?",
    },
    "greeter_wait": {
        "ru": "Хорошо, не торопись. Когда захочешь начать, напиши «поехали» или спроси, что "
        "дальше.",
        "en": 'No rush. When you are ready, say "ready" or ask what comes next.',
    },
    "discovery_noted": {"ru": "Записал.", "en": "Noted."},
    "discovery_updated": {"ru": "Обновил: {areas}.", "en": "Updated: {areas}."},
    "discovery_forgot": {"ru": "Убрал: {areas}.", "en": "Removed: {areas}."},
    # An area declined that the summary does not hold ("хобби нет"): nothing to take out.
    "discovery_declined_noted": {"ru": "Хорошо, без этого: {areas}.", "en": "Fine, not {areas}."},
    "discovery_ask": {
        # A question, as every reply that asks for more is: the step's `questions_asked`
        # counts the replies that ask one (`domain.step_counts`).
        "ru": "Что скажешь о других областях: {missing}?",
        "en": "What about the other areas: {missing}?",
    },
    "discovery_ask_first": {
        "ru": "Какие области жизни для тебя сейчас главные? Например: {missing}.",
        "en": "Which areas of your life matter most to you right now? For example: {missing}.",
    },
    "discovery_correct": {
        "ru": "Что поправить? Напиши, например: «работа — это мой новый проект».",
        "en": 'What should I correct? Say, for example: "work means my new project".',
    },
    "summary_header": {"ru": "Вот что я понял о тебе:", "en": "Here is what I understood:"},
    "from_last_time": {
        # Before a summary line the user did not tell in this run of the onboarding: memory
        # kept it from an earlier one, and it was shown as if said now.
        "ru": "С прошлого раза",
        "en": "From last time",
    },
    "summary_question": {
        "ru": "Всё верно? Если нет — поправь меня.",
        "en": "Is that right? If not, correct me.",
    },
    "greeter_not_yet": {
        "ru": "Отлично! Пара слов о том, как всё устроено: три шага, каждый займёт пару минут, "
        "и в любой момент можно спросить, что дальше. Начинаем?",
        "en": "Great! A word on how it works: three steps of a couple of minutes each, and you "
        "can ask what comes next at any time. Shall we start?",
    },
    "discovery_not_yet": {
        "ru": "Хорошо. Прежде чем идти дальше, хочу убедиться, что ничего не упустил. Добавишь "
        "что-нибудь?",
        "en": "Good. Before we move on I want to be sure I missed nothing. Anything to add?",
    },
    "discovery_ask_focus": {
        "ru": "Что из этого сейчас для тебя важнее всего?",
        "en": "Which of these matters most to you right now?",
    },
    "discovery_ask_constraints": {
        "ru": "Что сейчас больше всего мешает — время, силы, что-то ещё?",
        "en": "What holds you back right now: time, energy, something else?",
    },
    "discovery_ask_good_week": {
        "ru": "И последнее: что сделало бы ближайшую неделю для тебя хорошей?",
        "en": "One last thing: what would make the coming week a good one for you?",
    },
    "discovery_good": {"ru": "Хорошо.", "en": "Good."},
    # Answers to a question back about discovery's own question (`discovery_questions`),
    # each followed by that question again; they got the question alone, or "I ask so that".
    "discovery_about_areas": {
        "ru": "Область — это часть жизни, на которую уходят время и силы: работа, здоровье, "
        "отношения, развитие, хобби или что-то своё. Назови те, что для тебя сейчас важны, "
        "своими словами.",
        "en": "An area is a part of your life that takes your time and care: work, health, "
        "relationships, growth, hobbies, or one of your own. Name the ones that matter to you "
        "now, in your own words.",
    },
    "discovery_about_several": {
        # Said to "how many?" as well: no "yes" before it.
        "ru": "Сколько хочешь: мне нужно хотя бы три, можно в одном сообщении.",
        "en": "As many as you like: I need at least three, and one message is fine.",
    },
    "discovery_to_repeat": {
        # Before an answer to a question back asked again ("what do you mean by areas?"
        # twice): "I did not quite get that" before it said it had not been understood.
        "ru": "Повторю:",
        "en": "To repeat:",
    },
    "discovery_about_several_focus": {
        "ru": "Можно несколько: назови их по порядку, первая — самая важная.",
        "en": "You can name several: put them in order, the first one matters most.",
    },
    "discovery_about_must": {
        "ru": "Этот шаг нужен: без приоритетов я не смогу разобрать твои задачи по важному. "
        "Это быстро: хватит трёх областей, по слову на каждую.",
        "en": "This step is needed: without your priorities I cannot sort your tasks by what "
        "matters. It is quick: three areas, a word for each, are enough.",
    },
    "discovery_about_next": {
        "ru": "Ещё один-два коротких вопроса, а потом {then}",
        "en": "A short question or two more, then {then}",
    },
    "discovery_about_next_last": {
        "ru": "Это последний вопрос здесь, а потом {then}",
        "en": "This is the last question here, then {then}",
    },
    "discovery_about_next_first": {
        "ru": "Сначала твои приоритеты: хватит трёх областей, потом, может быть, пара коротких "
        "вопросов о них, а потом {then}",
        "en": "First your priorities: three areas are enough, then perhaps a short question or "
        "two about them, then {then}",
    },
    "discovery_then_inbox": {
        "ru": "выгрузка мыслей: ты расскажешь, что висит в голове, а я соберу это в inbox.",
        "en": "the brain dump: you tell me what is on your mind, and I collect it in your inbox.",
    },
    "discovery_then_done": {
        "ru": "этот шаг закончен.",
        "en": "this step is done.",
    },
    "discovery_thanks": {"ru": "Спасибо, записал.", "en": "Thanks, noted."},
    "discovery_passed": {"ru": "Хорошо, пропустим.", "en": "Sure, let's skip that one."},
    "discovery_why_asked": {
        # Said to a question back at a follow-up question ("зачем тебе это?"), which is
        # then asked again.
        "ru": "Я спрашиваю, чтобы план учитывал, что для тебя важно и что мешает; ответы "
        "остаются в твоей памяти, и их можно поправить. Если не хочешь отвечать, напиши "
        "«пропустим».",
        "en": "I ask so that your plan fits what matters to you and what gets in the way; the "
        "answers stay in your memory, and you can correct them. If you would rather not "
        'answer, say "skip".',
    },
    "discovery_tasks": {
        # A to-do list said to discovery, not lost, nor answered with the summary again. "If"
        # since the reading is the brain dump's: "Interesting. How do you use it?" reads
        # as an item asked about too.
        "ru": "Если это дела — соберём их на следующем шаге, в выгрузке мыслей: там я запишу "
        "каждое в inbox. А сейчас — о приоритетах.",
        "en": "If those are tasks, we will collect them at the next step, the brain dump: "
        "there I save each to your inbox. For now, your priorities.",
    },
    "discovery_tasks_kept": {
        # A to-do list said to discovery: kept, as an inbox request is, so that it need not be
        # typed again at the brain dump.
        "ru": "Похоже на дела — я сохранил их до следующего шага, выгрузки мыслей: {items}. "
        "Там они попадут в inbox, писать их заново не нужно. А сейчас — о приоритетах.",
        "en": "These look like tasks, so I have kept them for the next step, the brain dump: "
        "{items}. There they go into your inbox; no need to write them again. For now, your "
        "priorities.",
    },
    "discovery_more": {
        "ru": "Почти готово. Есть ли ещё что-нибудь, что мне стоит о тебе знать?",
        "en": "Almost there. Is there anything else I should know about you?",
    },
    "discovery_unclear": {
        "ru": "Не совсем понял. Если всё верно, напиши «да»; если нет — поправь меня.",
        "en": 'I did not quite get that. If it is right, say "yes"; if not, correct me.',
    },
    "discovery_unclear_ask": {
        # Before a question asked again that was no summary: "If it is right, say yes" then
        # answered nothing the user had been asked.
        "ru": "Не совсем понял.",
        "en": "I did not quite get that.",
    },
    "discovery_no_skip": {
        # Said to "пропусти", "дальше", "skip this" before three areas are known: seed 000
        # wants the user told why a required step must be finished, not "I did not get it".
        "ru": "Этот шаг пропустить нельзя: без твоих приоритетов я не смогу правильно "
        "организовать задачи. Это недолго — хватит трёх областей.",
        "en": "This step cannot be skipped: without your priorities I cannot organise your "
        "tasks well. It is quick: three areas are enough.",
    },
    "discovery_skipped": {
        # Said to "пропусти", "skip this" on a step the definition makes optional
        # (`is_required: false`): "This step cannot be skipped" was untrue there.
        "ru": "Хорошо, этот шаг необязательный — пропускаем.",
        "en": "Sure, this step is optional, so we skip it.",
    },
    "discovery_skipped_then": {
        # Ends asking, as "discovery_done" does, when the brain dump comes next (said only then).
        "ru": "Переходим к выгрузке мыслей: помогу перенести в inbox всё, что висит в голове. "
        "Начнём?",
        "en": "On to the brain dump: I will help you get everything on your mind into your "
        "inbox. Ready?",
    },
    "discovery_about_must_optional": {
        # "do I have to?" on an optional step: the skip offered, not "This step is needed".
        "ru": "Нет, этот шаг необязательный: напиши «пропустим», и пойдём дальше. Но с "
        "приоритетами я лучше разберу твои задачи — хватит трёх областей, по слову на каждую.",
        "en": 'No, this step is optional: say "skip" and we move on. With your priorities, '
        "though, I can sort your tasks by what matters; three areas, a word for each, are "
        "enough.",
    },
    "discovery_no_skip_again": {
        "ru": "Без этого шага дальше не пойти — давай быстро его закончим.",
        "en": "We cannot move on without this step, so let's finish it quickly.",
    },
    "discovery_too_few": {
        # One or two areas known, and the message named no other ("nope", "that's it"): the
        # same "What about the other areas?" again, with no word of why, kept the user there.
        "ru": "Пока в списке: {known}.",
        "en": "So far I have {known}.",
    },
    "discovery_need_three": {
        "ru": "Чтобы настроить приоритеты, нужно хотя бы три области.",
        "en": "To set up your priorities I need at least three areas.",
    },
    "discovery_what_else": {
        "ru": "Что ещё для тебя важно? Например: {missing}.",
        "en": "What else matters to you? For example: {missing}.",
    },
    "discovery_unrecognised": {
        # After two asks for more areas in vain: what it did not recognise, and a list to
        # name one from. The two asks took turns for as long as the user wrote on.
        "ru": "Не узнал области жизни в «{said}». Какая из этого списка для тебя важна: {missing}?",
        "en": 'I did not recognise a life area in "{said}". Which one from this list matters '
        "to you: {missing}?",
    },
    "discovery_none_kept": {
        # The step's last message with no area yet: said instead of a question.
        "ru": "Пока я не записал ни одной области жизни.",
        "en": "I have not noted any life area yet.",
    },
    "discovery_right": {
        # To a reply to the summary that is neither a yes nor a correction, and after an
        # answer to a question about Baton: the whole summary again kept the user there.
        "ru": "Итог выше верный? Напиши «да» или что поменять.",
        "en": 'Is the summary above right? Say "yes", or tell me what to change.',
    },
    "discovery_too_few_again": {
        "ru": "Подойдёт и что-то небольшое, например: {missing}. Что ещё занимает твоё время "
        "или внимание?",
        "en": "Even something small counts, for example: {missing}. What else takes your time "
        "or attention?",
    },
    "note_focus": {"ru": "важнее всего", "en": "matters most"},
    "note_constraints": {"ru": "мешает", "en": "holds you back"},
    "note_good_week": {"ru": "хорошая неделя", "en": "a good week"},
    "discovery_done": {
        # Ends asking, as the greeter's closing does: "On to the brain dump." left the user
        # with nothing to answer. Either answer starts the brain dump: its agent explains it
        # (or asks for the list where a list closes it), or to a "no" says there is no rush.
        "ru": "Спасибо, приоритеты записаны. Переходим к выгрузке мыслей: помогу перенести в "
        "inbox всё, что висит в голове. Начнём?",
        "en": "Thanks, your priorities are saved. On to the brain dump: I will help you get "
        "everything on your mind into your inbox. Ready?",
    },
    "discovery_done_alone": {
        # "discovery_done" with no inbox step ahead in the definition (`inbox_ahead` false):
        # it promised a brain dump that never came, and asked "Ready?" for it.
        "ru": "Спасибо, приоритеты записаны.",
        "en": "Thanks, your priorities are saved.",
    },
    "deferred": {
        "ru": "Отличная мысль! Запишем это чуть позже, на шаге сбора inbox — я не забуду. {why}",
        "en": "Great thought! We will record it a bit later, at the inbox step; I will not "
        "forget it. {why}",
    },
    "greeter_tasks_kept": {
        "ru": "Похоже на дела — я сохранил их до выгрузки мыслей, последнего шага: {items}. "
        "Там они попадут в inbox, писать их заново не нужно. {why}",
        "en": "These look like tasks, so I have kept them for the brain dump, the last step: "
        "{items}. There they go into your inbox; no need to write them again. {why}",
    },
    "noted_now": {
        "ru": "Отличная мысль! Записал это в inbox сразу: {items}. {why}",
        "en": "Great thought! I have saved it to your inbox right away: {items}. {why}",
    },
    "noted": {"ru": "Записал в inbox: {items}.", "en": "Saved to your inbox: {items}."},
    "task_kept": {
        # A task said in passing ("remember to call mom") at the greeting or discovery: one
        # line, then the step goes on.
        "ru": "Сохранил до выгрузки мыслей, там это попадёт в inbox: {items}.",
        "en": "Kept for the brain dump, where it goes into your inbox: {items}.",
    },
    "tasks_kept": {
        # Several tasks at once (a to-do list said to "what would make the coming week good?"):
        # "where it goes ... : a; b; c" spoke of one.
        "ru": "Сохранил до выгрузки мыслей, там они попадут в inbox: {items}.",
        "en": "Kept for the brain dump, where they go into your inbox: {items}.",
    },
    "put_off_ahead": {
        # "Запиши в inbox: потом": nothing to note yet, and no "Great thought!" for it.
        "ru": "Хорошо, потом так потом: до inbox дойдём на шаге выгрузки мыслей. {why}",
        "en": "Sure, later then: we will come to your inbox at the brain dump step. {why}",
    },
    "put_off": {
        "ru": "Хорошо, потом так потом: когда решишь, что записать, просто напиши — и я добавлю "
        "это в inbox. {why}",
        "en": "Sure, later then: when you know what to note, just tell me and I will add it to "
        "your inbox. {why}",
    },
    "why_discovery": {
        "ru": "Сейчас давай закончим с приоритетами — это поможет мне лучше организовать твои "
        "задачи.",
        "en": "Let's finish your priorities first: they help me organise your tasks better.",
    },
    "why_greeter": {
        "ru": "Сначала закончим знакомство — так тебе будет понятно, как всё устроено.",
        "en": "Let's finish the introduction first, so you know how everything works.",
    },
    "promoted": {
        "ru": "Я уже добавил в inbox то, что мы отложили раньше: {items}.",
        "en": "I have already added what we set aside earlier: {items}.",
    },
    "already_saved": {
        # An item said again while the instance's inbox holds it (new or deferred): not saved
        # twice, and not counted as saved.
        "ru": "Это уже есть в inbox, второй раз не записываю: {items}.",
        "en": "Already in your inbox, so not added again: {items}.",
    },
    "already_kept": {
        # An item kept for the brain dump said again before it (deferred, in no inbox yet):
        # kept once; "already in your inbox" contradicted the "kept for the brain dump" line.
        "ru": "Это уже сохранено до выгрузки мыслей, второй раз не сохраняю; там это попадёт "
        "в inbox: {items}.",
        "en": "Already kept for the brain dump, so not kept twice; there it goes into your "
        "inbox: {items}.",
    },
    "saved": {
        "ru": "Записал в inbox: {items}. Всего записей: {total}.",
        "en": "Saved to your inbox: {items}. Items so far: {total}.",
    },
    "inbox_more": {
        "ru": "Выгрузи всё, что висит в голове: дела, идеи, желания — по одному в строке. "
        "Нужно ещё хотя бы {need}.",
        "en": "Dump everything on your mind: tasks, ideas, wishes, one per line. I need at "
        "least {need} more.",
    },
    "inbox_more_again": {
        # In place of "inbox_more" when that would say the last reply again word for word
        # ("спасибо" after it, with nothing to save).
        "ru": "Вспомни, что ещё ждёт своей очереди: звонки, покупки, дела по работе, идеи — по "
        "одному в строке. Нужно ещё хотя бы {need}.",
        "en": "Think of what else is waiting its turn: calls, errands, work tasks, ideas, one "
        "per line. I need at least {need} more.",
    },
    "inbox_too_few": {
        # "Это всё" with fewer items than the step needs: said, not asked again as if unheard.
        "ru": "Понял, но пока записей в inbox: {total}, а для старта нужно хотя бы {least}. Что "
        "ещё висит в голове — звонки, покупки, идеи? Нужно ещё хотя бы {need}.",
        "en": "Got it, but your inbox has {total} so far, and a start needs at least {least}. "
        "What else is on your mind: calls, errands, ideas? I need at least {need} more.",
    },
    "inbox_explain": {
        "ru": "Сейчас выгрузка мыслей: запиши всё, что висит в голове, — дела, идеи, желания, "
        "по одному в строке или через «;». Записанное попадёт в inbox, держать его в памяти "
        "не нужно, а я помогу разложить это по твоим приоритетам. Нужно хотя бы {need}.",
        "en": "Now the brain dump: write down everything on your mind (tasks, ideas, wishes), "
        'one per line or separated by ";". What is written down goes into your inbox, so you '
        "need not keep it in your head, and I will help you sort it by your priorities. I "
        "need at least {need}.",
    },
    "moving_on": {
        # After the reply to a step's last message (`max_messages`), which does not close the
        # step: the workflow moves on anyway (`service.late_inbox.told_moving_on`).
        "ru": "Это было последнее сообщение на этом шаге, так что идём дальше.",
        "en": "That was the last message for this step, so we are moving on.",
    },
    "inbox_never_mind": {
        # "never mind", "forget it", "забей" alone: nothing was saved, nor taken out.
        "ru": "Хорошо, ничего не записываю.",
        "en": "Okay, nothing saved.",
    },
    "inbox_removed": {"ru": "Убрал из inbox: {item}.", "en": "Removed from your inbox: {item}."},
    "inbox_remove_which": {
        # Asked to take out what several items hold: none is removed.
        "ru": "«{said}» есть в нескольких записях: {items}. Какую убрать? Напиши её целиком.",
        "en": 'Several items hold "{said}": {items}. Which one should I remove? Write it out '
        "in full.",
    },
    "inbox_changed": {
        # A correction of an item said earlier ("no wait not milk, oat milk"): replaced.
        "ru": "Исправил: {item} → {new}.",
        "en": "Changed: {item} → {new}.",
    },
    "inbox_removed_part": {
        # Asked to take out a part of an item joined by "and" ("remove buy dog food" of "call
        # grandma and buy dog food"): the rest of the item stays.
        "ru": "Убрал из записи «{said}», осталось: {item}.",
        "en": 'Took "{said}" out of that item; it now reads: {item}.',
    },
    "inbox_change_missing": {
        # A correction of words no saved item holds ("no wait not bread, rye bread").
        "ru": "Не нашёл в inbox записи с «{said}», так что ничего не менял. Сейчас там: {items}.",
        "en": 'No item in your inbox holds "{said}", so nothing was changed. It holds: {items}.',
    },
    "inbox_change_which": {
        # "I meant bread" after several items it may go into: nothing is changed nor saved.
        "ru": "Какую запись исправить на «{said}»? Сейчас там: {items}. Напиши, что заменить: "
        "«не …, а {said}».",
        "en": 'Which item should read "{said}"? Your inbox holds: {items}. Say what to change: '
        '"not ..., {said}".',
    },
    "inbox_done_which": {
        # "already did it" naming no one item: nothing is removed.
        "ru": "Какую запись убрать как сделанную ({said})? Сейчас там: {items}. Напиши её целиком.",
        "en": "Which item is done ({said})? Your inbox holds: {items}. Write it out in full.",
    },
    "inbox_remove_missing": {
        "ru": "В inbox нет записи «{said}», так что убирать нечего.",
        "en": 'There is no "{said}" in your inbox, so nothing was removed.',
    },
    "inbox_remove_last_which": {
        # "delete the last one" when the replies do not tell which was saved last.
        "ru": "Какую запись убрать? Последние: {items}. Напиши её целиком.",
        "en": "Which item should I remove? The last ones: {items}. Write it out in full.",
    },
    "inbox_remove_no_place": {
        # "remove #7" of a list of three: nothing is removed.
        "ru": "Записи №{place} в списке нет, там: {items}. Какую убрать? Напиши её целиком.",
        "en": "There is no item #{place}; the list holds: {items}. Which one should I remove? "
        "Write it out in full.",
    },
    "inbox_remove_place_which": {
        # "remove #2" when the replies do not tell the list's order: nothing is removed.
        "ru": "Какая запись №{place}? В inbox сейчас: {items}. Напиши её целиком.",
        "en": "Which item is #{place}? Your inbox holds: {items}. Write it out in full.",
    },
    "inbox_remove_nothing": {
        "ru": "В inbox пока нет записей, так что убирать нечего.",
        "en": "Your inbox holds no items yet, so nothing was removed.",
    },
    "inbox_how_many": {
        # A question how many items the step needs, or why three: the usual request after it
        # says how many more.
        # {least} says its noun ("3 записи"): "3 записи записей" was said.
        "ru": "Для старта хватит {least}: этого достаточно, чтобы начать разбирать "
        "inbox по приоритетам, а добавлять новое можно и после онбординга.",
        "en": "{least} items are enough to start with: enough to begin sorting your inbox by "
        "your priorities, and you can add more after onboarding too.",
    },
    "inbox_answer": {
        # A question in the brain dump: what becomes of the items (seed 001, components 5, 6
        # and 9), before the step's usual request.
        "ru": "Всё, что ты здесь пишешь, я сохраняю в inbox, по записи на каждую мысль. После "
        "онбординга я помогу разобрать inbox по твоим приоритетам и спланировать неделю.",
        "en": "Everything you write here I save to your inbox, one item per thought. After "
        "onboarding I will help you sort the inbox by your priorities and plan your week.",
    },
    "inbox_not_yet": {
        # Said to a "done" the step may not take yet: a question, which a "no" answers, not "say
        # 'that's all' again" to a user who said "готово" or "done", or said it already.
        "ru": "Хорошо. Прежде чем закрыть выгрузку, хочу убедиться, что ничего не осталось: "
        "может, ещё что-то висит в голове, пусть даже мелочь?",
        "en": "Good. Before we close the brain dump I want to be sure nothing is left: is there "
        "anything else on your mind, even something small?",
    },
    "inbox_wait": {
        # A "no" to discovery's closing "Ready?": no rush, not the explanation as to a "yes"
        # (said in full when the user comes back).
        "ru": "Хорошо, не торопись. Когда захочешь начать, просто напиши, что висит в голове, — "
        "по одному в строке, а я запишу это в inbox.",
        "en": "No rush. When you are ready, just write what is on your mind, one thing per "
        "line, and I will save it to your inbox.",
    },
    "inbox_widget_wait": {
        "ru": "Хорошо, не торопись. Когда захочешь начать, заполни список и нажми «Done».",
        "en": "No rush. When you are ready, fill in the list and press Done.",
    },
    "inbox_remember_what": {
        # "не забыть" or "don't forget" alone names no task: no item, asked what it is.
        "ru": "Что именно не забыть? Напиши само дело, например «не забыть оплатить интернет», "
        "— и я его запишу.",
        "en": 'What should I remember? Write the task itself, for example "remember to pay the '
        'internet bill", and I will save it.',
    },
    "inbox_anything_else": {
        "ru": "Что-нибудь ещё? Когда закончишь, напиши «это всё».",
        "en": 'Anything else? When you are finished, say "that\'s all".',
    },
    "inbox_widget": {
        "ru": "Этот шаг закрывается списком: заполни его — каждое дело, идею или желание "
        "отдельным пунктом — и нажми «Done». Всё из списка попадёт в inbox.",
        "en": "This step closes with your list: fill it in, one task, idea or wish per item, "
        "and press Done. Everything on the list goes into your inbox.",
    },
    "inbox_widget_again": {
        # The list's instruction once more: word for word on every chat message, it read as
        # if the message had not been read.
        "ru": "Заполни список и нажми «Done», когда в нём будет всё.",
        "en": "Fill in the list and press Done when everything is on it.",
    },
    "inbox_widget_done": {
        # No count: the list's items reach the inbox once the step has closed on it.
        "ru": "Отлично, список принят: всё из него попадёт в inbox.",
        "en": "Great, your list is in: everything on it goes into your inbox.",
    },
    "inbox_done": {
        # Not "в inbox {total} записей": the noun's form follows the number ("3 записи", "21
        # запись"), and a label before the count needs none.
        "ru": "Отлично, записей в inbox: {total}.",
        "en": "Great, your inbox holds {total} items.",
    },
    "inbox_done_later": {
        # The closing after "потом", "not now" to "Anything else?": the user did not say there
        # is nothing more, so not the plain "Great" a "no" gets.
        "ru": "Хорошо, остальное подождёт. Записей в inbox: {total}.",
        "en": "Sure, the rest can wait. Your inbox holds {total} items.",
    },
    "then_summary": {
        # After the brain dump's closing, when the coordinator's wrap-up comes next: it answers
        # the user's next message, and "Great, your inbox holds 3 items." asked for none. Any
        # message starts it (the shipped step takes one), so none is named: "say "ok"" read as
        # if only "ok" would do.
        # "готов" spoke to a man only: the user's gender is not known, so no Russian text
        # addressed to them agrees with one (`test_texts_gender`).
        "ru": "Напоследок: когда захочешь, напиши мне что угодно — и я подведу итоги и "
        "расскажу, что дальше.",
        "en": "One last thing: send me anything when you are ready, and I will sum up what we "
        "have and what comes next.",
    },
    "coordinator": {
        "ru": f"Поздравляю, онбординг завершён! {_WRAP_UP['ru']}",
        "en": f"Congratulations, onboarding is complete! {_WRAP_UP['en']}",
    },
    "coordinator_wait": {
        # A refusal ("нет", "not yet", "подожди") to the brain dump's "when you are ready" before
        # the wrap-up: the wrap-up would close onboarding against the user's word.
        "ru": "Хорошо, не тороплю. Когда захочешь, напиши мне что угодно — и я подведу итоги "
        "и расскажу, что дальше.",
        "en": "Sure, no rush. Send me anything when you are ready, and I will sum up what we "
        "have and what comes next.",
    },
    "coordinator_named": {
        "ru": f"Поздравляю, {{name}}, онбординг завершён! {_WRAP_UP['ru']}",
        "en": f"Congratulations, {{name}}, onboarding is complete! {_WRAP_UP['en']}",
    },
    # The greeter, when the user says their name: before its reply, or in place of the
    # "Привет!"/"Hi!" its introduction opens with.
    "nice_to_meet": {"ru": "Приятно познакомиться, {name}!", "en": "Nice to meet you, {name}!"},
    "hi": {"ru": "Привет!", "en": "Hi!"},
    "hi_named": {"ru": "Привет, {name}!", "en": "Hi, {name}!"},
    "unknown_agent": {
        "ru": "Агент {agent} не умеет работать без модели.",
        "en": "Agent {agent} has no scripted behaviour.",
    },
}


def text(language: str, key: str, **values: Any) -> str:
    """The text `key` in `language`, with `values` filled in; a value that ends a sentence
    itself ("call Smith J.", an item stored as "call mom!") takes the place of the text's own
    stop after it, so none is doubled ("call mom!."). A count of inbox entries (`{need}`,
    `{least}`) is said with its noun in Russian (`entries`)."""
    template = TEXTS[key][language]
    values = {
        name: entries(language, value) if name in _ENTRY_COUNTS and type(value) is int else value
        for name, value in values.items()
    }
    for name, value in values.items():
        if isinstance(value, str) and value.rstrip().endswith(_SENTENCE_ENDS):
            template = template.replace(f"{{{name}}}.", f"{{{name}}}")
    return template.format(**values)


_SENTENCE_ENDS = (".", "!", "?", "…")


_ENTRY_COUNTS = frozenset({"need", "least"})
"""The placeholders that count inbox entries."""


def entries(language: str, count: int) -> str:
    """A count of inbox entries as a text says it: in Russian with the noun in the form the
    number takes ("1 запись", "2 записи", "5 записей"; "Нужно ещё хотя бы 2." left the reader
    to guess two of what), in English the number alone ("at least 2 more")."""
    if language != "ru":
        return str(count)
    tens, units = count % 100, count % 10
    if units == 1 and tens != 11:
        noun = "запись"
    elif 2 <= units <= 4 and not 12 <= tens <= 14:
        noun = "записи"
    else:
        noun = "записей"
    return f"{count} {noun}"


def in_every_language(*keys: str) -> tuple[str, ...]:
    """The texts `keys` in every language, to find in a reply whichever language it was in."""
    return tuple(text(language, key) for key in keys for language in ("ru", "en"))
