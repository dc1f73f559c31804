"""The pattern the gateway publishes for a message's `text` takes the texts the workflow
service takes: found by reading `/openapi.json` against `checked_text`, whose rule (a
character that shows, no NUL) the former pattern `\\S` stated only in part."""

from __future__ import annotations

import pytest

from baton_contracts.workflow_api import MESSAGE_TEXT_PATTERN
from baton_workflow.domain.conversation import BlankText, checked_text

from .json_schema_subset import ecma_search


def taken(text: str) -> bool:
    try:
        checked_text(text)
    except ValueError:
        return False
    return True


def test_every_character_of_the_basic_plane_alone_is_taken_as_the_pattern_says() -> None:
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue  # a lone surrogate: no JSON body reaches a route with one
        char = chr(code)
        assert ecma_search(MESSAGE_TEXT_PATTERN, char) is taken(char), hex(code)


@pytest.mark.parametrize(
    "text",
    [
        "Hi! I'm ready, let's go.", " hi ", "\u200bhi\u200b", "\n\t你好\n", "👋", "a\nb",
        "", " \t\n", "\u200b\u200d\ufeff", " \u2060 ", "hi\u0000", "\u0000hi", "\u0000",
    ],
)  # fmt: skip
def test_a_text_is_taken_exactly_when_it_meets_the_pattern(text: str) -> None:
    assert ecma_search(MESSAGE_TEXT_PATTERN, text) is taken(text)


def test_format_characters_past_the_basic_plane_are_left_to_the_words() -> None:
    # A pattern sees U+E0020 (a tag character, Cf) as two UTF-16 units in ECMA-262: it
    # cannot tell it from a character that shows, so the field's description says the rule.
    assert ecma_search(MESSAGE_TEXT_PATTERN, "\U000e0020") and not taken("\U000e0020")


@pytest.mark.parametrize("text", ["\u0007", "\u001b", " \u0007\u0008 ", "\u007f\u0090\u200b"])
def test_a_text_of_control_characters_alone_is_blank(text: str) -> None:
    # BEL, ESC or DEL show nothing, yet a text of them alone was recorded as a message and
    # counted toward the step's min_messages (found by a probe of the chat API).
    with pytest.raises(BlankText):
        checked_text(text)
    assert not ecma_search(MESSAGE_TEXT_PATTERN, text)
    assert taken("\u0007hi\u001b")
