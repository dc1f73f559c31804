"""The nodes of a parsed `if` expression and how each evaluates against a run's render context.

Values are text: `compare` is numeric when both sides read as numbers (`NUMBER`), otherwise it
compares the stripped texts, and `is_truthy` is seed 004 truthiness. A run of `&&` or `||` is
one `Logical` node, so evaluating never recurses deep. `conditions` builds these nodes.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from baton_workflow.domain.dag.templates import (
    MAX_FILLED_CHARS,
    FilledTooLong,
    Reference,
    RenderContext,
    Template,
)

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
}
COMPARATORS = tuple(_OPERATORS)
"""The comparison operators, longest first where one is a prefix of another."""
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
"""What reads as a number, in an expression and in a value compared."""


def is_truthy(value: str) -> bool:
    """Seed 004 truthiness: non-empty and not "false"/"0" (case and surrounding space ignored)."""
    text = value.strip()
    return text != "" and text.lower() not in ("false", "0")


def _as_number(text: str) -> Decimal | None:
    # Exact, not a float: a float keeps about 16 digits, so two 19-digit ids (an order
    # number, a snowflake id) that differ in their last digits compared equal.
    stripped = text.strip()
    return Decimal(stripped) if NUMBER.fullmatch(stripped) else None


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
        """The rendered text; FilledTooLong past `MAX_FILLED_CHARS` (it is never built)."""
        filled = self.template.fill(context, MAX_FILLED_CHARS)
        if filled.cut:
            raise FilledTooLong(filled.length, MAX_FILLED_CHARS)
        return filled.text

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
    unclosed: int | None = None
    """Where a quoted string's `{{` opens a template that is never closed (so it is compared
    as text): its 0-based offset in `source`, or None (see `templates.TemplateScan`)."""

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
