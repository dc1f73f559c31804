"""The cells and tables `baton workflow` draws its tables with (list, runs, history, the steps
of show, a run's live progress).

Every value goes into a `Text`, never into markup, so a step id containing `[brackets]` prints
as written. Every table ends each line at its last character: Rich pads each cell to its
column's width, the last column's too, so rows ended in spaces.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

STATUS_STYLES = {
    "success": "green",
    "error": "red",
    "timeout": "red",
    "cancelled": "red",
    "running": "yellow",
    "waiting": "yellow",
    "pending": "dim",
    "skipped": "dim",
}


def cell(value: Any, style: str = "") -> Text:
    """A value as a cell: `-` when absent or empty."""
    return Text("-" if value is None or value == "" else str(value), style=style)


def status_cell(status: Any) -> Text:
    """A run's or a step's status, coloured by what it means."""
    return cell(status, STATUS_STYLES.get(str(status), ""))


class TrimmedTable(Table):
    """A Rich table whose lines end at their last character, not at the table's width."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        segments = (
            segment
            for part in super().__rich_console__(console, options)
            for segment in ([part] if isinstance(part, Segment) else console.render(part, options))
        )
        for line in Segment.split_lines(segments):
            yield from _without_trailing_spaces(line)
            yield Segment.line()


def _without_trailing_spaces(line: list[Segment]) -> Iterable[Segment]:
    kept = list(line)
    while kept and not kept[-1].control and not kept[-1].text.rstrip(" "):
        kept.pop()  # a padding segment (or a cell's padding to the column width)
    if kept and not kept[-1].control:
        last = kept.pop()
        kept.append(Segment(last.text.rstrip(" "), last.style))
    return kept


def table_of(*columns: str) -> TrimmedTable:
    """A table without borders, with these column headers, in bold."""
    table = TrimmedTable(box=None, header_style="bold", pad_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    return table
