"""A question whether more can be added to the inbox later ("can I add things later?",
"можно потом добавить?"): the brain dump answers yes (`texts.inbox_add_later`). It got the
generic "Everything you write here I save to your inbox"."""

from __future__ import annotations

import re

from baton_agent_runner.domain.wording import normalised

_LATER = r"(?:later(?:\s+on)?|afterwards|another\s+time|tomorrow|any\s*time|потом|позже|попозже)"
_ADD = r"(?:add|put|write|dump|send|добав\w*|дописа\w*|допиш\w*|записа\w*|запиш\w*|докин\w*)"
_ASKS = re.compile(
    rf"\b(?:(?:can|could|may)\s+(?:i|we)|will\s+i\s+be\s+able\s+to|is\s+it\s+possible\s+to)"
    rf"\s+{_ADD}\b(?:\s+\S+){{0,3}}?\s+{_LATER}\b"
    rf"|\b(?:можно|смогу|получится)(?:\s+ли)?(?:\s+будет)?\s+(?:{_LATER}\s+{_ADD}|{_ADD}"
    rf"(?:\s+\S+){{0,3}}?\s+{_LATER})"
)


def asks_to_add_later(message: str) -> bool:
    """Whether the message asks whether more may be added to the inbox later."""
    return _ASKS.search(normalised(message)) is not None
