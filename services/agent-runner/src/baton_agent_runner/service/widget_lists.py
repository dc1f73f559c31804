"""A list the user completes on a workflow step becomes their inbox items (seed 000's brain dump).

The workflow service announces a step that closed holding a completed widget
(`workflow.widget_completed`, with the items the step closed on). A `list_input` list is the
brain dump: each item is saved as an inbox item of the instance, `new`, its id derived from the
event and the item's place in the list, so a redelivered or republished event saves nothing
twice. An item the instance's inbox already holds (the user typed it in the chat, then listed
it too; compared trimmed, case-folded, inner whitespace collapsed) is not saved again. Another
widget type is none of the inbox's business.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from baton_agent_runner.domain.extracted import NewInboxItem, not_yet_saved, widget_inbox_items
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
        """Save the list's items that the instance's inbox does not hold yet; how many.

        A store that is down is tried again for `timeout`; then this raises, and JetStream
        delivers the event again."""
        if event.widget_type != LIST_INPUT:
            return 0
        items = widget_inbox_items(event.user_id, str(event.event_id), event.items)
        if not items:
            return 0
        async with asyncio.timeout(self.timeout):
            saved = await written(lambda: self._save_new(event, items))
        logger.info(
            "%s's list on step %s of %s: %d item(s), %d new in the inbox",
            event.user_id,
            event.step,
            event.instance_id,
            len(items),
            saved,
        )
        return saved

    async def _save_new(self, event: WidgetCompleted, items: list[NewInboxItem]) -> int:
        return await save_new_items(self.inbox, event.user_id, event.instance_id, items)


async def save_new_items(
    inbox: InboxStore, user_id: str, instance_id: str, items: list[NewInboxItem]
) -> int:
    """Read what the instance's inbox holds, then add the items it lacks; how many. A list
    saved again (an event delivered again, or a turn carrying a list the consumer saved) finds
    its own items there and adds nothing; their ids would skip them anyway. A read, then a
    write: only a chat turn of the same step racing the list's Done could slip an item in
    between, and the step closes on that Done."""
    new = not_yet_saved(items, await inbox.contents(user_id, instance_id))
    if new:
        await inbox.add(user_id, new, instance_id=instance_id)
    return len(new)
