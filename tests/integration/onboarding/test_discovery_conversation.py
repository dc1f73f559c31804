"""Discovery's conversation through the HTTP API, as a probe of the platform found it: a
question about Baton is answered, a reply it does not get is asked about briefly, and an emoji
confirms the summary."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import httpx

from baton_agent_runner.domain.texts import text

from .conftest import Stack, User


async def test_discovery_answers_a_question_about_baton_and_takes_an_emoji_as_yes(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "probe-en")
    await user.start()
    for said in ("hi", "ready", "work and hobbies"):
        await user.say(said)
    asked = text("en", "discovery_ask", missing="health, relationships, growth")
    data = await user.say("wait who sees this data?")  # was "I did not quite get that."
    assert data["reply"]["text"] == f"{text('en', 'faq_data')} {asked}"
    summary = await user.say("health")
    assert summary["reply"]["text"].startswith(text("en", "summary_header"))
    # Not the whole summary again, alternating with "I did not quite get that".
    unclear = await user.say("hmm")
    right = text("en", "discovery_right")
    assert unclear["reply"]["text"] == f"{text('en', 'discovery_unclear_ask')} {right}"
    yes = await user.say("👍")  # the step's fifth message: it may close
    assert yes["reply"]["text"] == text("en", "discovery_done")
    assert yes["progress"]["current_step"] == "brain_dump"


async def test_discovery_answers_a_russian_question_about_the_users_data(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "probe-ru")
    await user.start()
    for said in ("привет", "давай", "работа и хобби"):
        await user.say(said)
    asked = text("ru", "discovery_ask", missing="здоровье, отношения, развитие")
    data = await user.say("А вы кому-нибудь передаёте мои данные?")  # was "Пока в списке..."
    assert data["reply"]["text"] == f"{text('ru', 'faq_data')} {asked}"
    await user.say("здоровье")
    done = await user.say("давай")
    assert (
        done["reply"]["text"]
        == f"{text('ru', 'discovery_good')} {text('ru', 'discovery_ask_focus')}"
    )
