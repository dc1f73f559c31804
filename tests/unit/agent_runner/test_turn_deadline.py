"""A turn whose caller has stopped waiting: no model call once it is late, the model cut off at
the deadline, and nothing kept of a turn that ends after it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from baton_agent_runner.adapters.models import AgentFactory, OpenAISettings
from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, load_profiles
from baton_agent_runner.domain.extracted import NewInboxItem
from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.scripted import Turn
from baton_agent_runner.service.ports import (
    Claim,
    InboxTally,
    Mention,
    ModelAnswer,
    ModelUnavailable,
    StoreUnavailable,
    ToolContext,
)
from baton_agent_runner.service.turns import AgentRunner
from baton_contracts import ErrorCode, RemoteError
from baton_contracts.agent_api import AgentReply, RunAgent

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
OPENAI = OpenAISettings(base_url=None, api_key="x", timeout_seconds=1.0, max_retries=0)


class Agents:
    """The scripted agents, counting calls, each after `delay` seconds."""

    def __init__(self, delay: float = 0.0) -> None:
        self.scripted, self.delay, self.calls = AgentFactory(OPENAI), delay, 0

    def model_name(self, profile: Profile) -> str:
        return "scripted"

    def reads(self, profile: Profile) -> frozenset[str]:
        return self.scripted.reads(profile)

    async def answer(self, profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        self.calls += 1
        await asyncio.sleep(self.delay)
        return await self.scripted.answer(profile, turn, tools)


class Stores:
    """Memory, inbox and reply log in one, recording every write."""

    def __init__(self) -> None:
        self.items: list[NewInboxItem] = []
        self.turn_of: dict[str, str | None] = {}  # item id -> the turn that saved it
        self.replies: dict[str, AgentReply] = {}
        self.reads = 0  # of what a turn looks up before its model call
        self.claims: dict[str, tuple[str, datetime]] = {}  # key -> (holder, until)
        self.holder = "this process"

    async def facts(self, user_id: str, category: str) -> dict[str, str]:
        self.reads += 1
        return {}

    async def put_fact(self, user_id: str, category: str, key: str, text: str) -> None:
        raise AssertionError("no facts in these turns")

    async def unannounced(self, user_id: str, instance_id: str | None = None) -> list[Mention]:
        self.reads += 1
        return []

    async def count(self, user_id: str, status: str | None, before_turn: str | None = None) -> int:
        self.reads += 1
        return len(self.items)

    async def tally(self, user_id: str, instance_id: str, before_turn: str) -> InboxTally:
        self.reads += 1
        others = [item for item in self.items if self.turn_of.get(item.item_id) != before_turn]
        return InboxTally(len(others), [item.content for item in others])

    async def add(
        self,
        user_id: str,
        items: list[NewInboxItem],
        turn_key: str | None = None,
        instance_id: str | None = None,
    ) -> list[NewInboxItem]:
        self.items += items
        self.turn_of.update({item.item_id: turn_key for item in items})
        return []

    async def discard_turn(self, user_id: str, turn_key: str) -> int:
        gone = [item for item in self.items if self.turn_of.get(item.item_id) == turn_key]
        self.items = [item for item in self.items if item not in gone]
        return len(gone)

    async def get(self, user_id: str, key: str, digest: str | None = None) -> AgentReply | None:
        return self.replies.get(key)

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[AgentReply]:
        if key in self.replies:
            return Claim(recorded=self.replies[key])
        holder, held_until = self.claims.get(key, (self.holder, NOW))
        if holder != self.holder and held_until > NOW:
            return Claim(held_until=held_until)
        self.claims[key] = (self.holder, NOW + timedelta(seconds=seconds))
        return Claim(mine=True)

    async def release(self, user_id: str, key: str) -> None:
        if self.claims.get(key, ("",))[0] == self.holder:
            del self.claims[key]

    async def put(
        self, user_id: str, key: str, reply: AgentReply, digest: str | None = None
    ) -> AgentReply:
        await self.release(user_id, key)
        return self.replies.setdefault(key, reply)


class Replica(Stores):
    """The same stores, seen from another process: its claims are its own."""

    def __init__(self, shared: Stores, holder: str) -> None:
        self.__dict__.update(shared.__dict__)  # the same dicts, not copies
        self.holder = holder


def _runner(agents: Agents, stores: Stores, clock: Iterator[datetime]) -> AgentRunner:
    return AgentRunner(
        profiles=load_profiles(SHIPPED_PROFILES),
        agents=agents,
        memory=stores,  # type: ignore[arg-type]
        inbox=stores,  # type: ignore[arg-type]
        replies=stores,
        timeout=30.0,
        now=lambda: next(clock),
    )


def _turn(deadline: datetime | None) -> RunAgent:
    return RunAgent(
        user_id="alice",
        agent="inbox_collector",
        instance_id="i-1",
        current_step="brain_dump",
        message="buy milk; call mum; fix the bike",
        idempotency_key="i-1:m-1",
        deadline=deadline,
    )


def _always(moment: datetime) -> Iterator[datetime]:
    while True:
        yield moment


async def test_a_turn_asked_after_its_deadline_reads_nothing_and_records_nothing() -> None:
    agents, stores = Agents(), Stores()
    runner = _runner(agents, stores, _always(NOW))
    with pytest.raises(RemoteError) as caught:
        await runner.run(_turn(deadline=NOW - timedelta(milliseconds=1)))
    assert caught.value.code == ErrorCode.UNAVAILABLE
    deadline = (NOW - timedelta(milliseconds=1)).isoformat()
    said = f"its deadline {deadline} passed before it could be answered"
    assert caught.value.body.message == said
    assert (agents.calls, stores.reads, stores.items, stores.replies) == (0, 0, [], {})
    # Asked again in time, the same key reaches the model: the late turn left nothing behind.
    reply = await runner.run(_turn(deadline=NOW + timedelta(seconds=30)))
    assert agents.calls == 1 and len(stores.items) == 3
    assert stores.replies == {"i-1:m-1": reply}


async def test_a_deadline_is_read_on_the_workflow_hosts_clock_not_this_hosts() -> None:
    # This host's clock is 10 s behind the workflow's, whose wait for the turn ended a second
    # ago (it told its user nothing was recorded): the turn is refused, nothing is kept.
    agents, stores = Agents(), Stores()
    runner = _runner(agents, stores, _always(NOW - timedelta(seconds=10)))
    runner.caller_now = lambda: NOW
    with pytest.raises(RemoteError) as caught:
        await runner.run(_turn(deadline=NOW - timedelta(seconds=1)))
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert (agents.calls, stores.items, stores.replies) == (0, [], {})


async def test_the_model_gets_only_the_time_left_not_the_agent_timeout() -> None:
    agents, stores = Agents(delay=60.0), Stores()
    runner = _runner(agents, stores, _always(NOW))
    # 50 ms left of a 30 s agent timeout: cut off then, not after 30 s (wait_for would say so).
    with pytest.raises(RemoteError) as caught:
        await asyncio.wait_for(runner.run(_turn(deadline=NOW + timedelta(milliseconds=50))), 10)
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert agents.calls == 1
    assert (stores.items, stores.replies) == ([], {})


async def test_what_a_turn_extracted_is_not_kept_when_it_ends_after_the_deadline() -> None:
    # The clock reads before the turn (in time), then once the model has answered (too late).
    agents, stores = Agents(), Stores()
    runner = _runner(agents, stores, iter([NOW, NOW, NOW + timedelta(seconds=31)]))
    with pytest.raises(RemoteError) as caught:
        await runner.run(_turn(deadline=NOW + timedelta(seconds=30)))
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert agents.calls == 1  # the model answered; its items are not kept
    assert (stores.items, stores.replies) == ([], {})


class SlowInbox(Stores):
    """An inbox whose writes take `delay` seconds (slow, not failing)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    async def add(
        self,
        user_id: str,
        items: list[NewInboxItem],
        turn_key: str | None = None,
        instance_id: str | None = None,
    ) -> list[NewInboxItem]:
        await asyncio.sleep(self.delay)
        self.items += items
        return []


async def test_a_write_still_running_at_the_deadline_is_cut_there() -> None:
    agents, stores = Agents(), SlowInbox(delay=3.0)
    runner = _runner(agents, stores, _always(NOW))
    # 1 s left when the model has answered (the clock stands still; a cold first answer on a
    # busy CI machine has taken over 200 ms): the 3 s inbox write would land after the caller
    # answered its user that nothing was recorded (the store's own 4 s would allow it).
    with pytest.raises(RemoteError) as caught:
        await asyncio.wait_for(runner.run(_turn(deadline=NOW + timedelta(seconds=1))), 2.5)
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert "deadline" in caught.value.body.message
    assert (stores.items, stores.replies) == ([], {})


async def test_without_a_deadline_a_write_gets_the_stores_own_time() -> None:
    # The model's timeout (1 s here: the scripted model answers well within it; 0.5 s was
    # once too little on a loaded CI machine) is not a deadline for the writes: a 2 s inbox
    # write inside a 4 s store timeout completes.
    agents, stores = Agents(), SlowInbox(delay=2.0)
    runner = _runner(agents, stores, _always(NOW))
    runner.timeout = 1.0
    reply = await runner.run(_turn(deadline=None))
    assert len(stores.items) == 3 and stores.replies == {"i-1:m-1": reply}


async def test_the_same_key_asked_twice_at_once_calls_the_model_once() -> None:
    # A client's retry reaching another workflow replica while the first call still runs.
    agents, stores = Agents(delay=0.1), Stores()
    runner = _runner(agents, stores, _always(NOW))
    turn = _turn(deadline=NOW + timedelta(seconds=30))
    first, second = await asyncio.gather(runner.run(turn), runner.run(turn))
    assert agents.calls == 1 and len(stores.items) == 3
    assert first == second == stores.replies["i-1:m-1"]


async def test_without_a_deadline_the_turn_is_as_before() -> None:
    agents, stores = Agents(), Stores()
    reply = await _runner(agents, stores, _always(NOW)).run(_turn(deadline=None))
    assert "buy milk" in " ".join(item.content for item in stores.items)
    assert stores.replies == {"i-1:m-1": reply}


def test_a_deadline_without_a_time_zone_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="deadline"):
        _turn(deadline=datetime(2026, 11, 25, 12, 0))  # naive on purpose


class Named(Agents):
    """Another process's agents: its replies say which replica wrote them."""

    def __init__(self, name: str, delay: float) -> None:
        super().__init__(delay)
        self.name = name

    def model_name(self, profile: Profile) -> str:
        return self.name


async def test_a_second_replica_asked_the_same_key_waits_for_the_first_replicas_reply() -> None:
    # The in-process lock cannot stop a retry that reaches another replica while the first
    # still runs: the key's claim in the shared log makes it wait for the first's reply.
    stores = Stores()
    a, b = Named("replica-a", delay=0.3), Named("replica-b", delay=0.0)
    slow = _runner(a, stores, _always(NOW))
    fast = _runner(b, Replica(stores, "replica-b"), _always(NOW))
    turn = _turn(deadline=NOW + timedelta(seconds=30))
    late = asyncio.create_task(slow.run(turn))
    await asyncio.sleep(0.05)  # the slow replica is inside its model call
    waited = await fast.run(turn)
    assert (a.calls, b.calls) == (1, 0)
    assert waited.model == "replica-a"
    assert await late == waited == stores.replies["i-1:m-1"]
    assert stores.claims == {}  # recording the reply gave the claim up


async def test_two_replicas_answering_one_key_both_return_the_reply_recorded_first() -> None:
    # Should both still call the model (the race a claim leaves open: see `sql_logs`), every
    # caller gets the one reply recorded first.
    stores = Stores()
    slow = _runner(Named("replica-a", delay=0.3), stores, _always(NOW))
    fast = _runner(Named("replica-b", delay=0.0), Replica(stores, "replica-b"), _always(NOW))
    turn = _turn(deadline=NOW + timedelta(seconds=30))
    late = asyncio.create_task(slow.run(turn))
    await asyncio.sleep(0.05)  # the slow replica is inside its model call
    stores.claims.clear()  # as if the fast one had looked just before the claim was made
    first = await fast.run(turn)
    assert first.model == "replica-b"
    assert await late == first == stores.replies["i-1:m-1"]


class FailsFirst(Agents):
    """A slow model endpoint whose first call fails; the later ones answer."""

    async def answer(self, profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        self.calls += 1
        if self.calls == 1:
            await asyncio.sleep(0.2)
            raise ModelUnavailable("HTTP 502 from the endpoint")
        return await self.scripted.answer(profile, turn, tools)


async def test_a_repeat_queued_behind_a_failed_call_gets_its_error_not_a_second_call() -> None:
    # The workflow sends a turn again under its key and deadline when no answer comes in time;
    # a repeat queued here behind a call that then failed called the model again and kept its
    # items and reply after the caller had answered its user that nothing was recorded
    # (found by a review of the turn path).
    agents, stores = FailsFirst(), Stores()
    runner = _runner(agents, stores, _always(NOW))
    turn = _turn(deadline=NOW + timedelta(seconds=30))
    first = asyncio.create_task(runner.run(turn))
    await asyncio.sleep(0.05)
    repeat = asyncio.create_task(runner.run(turn))
    results = await asyncio.gather(first, repeat, return_exceptions=True)
    assert all(isinstance(r, RemoteError) for r in results), results
    assert results[0] is results[1]  # the same answer as the call it repeats
    assert (agents.calls, stores.items, stores.replies) == (1, [], {})
    # A retry of the turn (the user sends it again: a new deadline) calls the model again.
    reply = await runner.run(_turn(deadline=NOW + timedelta(seconds=60)))
    assert agents.calls == 2 and len(stores.items) == 3 and "i-1:m-1" in stores.replies
    assert reply.message


class SlowClaimAnswer(Stores):
    """A claim the database takes at once but answers only after the store's limit."""

    def __init__(self) -> None:
        super().__init__()
        self.slow = True

    async def claim(
        self, user_id: str, key: str, seconds: float, digest: str | None = None
    ) -> Claim[AgentReply]:
        found = await super().claim(user_id, key, seconds, digest)
        if self.slow:
            await asyncio.sleep(1.0)
        return found


async def test_a_claim_whose_answer_came_too_late_is_given_up() -> None:
    # Its turn answered `unavailable`, but the claim it took stayed until it ran out (the
    # model's time plus five store limits), and a retry on another replica waited for it
    # (found by a review of the turn path).
    stores = SlowClaimAnswer()
    a = _runner(Named("replica-a", 0), stores, _always(NOW))
    a.store_timeout = 0.2
    turn = _turn(deadline=NOW + timedelta(seconds=5))
    with pytest.raises(RemoteError) as caught:
        await a.run(turn)
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert stores.claims == {}
    stores.slow = False
    b = _runner(Named("replica-b", 0), Replica(stores, "replica-b"), _always(NOW))
    reply = await b.run(turn)  # the retry on another replica is answered at once
    assert reply.model == "replica-b"


class ReplyLogDown(Stores):
    """The reply log fails every write (its database went away after the inbox's write)."""

    async def put(
        self, user_id: str, key: str, reply: AgentReply, digest: str | None = None
    ) -> AgentReply:
        raise StoreUnavailable("reply log: connection reset")


async def test_a_turn_whose_reply_is_not_recorded_takes_its_inbox_items_back() -> None:
    # The caller answers `unavailable`, "nothing was recorded": the items saved before the
    # reply stayed, the next message counted them, and a list sent again was saved twice
    # (found by a review of the turn path).
    agents, stores = Agents(), ReplyLogDown()
    runner = _runner(agents, stores, _always(NOW))
    runner.store_timeout = 0.3
    with pytest.raises(RemoteError) as caught:
        await runner.run(_turn(deadline=NOW + timedelta(seconds=5)))
    assert caught.value.code == ErrorCode.UNAVAILABLE
    assert (stores.items, stores.replies) == ([], {})


async def test_a_turn_whose_deadline_passes_before_its_reply_takes_its_items_back() -> None:
    # Clock reads: the claim, the model's time, the items' write (in time), the reply's (late).
    agents, stores = Agents(), Stores()
    runner = _runner(agents, stores, iter([NOW, NOW, NOW, NOW + timedelta(seconds=31)]))
    with pytest.raises(RemoteError) as caught:
        await runner.run(_turn(deadline=NOW + timedelta(seconds=30)))
    assert "deadline" in caught.value.body.message
    assert (stores.items, stores.replies) == ([], {})


class Blank(Agents):
    """A model whose message is white space ("" its output refuses; " " it did not)."""

    async def answer(self, profile: Profile, turn: Turn, tools: ToolContext) -> ModelAnswer:
        answer = await self.scripted.answer(profile, turn, tools)
        output = answer.output.model_copy(update={"message": " \n "})
        return ModelAnswer(output, answer.usage)


async def test_a_blank_message_is_answered_as_malformed_and_keeps_nothing() -> None:
    # Recorded as a real reply, with its signal and extracted items (found by a review of the
    # model path): the user saw an empty bubble, and the step might have moved on.
    agents, stores = Blank(), Stores()
    reply = await _runner(agents, stores, _always(NOW)).run(_turn(deadline=None))
    assert reply.message.strip() and reply.workflow_signal.action == "stay"
    assert stores.items == []
