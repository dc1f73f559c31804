"""Discovery's facts and notes through the HTTP API, as a probe of the platform found them: a
ranking said as the third area replaced the facts the user had given the others ("I work as a
nurse doing night shifts" became "work"), and "Which of these matters most?" was asked after
the user had said it."""

from __future__ import annotations

import httpx

from baton_agent_runner.domain.texts import text

from .conftest import Stack, User


async def test_a_ranking_keeps_earlier_facts_and_answers_which_area_matters_most(
    stack: Stack, http: httpx.AsyncClient
) -> None:
    user = User(http, "ranking")
    await user.start()
    for said in (
        "hi",
        "ready",
        "I work as a nurse doing night shifts",
        "my health is kinda bad tbh",
    ):
        await user.say(said)
    summary = await user.say("kids and my mom come first, then work, then gym if i ever get time")
    focus = "relationships — kids and my mom come first"
    assert summary["reply"]["text"] == "\n".join([
        text("en", "summary_header"),
        "- work: I work as a nurse doing night shifts",
        "- health: my health is kinda bad tbh",
        "- relationships: kids and my mom come first",
        f"- {text('en', 'note_focus')}: {focus}",
        text("en", "summary_question"),
    ])  # fmt: skip
    facts = (await user.get("/api/memory", category="priorities"))["facts"]
    assert {fact["key"]: fact["text"] for fact in facts} == {
        "work": "I work as a nurse doing night shifts",
        "health": "my health is kinda bad tbh",
        "relationships": "kids and my mom come first",
    }
    notes = (await user.get("/api/memory", category="situation"))["facts"]
    assert {note["key"]: note["text"] for note in notes} == {"focus": focus}
    yes = await user.say("yes")  # the step's fourth message: it may not close yet
    asked = f"{text('en', 'discovery_good')} {text('en', 'discovery_ask_constraints')}"
    assert yes["reply"]["text"] == asked
    await user.say("health i guess")  # the step's fifth: kept as what holds the user back
    facts = (await user.get("/api/memory", category="priorities"))["facts"]
    assert {fact["key"]: fact["text"] for fact in facts}["health"] == "my health is kinda bad tbh"
