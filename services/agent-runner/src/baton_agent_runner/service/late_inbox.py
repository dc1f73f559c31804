"""Inbox requests made when no inbox step lies ahead: saved at once, and the reply says so.

A deferred item waits for a step whose agent moves deferred items into the inbox as it starts
(`promote_deferred_inbox`). Deferred at a step after it, or in a workflow without one, nothing
would ever move it: the user's words would be kept out of their sight for good.

Deferred while an inbox step lay ahead, an item can still find none: an optional inbox step
skipped by a signal naming a later step. The next turn of that instance, with no inbox step
ahead any more, moves what the instance keeps deferred into the inbox and its reply says so
(`to_mention`, `told_promoted`); an instance that ends first moves them as it ends
(`StepStarts.instance_ended`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from baton_agent_runner.domain.extracted import corrections_of, deferred_contents, same_item
from baton_agent_runner.domain.language import Lang
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.profile import PROMOTE_DEFERRED_INBOX, Profile
from baton_agent_runner.domain.step_context import is_last_message
from baton_agent_runner.domain.texts import text
from baton_agent_runner.service.ports import InboxStore, Mention, Removal
from baton_contracts.agent_api import RunAgent


def inbox_ahead(profiles: Mapping[str, Profile], step_context: dict[str, Any]) -> bool:
    """Whether an agent of a step still ahead (`step_context["agents_ahead"]`, as the workflow
    service sends it) takes deferred items into the inbox. A request without the list, from a
    workflow service that does not send it, is taken to have such a step, as before."""
    ahead = step_context.get("agents_ahead")
    if not isinstance(ahead, list):
        return True
    return any(
        PROMOTE_DEFERRED_INBOX in profiles[slug].on_step_start
        for slug in ahead
        if isinstance(slug, str) and slug in profiles
    )


def told_saved_now(output: AgentOutput, language: Lang) -> AgentOutput:
    """The output of a turn with no inbox step ahead: a model that still deferred items is
    followed by what really became of them (saved now), so the reply does not promise later."""
    deferred = deferred_contents(output.extracted_data)
    if not deferred:
        return output
    note = text(language, "noted", items="; ".join(deferred))
    return output.model_copy(update={"message": f"{output.message}\n{note}"})


def mentioned_by_model(profile: Profile) -> bool:
    """Whether the agent itself tells the user about promoted items (the inbox collector's
    model gets them in its turn); any other agent's reply gets them added by the service."""
    return PROMOTE_DEFERRED_INBOX in profile.on_step_start


async def to_mention(
    inbox: InboxStore, profiles: Mapping[str, Profile], profile: Profile, cmd: RunAgent
) -> list[Mention]:
    """The deferred items this turn tells the user about, promoted if still deferred: at an
    inbox step, every one of the user's not yet told; at a step with no inbox step ahead, those
    its own instance still keeps (its inbox step was skipped); else none."""
    if mentioned_by_model(profile):
        return await inbox.unannounced(cmd.user_id)
    if not inbox_ahead(profiles, cmd.step_context):
        return await inbox.unannounced(cmd.user_id, cmd.instance_id)
    return []


def told_promoted(output: AgentOutput, language: Lang, mentions: list[Mention]) -> AgentOutput:
    """The reply of an agent that does not mention promoted items itself, followed by them."""
    if not mentions:
        return output
    note = text(language, "promoted", items="; ".join(m.content for m in mentions))
    return output.model_copy(update={"message": f"{output.message}\n{note}"})


def told_moving_on(
    output: AgentOutput, language: Lang, step_context: dict[str, Any]
) -> AgentOutput:
    """The reply to a step's last message (`max_messages`) that does not close the step: the
    workflow moves on after it, so a reply still asking for more is followed by that; the user
    read "What else matters to you?" and found the next step answering."""
    signal = output.workflow_signal
    if not is_last_message(step_context) or (signal and signal.action == "complete_step"):
        return output
    return output.model_copy(update={"message": f"{output.message}\n{text(language, 'moving_on')}"})


def told_removed(output: AgentOutput, language: Lang, removals: list[Removal]) -> AgentOutput:
    """The reply of a turn that asked to take items out of the inbox, after what became of
    each: removed (a part of it, or changed: `extracted_data.inbox_corrections`), several
    items holding what was said (none removed: which one?), or none."""
    changed = corrections_of(output.extracted_data)
    notes = [_removal_note(language, removal, changed.get(removal.said)) for removal in removals]
    if not notes:
        return output
    return output.model_copy(update={"message": "\n".join([*notes, output.message])})


def _removal_note(language: Lang, removal: Removal, new: str | None) -> str:
    if removal.content is not None and removal.kept is not None:
        return text(language, "inbox_removed_part", said=removal.said, item=removal.kept)
    if removal.content is not None and new is not None:
        return text(language, "inbox_changed", item=removal.content, new=new)
    if new is not None:  # the correction was saved; the item it corrects was not found
        return text(language, "noted", items=new)
    if removal.content is not None:
        return text(language, "inbox_removed", item=removal.content)
    if removal.several:
        items = "; ".join(removal.several)
        return text(language, "inbox_remove_which", said=removal.said, items=items)
    return text(language, "inbox_remove_missing", said=removal.said)


def told_repeated(
    output: AgentOutput,
    language: Lang,
    repeated: list[str],
    mentions: list[Mention],
    kept_back: Sequence[str] = (),
) -> AgentOutput:
    """The reply of a turn some of whose items the inbox already held (`InboxStore.add` saved
    them not again), followed by that: whatever the model said of them, they are no new items.
    Those told as promoted in this turn are in the inbox by that reply already.

    Those of them the turn kept for the brain dump (`kept_back`: deferred, the item they repeat
    was kept for it too) are in no inbox yet: "already in your inbox" under "Kept for the brain
    dump: call dentist" said two contrary things. They are said to be kept already, and when
    the turn kept nothing else, that line takes the place of the agent's own "kept" line
    (`_KEPT_LINES`), which promised the same item a second time."""
    told = {same_item(mention.content) for mention in mentions}
    again = [content for content in repeated if same_item(content) not in told]
    back = {same_item(content) for content in kept_back}
    saved = [content for content in again if same_item(content) not in back]
    kept = [content for content in again if same_item(content) in back]
    message = output.message
    if kept:
        note = text(language, "already_kept", items="; ".join(kept))
        message = _instead_of_kept_line(message, language, note, output, kept)
    if saved:
        message = f"{message}\n{text(language, 'already_saved', items='; '.join(saved))}"
    if message == output.message:
        return output
    return output.model_copy(update={"message": message})


_KEPT_LINES = ("task_kept", "tasks_kept", "discovery_tasks_kept", "greeter_tasks_kept", "deferred")
"""The texts the scripted agents say an item is kept for the brain dump with (`{items}` the
items, `{why}` what follows)."""


def _instead_of_kept_line(
    message: str, language: Lang, note: str, output: AgentOutput, kept: list[str]
) -> str:
    """`message` with its "kept for the brain dump" line replaced by `note` when every item the
    turn kept is a repeat (`kept`), else with `note` after it: a line naming new items too
    stays, they are kept."""
    deferred = deferred_contents(output.extracted_data)
    repeats = {same_item(content) for content in kept}
    if deferred and all(same_item(content) in repeats for content in deferred):
        listed = "; ".join(deferred)
        for key in _KEPT_LINES:
            line = text(language, key, items=listed, why="").strip()
            if line in message:
                return message.replace(line, note, 1)
    return f"{message}\n{note}"
