"""A step closed by its message limit is said in the console's chat, and stays said on reload."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml
from playwright.async_api import expect

from baton_workflow.settings import SHIPPED_DEFINITIONS

from .conftest import Console, Stack, running_stack

LIMIT = 6  # discovery's max_messages here (30 in the shipped onboarding)


@pytest.fixture(scope="module")
async def stack(nats_url: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    """The console stack with the shipped onboarding, its discovery capped at LIMIT messages."""
    tmp_path = tmp_path_factory.mktemp("console-forced")
    data = yaml.safe_load((SHIPPED_DEFINITIONS / "onboarding.yaml").read_text())
    [discovery] = [step for step in data["steps"] if step["id"] == "discovery"]
    discovery["max_messages"] = LIMIT
    definitions = tmp_path / "definitions"
    definitions.mkdir()
    (definitions / "onboarding.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
    async with running_stack(nats_url, tmp_path, definitions) as stack:
        yield stack


async def test_a_forced_transition_is_noted_after_the_answer_that_closed_the_step(
    console: Console, tmp_path: Path
) -> None:
    await console.open()
    await console.sign_in("frank")
    await console.start()
    await console.say("Hello there")
    await console.say("Got it, let's go")
    await console.expect_step("discovery")
    for n in range(1, LIMIT + 1):  # small talk: no life area, so discovery is never done
        await console.say(f"just chatting, message {n}")
    await console.expect_step("brain_dump")

    notices = console.page.locator("#chat-log li.notice")
    await expect(notices).to_have_count(1)
    notice = notices.first
    await expect(notice).to_have_attribute("role", "note")
    await expect(notice).to_contain_text("reached its message limit without being done")
    await expect(notice).to_contain_text(f"max_messages ({LIMIT}) reached on 'discovery'")
    await expect(notice).to_contain_text("At least 3 facts about your priorities:")
    await expect(notice).not_to_contain_text("memory_facts")  # the checker's name, for developers
    # Right after the answer to the message that closed the step, not at the end of the chat.
    closing_answer = "li => li.previousElementSibling.querySelector('.text').innerText"
    before_notice = await notice.evaluate(closing_answer)
    answers = console.page.locator("#chat-log li[data-role=assistant] .text")
    assert before_notice == await answers.nth(LIMIT + 1).inner_text()
    forced = console.page.locator("#event-log li[data-type='workflow.step_changed']")
    await expect(forced.last).to_contain_text("discovery → brain_dump (forced)")
    # The chat itself is unchanged: the notice is not a message.
    assert len(await console.messages()) == 2 * (LIMIT + 2)

    await console.page.reload()
    await console.expect_step("brain_dump")
    await expect(notices).to_have_count(1)
    assert await notices.first.evaluate(closing_answer) == before_notice
