"""A list the user completes on a workflow step becomes their inbox items (seed 000's brain dump).

The workflow service announces a step that closed holding a completed widget
(`workflow.widget_completed`, with the items the step closed on). A `list_input` list is the
brain dump: each item is saved as an inbox item of the instance, `new`, its id derived from the
event and the item's place in the list, so a redelivered or republished event saves nothing
twice. Another widget type is none of the inbox's business.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from baton_agent_runner.domain.extracted import widget_inbox_items
from baton_agent_runner.service.claims import written
from baton_agent_runner.service.ports import InboxStore
from baton_contracts.workflow import WidgetCompleted

logger = logging.getLogger("baton.agent_runner")

LIST_INPUT = "list_input"
"""The widget whose items are inbox items."""


@dataclass
class WidgetLists:
    """Saves the items of a completed `list_input` list to the user's inbox."""

    inbox: InboxStore
    timeout: float

    async def completed(self, event: WidgetCompleted) -> int:
        """Save the list's items (those already saved are skipped); how many it holds.

        A store that is down is tried again for `timeout`; then this raises, and JetStream
        delivers the event again."""
        if event.widget_type != LIST_INPUT:
            return 0
        items = widget_inbox_items(event.user_id, str(event.event_id), event.items)
        if not items:
            return 0
        async with asyncio.timeout(self.timeout):
            await written(
                lambda: self.inbox.add(event.user_id, items, instance_id=event.instance_id)
            )
        logger.info(
            "%s's list on step %s of %s: %d item(s) in the inbox",
            event.user_id,
            event.step,
            event.instance_id,
            len(items),
        )
        return len(items)
