"""How `baton workflow` writes JSON for scripts (`status`, every `--json`): indented as
`json.dumps` writes it, with no Rich reflow, and a small number written as its decimal.

Python writes a float below 0.0001 with an exponent, so a run's cost of $0.0000314 read
`"cost_usd": 3.14e-05`. It is written `0.0000314` instead: the same number to `jq` or any JSON
reader, and the amount a person reads in the CLI's other lines.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from rich.console import Console

from baton_cli.printable import json_text

# A line of indented JSON that is a number written with a negative exponent, after its key if
# it has one: no string holds a line break, so no line of a string can look like one.
_SMALL_NUMBER = re.compile(r'^(\s*(?:"(?:[^"\\]|\\.)*": )?)(-?\d+(?:\.\d+)?e-\d+)(,?)$', re.M)


def print_json(console: Console, value: Any) -> None:
    """`value` as indented JSON, a small number written as its decimal (`0.0000314`)."""
    text = json_text(value)
    console.out(_SMALL_NUMBER.sub(_as_decimal, text), highlight=False)


def _as_decimal(match: re.Match[str]) -> str:
    return f"{match[1]}{Decimal(match[2]):f}{match[3]}"
