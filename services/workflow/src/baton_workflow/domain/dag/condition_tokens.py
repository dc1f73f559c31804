"""The tokenizer of `if` expressions, and `ConditionError`, the error of a malformed one.

`tokenize` turns an expression into `Token`s (templates, strings, numbers, true/false, the
operators and parentheses), checking each `{{...}}` reference as it goes; `conditions` parses
the tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baton_workflow.domain.dag.condition_nodes import COMPARATORS, NUMBER
from baton_workflow.domain.dag.templates import TemplateError, parse_reference

_SYMBOLS = ("&&", "||", *COMPARATORS, "!", "(", ")")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ConditionError(ValueError):
    """An `if` expression does not parse; `position` is the 0-based offset of the problem."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"column {position + 1}: {message}")
        self.message = message
        self.position = position


@dataclass(frozen=True, slots=True)
class Token:
    """One lexeme of an expression and its 0-based offset."""

    kind: str  # "template", "string", "number", "word", a symbol, or "end"
    text: str
    position: int


def tokenize(text: str) -> list[Token]:
    """The tokens of `text`, ending with an "end" token; ConditionError on a bad one."""
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
        elif text.startswith("{{", i):
            i = _template_token(text, i, tokens)
        elif char in "'\"":
            i = _string_token(text, i, tokens)
        elif symbol := next((s for s in _SYMBOLS if text.startswith(s, i)), None):
            tokens.append(Token(symbol, symbol, i))
            i += len(symbol)
        elif number := NUMBER.match(text, i):
            tokens.append(Token("number", number.group(0), i))
            i = number.end()
        elif (word := _WORD.match(text, i)) and word.group(0) in ("true", "false"):
            tokens.append(Token("word", word.group(0), i))
            i = word.end()
        elif word:
            raise ConditionError(
                f"unexpected name \"{word.group(0)}\"; quote text ('{word.group(0)}') "
                "or use a {{template}}",
                i,
            )
        else:
            raise ConditionError(f'unexpected character "{char}"', i)
    tokens.append(Token("end", "", len(text)))
    return tokens


def _template_token(text: str, start: int, tokens: list[Token]) -> int:
    end = text.find("}}", start + 2)
    if end < 0:
        raise ConditionError("unclosed {{", start)
    try:
        parse_reference(text[start + 2 : end], start)
    except TemplateError as exc:
        raise ConditionError(exc.message, start) from None
    tokens.append(Token("template", text[start : end + 2], start))
    return end + 2


def _string_token(text: str, start: int, tokens: list[Token]) -> int:
    quote, i, chars = text[start], start + 1, []
    while i < len(text) and text[i] != quote:
        if text[i] == "\\" and i + 1 < len(text):
            i += 1
        chars.append(text[i])
        i += 1
    if i >= len(text):
        raise ConditionError(f"unclosed string starting with {quote}", start)
    tokens.append(Token("string", "".join(chars), start))
    return i + 1
