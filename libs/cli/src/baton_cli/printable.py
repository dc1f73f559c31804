"""What the CLI prints of other people's text: every control character shown, never obeyed.

A step's output, an agent's message, a cancel reason or a gateway's error can hold what a model
or another user wrote, and a terminal obeys the control sequences in what it is given:
`ESC ] 52` writes the clipboard in many terminals, `ESC ] 0` retitles the window, `ESC [ 2J`
clears the screen, a carriage return lets later text hide earlier text on the same line. Rich
writes a `Text`'s characters as they are (it drops only BEL, BS, VT, FF and CR), and `echo`
writes everything to a terminal.

So each control character but tab and line feed is written as a sign: C0 ones and DEL as
their Unicode control pictures (`␛` for ESC), C1 ones (`\\x9b` is a one-byte CSI to some
terminals) as a `\\x..` escape. `PrintableConsole` does it for everything Rich prints, below
the layout (Rich's own styles are not text, and stay), and `say` for plain lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import typer
from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_JSON_RAW = re.compile(r"[\x7f-\x9f]")
"""What `json.dumps(ensure_ascii=False)` leaves raw: it escapes only what is below 0x20."""


def _sign(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the control pictures block: U+2400 NUL ... U+241F US
    if code == 0x7F:
        return "\u2421"  # DEL
    return f"\\x{code:02x}"


def printable(text: str) -> str:
    """`text` with every control character but tab and line feed written as a sign."""
    return _CONTROL.sub(_sign, text)


def json_text(value: Any) -> str:
    """`value` as indented JSON that holds no raw control character: `json` escapes those
    below 0x20; DEL and the C1 ones are written `\\u007f` ... `\\u009f`, the same string to
    any JSON reader."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def say(line: str, err: bool = False) -> None:
    """`typer.echo` for a line that may hold text from the gateway."""
    typer.echo(printable(line), err=err)


class PrintableConsole(Console):
    """A Rich console that prints each control character of the text it renders as a sign
    (`printable`); the control segments Rich makes itself (cursor moves) pass as they are."""

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not _CONTROL.search(segment.text):
                yield segment
            else:
                yield Segment(printable(segment.text), segment.style)
