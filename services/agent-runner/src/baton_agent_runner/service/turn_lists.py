"""The completed lists a turn's request carries, saved before the turn reads the inbox.

The workflow service records a completed `list_input` list and moves the instance on at once;
the agent-runner's durable consumer of `workflow.widget_completed` saves the list's items a
moment later (`widget_lists`). The next step's first turn (seed 000's coordinator, which tells
the user how many inbox items they have) can come within that moment, and counted too few.

So the workflow puts every widget the instance's steps closed on in the turn's step context,
with its announcement's event id, and the turn saves a list's items first, under the ids the
consumer gives them (event id and place in the list), leaving out what the instance's inbox
already holds, as the consumer does: whichever comes first saves them, the other finds them
saved (and two at once write the same ids, which the store skips). The consumer stays: it
saves a list that no turn ever follows.
"""

from __future__ import annotations

from baton_agent_runner.domain.extracted import widget_inbox_items
from baton_agent_runner.domain.step_context import widgets_completed
from baton_agent_runner.service.ports import InboxStore
from baton_agent_runner.service.widget_lists import LIST_INPUT, save_new_items
from baton_contracts.agent_api import RunAgent


async def save_carried_lists(inbox: InboxStore, cmd: RunAgent) -> int:
    """Save the items of the lists `cmd` carries that the instance's inbox does not hold yet;
    how many. No store call when it carries none, no write when all are there."""
    items = [
        item
        for widget in widgets_completed(cmd.step_context)
        if widget.widget_type == LIST_INPUT
        for item in widget_inbox_items(cmd.user_id, widget.event_id, widget.items)
    ]
    if not items:
        return 0
    return await save_new_items(inbox, cmd.user_id, cmd.instance_id, items)
