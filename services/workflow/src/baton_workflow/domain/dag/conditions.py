"""The `if` expression of a condition step: a small safe grammar, never `eval`.

    expression := or
    or         := and ("||" and)*
    and        := not ("&&" not)*
    not        := "!" not | comparison
    comparison := operand (("==" | "!=" | "<" | "<=" | ">" | ">=") operand)?
    operand    := TEMPLATE | STRING | NUMBER | "true" | "false" | "(" expression ")"

A TEMPLATE is one `{{...}}` reference; STRING is '...' or "..." (templates inside are rendered
too). Values are text: a comparison is numeric when both sides read as numbers, otherwise it
compares the texts (both stripped of surrounding whitespace). On its own, a value is true when
it is non-empty and not "false" or "0" (seed 004 truthiness).

Parentheses and `!` nest at most `MAX_NESTING` deep, and a run of `&&` or `||` is one node, so
neither parsing nor evaluating an expression a user wrote can exhaust Python's stack.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from baton_workflow.domain.dag.templates import (
    Reference,
    RenderContext,
    Template,
    TemplateError,
    parse_reference,
    parse_template,
)

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
}
_COMPARATORS = tuple(_OPERATORS)
_SYMBOLS = ("&&", "||", *_COMPARATORS, "!", "(", ")")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_NESTING = 64
"""How deep parentheses and `!` may nest (far beyond any readable condition)."""


class ConditionError(ValueError):
    """An `if` expression does not parse; `position` is the 0-based offset of the problem."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"column {position + 1}: {message}")
        self.message = message
        self.position = position


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "template", "string", "number", "word", a symbol, or "end"
    text: str
    position: int


def is_truthy(value: str) -> bool:
    """Seed 004 truthiness: non-empty and not "false"/"0" (case and surrounding space ignored)."""
    text = value.strip()
    return text != "" and text.lower() not in ("false", "0")


def _as_number(text: str) -> float | None:
    stripped = text.strip()
    return float(stripped) if _NUMBER.fullmatch(stripped) else None


def compare(left: str, comparator: str, right: str) -> bool:
    """`left comparator right`, numerically when both read as numbers, else as stripped text."""
    test = _OPERATORS[comparator]
    a, b = _as_number(left), _as_number(right)
    if a is not None and b is not None:
        return test(a, b)
    return test(left.strip(), right.strip())


@dataclass(frozen=True, slots=True)
class Value:
    """A quoted string (possibly holding templates), a number or true/false."""

    template: Template

    def value(self, context: RenderContext) -> str:
        """The rendered text."""
        return self.template.render(context)

    def evaluate(self, context: RenderContext) -> bool:
        """Truthiness of the text."""
        return is_truthy(self.value(context))


@dataclass(frozen=True, slots=True)
class Not:
    """`!operand`."""

    operand: Node

    def value(self, context: RenderContext) -> str:
        """ "true" or "false"."""
        return "true" if self.evaluate(context) else "false"

    def evaluate(self, context: RenderContext) -> bool:
        """The negation of the operand's truth."""
        return not self.operand.evaluate(context)


@dataclass(frozen=True, slots=True)
class Binary:
    """A comparison."""

    operator: str
    left: Node
    right: Node

    def value(self, context: RenderContext) -> str:
        """ "true" or "false"."""
        return "true" if self.evaluate(context) else "false"

    def evaluate(self, context: RenderContext) -> bool:
        """Compare the two values."""
        return compare(self.left.value(context), self.operator, self.right.value(context))


@dataclass(frozen=True, slots=True)
class Logical:
    """A run of `&&` or of `||`: one node however long, so evaluating it never recurses deep."""

    operator: str
    operands: tuple[Node, ...]

    def value(self, context: RenderContext) -> str:
        """ "true" or "false"."""
        return "true" if self.evaluate(context) else "false"

    def evaluate(self, context: RenderContext) -> bool:
        """&& and || short-circuit on truth, left to right."""
        truths = (operand.evaluate(context) for operand in self.operands)
        return all(truths) if self.operator == "&&" else any(truths)


Node = Value | Not | Binary | Logical


@dataclass(frozen=True, slots=True)
class Condition:
    """A parsed `if` expression; evaluate it against a run's render context."""

    source: str
    root: Node

    def evaluate(self, context: RenderContext) -> bool:
        """Whether the condition holds."""
        return self.root.evaluate(context)

    @property
    def references(self) -> tuple[Reference, ...]:
        """Every template reference the expression reads (for validation)."""
        found: list[Reference] = []
        stack: list[Node] = [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, Value):
                found.extend(node.template.references)
            elif isinstance(node, Not):
                stack.append(node.operand)
            elif isinstance(node, Logical):
                stack.extend(reversed(node.operands))
            else:
                stack.extend((node.right, node.left))
        return tuple(found)


@lru_cache(maxsize=1024)
def parse_condition(text: str) -> Condition:
    """Parse an `if` expression; ConditionError naming the problem and its column otherwise."""
    parser = _Parser(text, _tokenize(text))
    root = parser.expression()
    parser.expect_end()
    return Condition(text, root)


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
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
            tokens.append(_Token(symbol, symbol, i))
            i += len(symbol)
        elif number := _NUMBER.match(text, i):
            tokens.append(_Token("number", number.group(0), i))
            i = number.end()
        elif (word := _WORD.match(text, i)) and word.group(0) in ("true", "false"):
            tokens.append(_Token("word", word.group(0), i))
            i = word.end()
        elif word:
            raise ConditionError(
                f"unexpected name \"{word.group(0)}\"; quote text ('{word.group(0)}') "
                "or use a {{template}}",
                i,
            )
        else:
            raise ConditionError(f'unexpected character "{char}"', i)
    tokens.append(_Token("end", "", len(text)))
    return tokens


def _template_token(text: str, start: int, tokens: list[_Token]) -> int:
    end = text.find("}}", start + 2)
    if end < 0:
        raise ConditionError("unclosed {{", start)
    try:
        parse_reference(text[start + 2 : end], start)
    except TemplateError as exc:
        raise ConditionError(exc.message, start) from None
    tokens.append(_Token("template", text[start : end + 2], start))
    return end + 2


def _string_token(text: str, start: int, tokens: list[_Token]) -> int:
    quote, i, chars = text[start], start + 1, []
    while i < len(text) and text[i] != quote:
        if text[i] == "\\" and i + 1 < len(text):
            i += 1
        chars.append(text[i])
        i += 1
    if i >= len(text):
        raise ConditionError(f"unclosed string starting with {quote}", start)
    tokens.append(_Token("string", "".join(chars), start))
    return i + 1


class _Parser:
    def __init__(self, source: str, tokens: list[_Token]) -> None:
        self.source = source
        self.tokens = tokens
        self.index = 0
        self.depth = 0

    @property
    def current(self) -> _Token:
        return self.tokens[self.index]

    def advance(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def nest(self, token: _Token) -> None:
        """Go one level deeper (after a "(" or a "!"); ConditionError past `MAX_NESTING`."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ConditionError(
                f'nested too deeply: at most {MAX_NESTING} levels of "(" and "!"', token.position
            )

    def expression(self) -> Node:
        operands = [self.conjunction()]
        while self.current.kind == "||":
            self.advance()
            operands.append(self.conjunction())
        return operands[0] if len(operands) == 1 else Logical("||", tuple(operands))

    def conjunction(self) -> Node:
        operands = [self.negation()]
        while self.current.kind == "&&":
            self.advance()
            operands.append(self.negation())
        return operands[0] if len(operands) == 1 else Logical("&&", tuple(operands))

    def negation(self) -> Node:
        if self.current.kind == "!":
            self.nest(self.advance())
            node = Not(self.negation())
            self.depth -= 1
            return node
        return self.comparison()

    def comparison(self) -> Node:
        left = self.operand()
        if self.current.kind in _COMPARATORS:
            comparator = self.advance().kind
            left = Binary(comparator, left, self.operand())
            if self.current.kind in _COMPARATORS:
                raise ConditionError(
                    f'comparisons do not chain; add parentheses before "{self.current.text}"',
                    self.current.position,
                )
        return left

    def operand(self) -> Node:
        token = self.advance()
        if token.kind == "(":
            self.nest(token)
            node = self.expression()
            if self.current.kind != ")":
                raise ConditionError('expected ")"', self.current.position)
            self.advance()
            self.depth -= 1
            return node
        if token.kind in ("template", "string"):
            return Value(_literal_template(token))
        if token.kind in ("number", "word"):
            return Value(Template((token.text,)))
        what = "end of expression" if token.kind == "end" else f'"{token.text}"'
        raise ConditionError(f"expected a value, found {what}", token.position)

    def expect_end(self) -> None:
        if self.current.kind != "end":
            raise ConditionError(
                f'unexpected "{self.current.text}" after a complete expression',
                self.current.position,
            )


def _literal_template(token: _Token) -> Template:
    try:
        return parse_template(token.text)
    except TemplateError as exc:
        raise ConditionError(exc.message, token.position) from None
