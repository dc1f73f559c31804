"""A model's output as it can be stored: what no store can keep is taken out, never refused.

A model may write what the stores cannot hold: a NUL character (U+0000), which PostgreSQL's
JSON and text types refuse, a lone surrogate, which no UTF-8 text can hold, or a NaN or
infinite number, which JSON has none for. Refusing the turn would throw away an answer that
was paid for and leave the user's message unrecorded for no fault of theirs, so the turn goes
on with the rest: a NUL is dropped from a text and a lone surrogate becomes U+FFFD, an entry
whose key holds either is left out, and so are such numbers and data nested deeper than a
signal may be. Every change is named by its path for the log.
"""

from __future__ import annotations

import math
from typing import Any

from baton_agent_runner.domain.output import AgentOutput
from baton_contracts.signal_data import MAX_SIGNAL_DATA_DEPTH
from baton_contracts.storable import NUL, SURROGATE, format_path

_LEFT_OUT = object()


def storable_output(output: AgentOutput) -> tuple[AgentOutput, list[str]]:
    """The output with what cannot be stored taken out, and the path of every change."""
    changed: list[str] = []
    update: dict[str, Any] = {
        "message": _storable(output.message, ("message",), 0, changed),
        "extracted_data": _storable(output.extracted_data, ("extracted_data",), 0, changed),
    }
    if output.workflow_signal is not None:
        data = _storable(output.workflow_signal.data, ("workflow_signal", "data"), 0, changed)
        update["workflow_signal"] = output.workflow_signal.model_copy(update={"data": data})
    if not changed:
        return output, []
    return output.model_copy(update=update), changed


def _storable(value: Any, loc: tuple[str | int, ...], depth: int, changed: list[str]) -> Any:
    """`value` made storable; `_LEFT_OUT` when nothing of it can be. `depth` is how many
    objects and lists hold it, so an object or list at `depth` is at level `depth + 1`."""
    if isinstance(value, str):
        text = SURROGATE.sub("\ufffd", value.replace(NUL, ""))
        if text != value:
            changed.append(format_path(loc))
        return text
    if isinstance(value, float) and not math.isfinite(value):
        changed.append(format_path(loc))
        return _LEFT_OUT
    if not isinstance(value, dict | list):
        return value
    if depth >= MAX_SIGNAL_DATA_DEPTH:
        changed.append(format_path(loc))
        return _LEFT_OUT
    if isinstance(value, list):
        items = (_storable(v, (*loc, i), depth + 1, changed) for i, v in enumerate(value))
        return [item for item in items if item is not _LEFT_OUT]
    kept: dict[str, Any] = {}
    for key, item in value.items():
        if NUL in str(key) or SURROGATE.search(str(key)):
            changed.append(format_path(loc))
            continue
        item = _storable(item, (*loc, key), depth + 1, changed)
        if item is not _LEFT_OUT:
            kept[key] = item
    return kept
