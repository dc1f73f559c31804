"""Seed 000 §5's counters of a step that collects facts (`questions_asked`,
`facts_collected`): how a turn counts them, and which turns carry them."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain.step_counts import (
    asks,
    collects_facts,
    questions_before,
    step_counts,
)

from .test_turn_context import Stores, _run

ON_FACTS = {"criteria": ["agent_signal", "memory_facts"]}


def _context(step_data: Any) -> dict[str, Any]:
    return {**ON_FACTS, "workflow": {"step_data": step_data}}


def test_a_step_collects_facts_when_the_memory_facts_checker_closes_it() -> None:
    assert collects_facts(ON_FACTS)
    assert not collects_facts({"criteria": ["agent_signal"]})
    assert not collects_facts({})
    assert not collects_facts({"criteria": "memory_facts"})  # not the list the workflow sends


@pytest.mark.parametrize(
    ("step_data", "before"),
    [
        ({"discovery": {"questions_asked": 4}}, 4),
        ({"discovery": {}}, 0),
        ({"greeting": {"questions_asked": 9}}, 0),  # another step's
        ({"discovery": {"questions_asked": "4"}}, 0),  # not a count
        ({"discovery": {"questions_asked": True}}, 0),
        ({"discovery": {"questions_asked": -3}}, 0),
        ({"discovery": []}, 0),
        ([], 0),
    ],
)
def test_the_questions_before_the_turn_come_from_the_steps_data(
    step_data: Any, before: int
) -> None:
    assert questions_before(_context(step_data), "discovery") == before


def test_a_reply_asks_when_it_has_a_question_mark() -> None:
    assert asks("Which areas matter most? For example: work.")
    assert asks("どの分野が大切ですか\uff1f")
    assert not asks("Noted. For now, your priorities.")


def test_the_counts_add_this_turns_question_and_facts_less_the_dropped_ones() -> None:
    before = {"work": "my job", "hobbies": "chess"}
    extracted = {"facts": {"health": "running", "work": "my startup"}, "dropped_facts": ["hobbies"]}
    counts = step_counts(
        _context({"discovery": {"questions_asked": 2}}),
        "discovery",
        "Is that right?",
        before,
        extracted,
    )
    assert counts == {"questions_asked": 3, "facts_collected": 2}
    said = step_counts(_context({}), "discovery", "Thanks, noted.", {}, {})
    assert said == {"questions_asked": 0, "facts_collected": 0}


class FactStores(Stores):
    """The stores with two priority facts already saved, counting the reads of them."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        self.reads += 1
        return {"work": "my job", "health": "running"} if category == "priorities" else {}


async def test_a_turn_on_a_fact_collecting_step_carries_the_counts_in_its_signal() -> None:
    stores = FactStores()
    reply = await _run(stores, "discovery", "Hobbies: chess", step_context=_context({}))
    assert "Is that right?" in reply.message  # the summary of three areas
    data = reply.workflow_signal.data
    assert data == {
        "facts": {"hobbies": "chess"},
        "questions_asked": 1,
        "facts_collected": 3,
        "facts_told": ["hobbies"],  # the two facts stored before are no fact of this instance
    }
    assert "facts_collected" not in reply.extracted_data  # the workflow's, not the agent's to keep


async def test_a_turn_adds_its_question_to_those_the_steps_data_counted() -> None:
    # `_run`'s turn is on step "s": the count there goes on, another step's is not read.
    context = _context({"s": {"questions_asked": 4}, "greeting": {"questions_asked": 9}})
    reply = await _run(FactStores(), "discovery", "Hobbies: chess", step_context=context)
    assert reply.workflow_signal.data["questions_asked"] == 5


async def test_an_agent_that_reads_no_facts_counts_them_from_the_store() -> None:
    # The scripted greeter reads no facts; serving a fact-collecting step, its turn reads them
    # for the count rather than say the user has none.
    stores = FactStores()
    reply = await _run(stores, "greeter", "Hello", step_context=_context({}))
    assert reply.workflow_signal.data["facts_collected"] == 2 and stores.reads == 1


async def test_a_step_that_collects_no_facts_gets_no_counts_and_no_read() -> None:
    stores = FactStores()
    reply = await _run(stores, "greeter", "Hello", step_context={"criteria": ["agent_signal"]})
    assert "questions_asked" not in reply.workflow_signal.data and stores.reads == 0
