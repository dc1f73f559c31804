"""The scripted agents read a message of the longest size the gateway takes (8,000 characters)
in time that grows with its length, whatever it repeats.

Each of these messages once took from seconds to minutes of the agent-runner's one process:
a rule read the whole text again for each word, comma, stop or self-correction in it
("и и и ...": five minutes at the greeter). The timeout is a guard against such a hang, far
above what a turn takes (under 1.5 s on the slowest of them)."""

from __future__ import annotations

from uuid import uuid4

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run, tidy
from baton_contracts.workflow_api import MAX_MESSAGE_CHARS

AGENTS = [
    ("greeter", "greeting"),
    ("discovery", "discovery"),
    ("inbox_collector", "brain_dump"),
    ("coordinator", "setup_complete"),
]
REPEATED = [
    "и ",  # a clause of "и" read as "that's all" from each start to each end: cubic
    "and ",
    ", and ",  # each phrase start read every "and" after it
    "no wait, ",  # each self-correction read the text before and after it
    "work ",  # each area word read its whole clause before and after it
    "сон ",  # each area word read its part of the clause again for a verb of buying before it
    "work, health, ",  # each area of a listing read the listing after it
    "work and health and ",  # each area word looked for its listing along all of them
    "ok ",  # each readiness word looked for a negation in all the words before it
    "a, ",  # each comma of a question read to the question's end
    "why? ",  # what follows each question read by a call of its own: past Python's limit
    "a, b? ",
    "? ",  # each question's sentence looked for from the text's start
    "...",  # a run of stops tried from each of its stops
    "—",
    "{{",
    "купить хлеб, можешь напомнить ",
]


def longest(run: str, head: str = "", tail: str = "") -> str:
    """A message as long as the gateway takes: `head`, then `run` repeated, then `tail`."""
    return (head + run * MAX_MESSAGE_CHARS)[: MAX_MESSAGE_CHARS - len(tail)] + tail


def answers(agent: str, step: str, message: str, *, history: bool = False) -> str:
    """The agent's answer to `message` on its step, with the same message earlier in the
    conversation too when `history` (the rules read earlier messages again)."""
    earlier = [{"role": "user", "text": message}, {"role": "assistant", "text": "Ok?"}]
    out = run(
        Turn(
            agent=agent,
            current_step=step,
            message=message,
            language=lang.language_of(message),
            messages_in_step=3,
            inbox_count=1,
            history=earlier if history else [],
        )
    )
    return out.message


@pytest.mark.timeout(30)
@pytest.mark.parametrize("unit", REPEATED)
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_a_message_of_the_longest_size_is_read_in_linear_time(
    unit: str, agent: str, step: str
) -> None:
    message = longest(unit)
    assert answers(agent, step, message, history=True)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("tail", ["too", "and also buy milk", "и ещё купить хлеб", "except rent"])
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_a_long_run_of_spaces_before_the_last_words_is_read_in_linear_time(
    tail: str, agent: str, step: str
) -> None:
    # "call mom" and 8,000 spaces before a "too" took minutes at the brain dump: the patterns
    # for "too", "also" and "except" were tried from each space of the run.
    message = longest(" ", "call mom", tail)
    assert answers(agent, step, message)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("tail", ["x", "means x", "- x", "and x", "теперь это x"])
@pytest.mark.parametrize("blank", [" ", "\t", "\n", "\u00a0", " \n"])
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_an_area_word_then_a_run_of_white_space_is_read_in_linear_time(
    tail: str, blank: str, agent: str, step: str
) -> None:
    # "work" and 8,000 spaces before an "x" took the greeter 10 s and discovery hours: a
    # listing's separator was tried from each space of the run, and the "work means ..."
    # pattern split the run three ways. The rules now read every run as one space.
    message = longest(blank, "work", tail)
    assert answers(agent, step, message, history=True)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("tail", ["health?", "work? no"])
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_a_long_question_is_read_in_linear_time(tail: str, agent: str, step: str) -> None:
    # "1 1 1 ... health?" took discovery 8 s: the pattern for an area asked and answered "no"
    # ("work? no") was tried from each character of the question.
    message = longest("1 ", tail=tail)
    assert answers(agent, step, message, history=True)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("stop", "tail"), [("?", "health?"), (".", "means x"), (".", "done"), ("…", "health?")]
)
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_a_long_run_of_stops_before_the_last_words_is_read_in_linear_time(
    stop: str, tail: str, agent: str, step: str
) -> None:
    # "?" 8,000 times before "health?" took the brain dump 2.9 s and the greeter 1 s: a phrase's
    # and a question's end, and the last sentence, were read again from each stop of the run.
    message = longest(stop, tail=tail)
    assert answers(agent, step, message, history=True)


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("call  mom", "call mom"),
        ("call\tmom\u00a0now", "call mom now"),
        ("buy milk\n\n\n\ncall mom", "buy milk\n\ncall mom"),
        ("buy milk \n \n call mom", "buy milk \n\n call mom"),
        ("buy milk\ncall mom", "buy milk\ncall mom"),
    ],
)
def test_white_space_is_read_as_one_space_and_blank_lines_as_one(said: str, read: str) -> None:
    assert tidy(said) == read


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("said", "unit"),
    [
        ("add to my inbox: x", ","),
        ("inbox: x", ", "),
        ("напомни мне купить хлеб", ","),
        ("remind me to call mom", ",,, "),
    ],
)
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_a_long_run_of_commas_after_a_request_is_read_in_linear_time(
    said: str, unit: str, agent: str, step: str
) -> None:
    # "add to my inbox: x" and 8,000 commas took the brain dump 4.5 s and every other agent
    # 1.5 s: the "please" that may close a request's item was looked for from each comma.
    message = longest(unit, said)
    assert answers(agent, step, message, history=True)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "said",
    [
        "no, work",
        "нет, работа",
        "work, no wait, not work, health",
        "no, not finances, health",
        "health, no wait, work",  # each listing's pieces read 36 times a turn: 0.8 s
    ],
)
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_a_long_run_of_commas_after_a_correction_is_read_in_linear_time(
    said: str, agent: str, step: str
) -> None:
    # "work, no wait, not work, health" and 8,000 commas took discovery 24 s, "no, work" and
    # them 10 s: the "instead" that may close a corrected area was looked for from each comma,
    # once for each area named.
    message = longest(",", said)
    assert answers(agent, step, message, history=True)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("said", ["a etc", "buy milk etc", "купить хлеб и т.д."])
@pytest.mark.parametrize("stop", ["!", "."])
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_a_long_run_of_stops_after_an_abbreviation_is_read_in_linear_time(
    said: str, stop: str, agent: str, step: str
) -> None:
    # "a etc" and 8,000 "!" before an "x" took discovery and the greeter 0.75 s: where a
    # sentence ends was looked for from each stop of the run.
    message = longest(stop, said, "x")
    assert answers(agent, step, message, history=True)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("unit", "tail"),
    [("запиши ", ""), ("добавь в ", "x"), ("напомни мне ", "?x"), ("remind me to ", "?x")],
)
@pytest.mark.parametrize(("agent", "step"), AGENTS)
def test_a_long_run_of_request_verbs_is_read_in_linear_time(
    unit: str, tail: str, agent: str, step: str
) -> None:
    # "запиши " 8,000 characters long took the brain dump 0.6 s, and "напомни мне " before a
    # "?x" 0.5 s: an item read to the message's end was looked for from each verb of the run.
    message = longest(unit, tail=tail)
    assert answers(agent, step, message, history=True)


@pytest.mark.parametrize("unit", ["нет, стоп, не ", "no wait, not ", "work, health, "])
def test_a_discovery_turn_reads_the_areas_of_its_message_once(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A discovery turn asks what the message says of each area five times (named, declined,
    # wrong, ...): read again each time, 8,000 characters of self-corrections ("нет, стоп,
    # не ...") took 0.4 s of the agent-runner's one core instead of 0.1.
    reads: list[str] = []
    real = lang._mentions_of

    def counted(text: str) -> list[tuple[str, str, lang.Mention]]:
        reads.append(text)
        return real(text)

    monkeypatch.setattr(lang, "_mentions_of", counted)
    message = longest(unit, head=f"{uuid4().hex} ")  # a text no earlier test read
    assert answers("discovery", "discovery", message)
    assert len(reads) == len(set(reads))
