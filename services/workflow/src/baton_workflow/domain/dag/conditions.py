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

This module holds the parser; the tokenizer and `ConditionError` are in `condition_tokens`, the
nodes and their evaluation in `condition_nodes`.
"""

from __future__ import annotations

from functools import lru_cache

from baton_workflow.domain.dag.condition_nodes import (
    COMPARATORS,
    Binary,
    Condition,
    Logical,
    Node,
    Not,
    Value,
)
from baton_workflow.domain.dag.condition_tokens import ConditionError, Token, tokenize
from baton_workflow.domain.dag.templates import Template, TemplateError, parse_template

MAX_NESTING = 64
"""How deep parentheses and `!` may nest (far beyond any readable condition)."""


@lru_cache(maxsize=1024)
def parse_condition(text: str) -> Condition:
    """Parse an `if` expression; ConditionError naming the problem and its column otherwise."""
    parser = _Parser(text, tokenize(text))
    root = parser.expression()
    parser.expect_end()
    return Condition(text, root, parser.unclosed)


class _Parser:
    def __init__(self, source: str, tokens: list[Token]) -> None:
        self.source = source
        self.tokens = tokens
        self.index = 0
        self.depth = 0
        self.unclosed: int | None = None

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def nest(self, token: Token) -> None:
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
        if self.current.kind in COMPARATORS:
            comparator = self.advance().kind
            left = Binary(comparator, left, self.operand())
            if self.current.kind in COMPARATORS:
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
            return Value(self.literal_template(token))
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

    def literal_template(self, token: Token) -> Template:
        """The token's template; the first `{{` of a quoted string that opens no template
        (it stays text) is kept in `unclosed`, as an offset in the whole expression."""
        try:
            template = parse_template(token.text)
        except TemplateError as exc:
            raise ConditionError(exc.message, token.position) from None
        tail = template.parts[-1] if template.parts else None
        # Only the text after the last template can hold such a "{{" (see `TemplateScan`).
        if self.unclosed is None and isinstance(tail, str) and (at := tail.find("{{")) >= 0:
            self.unclosed = _source_offset(self.source, token, len(token.text) - len(tail) + at)
        return template


def _source_offset(source: str, token: Token, index: int) -> int:
    """Where the `index`-th character of a string token's text is in `source`: after its
    opening quote, each backslash escape counting as the one character it stands for."""
    i = token.position + 1
    for _ in range(index):
        i += 2 if source[i] == "\\" else 1
    return i
