"""One DAG step (`dispatch` or `handoff`): run the agent once, price it, record the result.

The same (user, idempotency key) returns the recorded result with `replayed=True` and never
calls the model again. Duplicates arriving together are serialised by a lock per key in this
process (the second waits and gets the first's result), and across replicas by a claim on the
key in the task log (`service.claims`); should two calls of a key still both run, the unique
key of the task log keeps the first result recorded, and every caller gets that one. A step
of a shadow run is the exception: nothing of it is recorded (see `TaskRunner.run`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from baton_agent_runner.domain.profile import Profile
from baton_agent_runner.domain.request_digest import task_digest
from baton_agent_runner.domain.task import (
    ModelChoice,
    ModelPrice,
    TaskCall,
    TaskInvalid,
    choose_model,
    input_tokens,
    permission_mode,
    price_of,
)
from baton_agent_runner.service.claims import (
    look_up_or_claim,
    released_on_failure,
    reused,
    written,
)
from baton_agent_runner.service.key_locks import KeyLocks
from baton_agent_runner.service.ports import (
    KeyReused,
    ModelFailed,
    StoreUnavailable,
    TaskAnswer,
    TaskLog,
    TaskModels,
)
from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.agent_api import (
    TASK_LOG_UNAVAILABLE,
    AgentProfiles,
    CancelTask,
    RunTask,
    TaskResult,
)
from baton_contracts.money import dollars

logger = logging.getLogger("baton.agent_runner")
T = TypeVar("T")
PLACES = 6
"""A budget refusal's decimal places: a prompt alone costs millionths of a dollar."""


@dataclass
class TaskRunner:
    """The task use case: one answer of one agent for one DAG step."""

    profiles: dict[str, Profile]
    models: TaskModels
    results: TaskLog
    prices: Mapping[str, ModelPrice]
    store_timeout: float = 4.0
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    caller_now: Callable[[], datetime | None] = field(default=lambda: None)
    """The caller's clock, which set the request's deadline (`baton_messaging.caller_now`);
    None when unknown, and the deadline is then read on this host's clock (`now`)."""
    _keys: KeyLocks = field(default_factory=KeyLocks)
    _running: dict[tuple[str, str], asyncio.Task[Any]] = field(default_factory=dict)
    _cancels: dict[tuple[str, str], str] = field(default_factory=dict)

    def known_agents(self) -> AgentProfiles:
        """The agents a task may name: the profiles loaded at start, which `run` looks up
        (the workflow service checks a DAG document's agents against them when it is saved)."""
        return AgentProfiles(slugs=sorted(self.profiles))

    async def run(self, cmd: RunTask) -> TaskResult:
        """Answer the step, or return the result recorded under its idempotency key.

        A shadow step (`cmd.shadow`) is answered but never recorded, as seed 004's shadow mode
        asks: the task log is neither read nor written, so its prompt, output and cost are kept
        nowhere here. What that costs: the log is what makes a repeated key safe, so a shadow
        step asked again (the workflow service crashed during the call and retries it with the
        same key, or the request was delivered twice) calls the model again and is paid twice.
        """
        key = (cmd.user_id, cmd.idempotency_key)
        if cmd.shadow:
            async with self._keys.one_at_a_time(key):  # one call per key at a time, as for the rest
                return (await self._cancellable(key, cmd, self._perform(cmd)))[1]
        try:
            # A repeat of a step queued behind its failed call gets its error (`one_attempt`).
            async with self._keys.one_attempt(key, cmd.deadline):
                return await self._recorded_or_performed(cmd, key)
        except KeyReused as exc:
            raise reused(cmd.idempotency_key) from exc
        except StoreUnavailable as exc:
            logger.warning("task %s: the task log is unavailable: %s", cmd.idempotency_key, exc)
            raise RemoteError.of(ErrorCode.UNAVAILABLE, TASK_LOG_UNAVAILABLE) from exc

    async def _recorded_or_performed(self, cmd: RunTask, key: tuple[str, str]) -> TaskResult:
        """The result recorded under the key, else the step performed and its result recorded
        (this process holds the key's claim meanwhile)."""
        recorded = await self._recorded_or_claimed(cmd)
        if recorded is not None:
            return recorded.model_copy(update={"replayed": True})
        async with released_on_failure(self.results, *key, self.store_timeout):
            if (reason := self._keys.cancelled(key)) is not None:
                # Queued here behind the call the workflow cancelled: the same attempt.
                raise RemoteError.of(ErrorCode.UNAVAILABLE, _cancelled(cmd, reason))
            call, result = await self._cancellable(key, cmd, self._perform(cmd))
            digest = task_digest(cmd)
            # The model was paid: a cut connection must not lose its answer.
            return await self._store(written(lambda: self.results.put(*key, call, result, digest)))

    async def _recorded_or_claimed(self, cmd: RunTask) -> TaskResult | None:
        """The recorded result; else None once this process holds the key's claim (another
        replica's call of the same key is waited for, within the step's time)."""
        now, caller_now = self.now(), self.caller_now()
        key = (cmd.user_id, cmd.idempotency_key)
        return await look_up_or_claim(
            self.results,
            cmd.user_id,
            cmd.idempotency_key,
            digest=task_digest(cmd),
            now=now,
            caller_now=caller_now,
            deadline=cmd.deadline,
            time_left=lambda: self._time_left(cmd, caller_now or now),
            held_after=2 * self.store_timeout,  # the result's write
            store=self._store,
            # A wait for another replica's call of the key is cancellable, as the call is: a
            # step the workflow gave up is not called here once that other call is given up.
            waiting=lambda wait: self._cancellable(key, cmd, wait),
        )

    async def cancel(self, notice: CancelTask) -> None:
        """Cancel the task with this key if it runs here, or waits here for another replica's
        call of it, and the same key's requests queued behind it here: their callers get
        `unavailable`, and nothing is recorded, so the step's retry asks the model again."""
        key = (notice.user_id, notice.idempotency_key)
        reason = notice.reason or "the workflow gave the step up"
        self._keys.cancel_queued(key, reason)
        work = self._running.get(key)
        if work is None or work.done():
            return
        self._cancels[key] = reason
        work.cancel()
        # The reason may quote the user's own words (`run cancelled: <their reason>`): it goes
        # back to the caller, and into the log at DEBUG only.
        logger.info("task %s: cancelled by the workflow", notice.idempotency_key)
        logger.debug("task %s: cancelled because: %s", notice.idempotency_key, notice.reason)

    async def _cancellable(
        self, key: tuple[str, str], cmd: RunTask, coro: Coroutine[Any, Any, T]
    ) -> T:
        work = asyncio.create_task(coro, name=f"task-{cmd.idempotency_key}")
        self._running[key] = work
        try:
            return await work
        except asyncio.CancelledError:
            reason = self._cancels.get(key)
            current = asyncio.current_task()
            if reason is None or (current is not None and current.cancelling()):
                raise  # this handler itself was cancelled (a shutdown), and the call with it
            raise RemoteError.of(ErrorCode.UNAVAILABLE, _cancelled(cmd, reason)) from None
        finally:
            self._running.pop(key, None)
            self._cancels.pop(key, None)

    async def _perform(self, cmd: RunTask) -> tuple[TaskCall, TaskResult]:
        time_left = self._time_left(cmd)  # a step the workflow has given up gets no model call
        profile = self._profile(cmd.agent)
        call, choice = self._plan(cmd, profile)
        price = price_of(self.prices, choice.name)
        estimate = price.cost(input_tokens(call), 0)
        if cmd.budget_usd is not None and estimate > cmd.budget_usd:
            message = (
                f"budget exceeded: agent {profile.slug} on {choice.label} would cost about "
                f"{dollars(estimate, PLACES)} for the prompt alone, "
                f"above the budget of {dollars(cmd.budget_usd, PLACES)}"
            )
            detail = ErrorDetail(field="budget_usd", message=message)
            raise RemoteError.of(ErrorCode.FORBIDDEN, message, [detail])
        answer = await self._ask(profile, choice, call, time_left)
        # A cost above the budget after the call is still returned: the model was paid for,
        # and the workflow, which knows the step and the run budget, decides what it means.
        cost = answer.cost_usd
        if cost is None:
            cost = price.cost(answer.usage.input_tokens, answer.usage.output_tokens)
        result = TaskResult(
            output=answer.output,
            usage=answer.usage,
            cost_usd=cost,
            agent=profile.slug,
            model=choice.label,
        )
        return call, result

    def _deadline_clock(self) -> datetime:
        """Now, on the clock the deadline was set by: the caller's when known."""
        return self.caller_now() or self.now()

    def _time_left(self, cmd: RunTask, now: datetime | None = None) -> float:
        """The model's time: `timeout_seconds`, cut to what is left before the deadline (time
        spent queued here counts); past the deadline the task ends as `unavailable`."""
        if cmd.deadline is None:
            return cmd.timeout_seconds
        left = (cmd.deadline - (now or self._deadline_clock())).total_seconds()
        if left <= 0:
            logger.warning(
                "task %s: the workflow gave step %s up %.3fs ago; the model is not asked",
                cmd.idempotency_key,
                cmd.step_id,
                -left,
            )
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE,
                f"the step's deadline {cmd.deadline.isoformat()} has passed; the agent was not run",
            )
        return min(cmd.timeout_seconds, left)

    def _profile(self, slug: str) -> Profile:
        if slug not in self.profiles:
            known = ", ".join(sorted(self.profiles))
            message = f"agent {slug!r} has no profile; known: {known}"
            raise RemoteError.of(
                ErrorCode.NOT_FOUND, message, [ErrorDetail(field="agent", message=message)]
            )
        return self.profiles[slug]

    def _plan(self, cmd: RunTask, profile: Profile) -> tuple[TaskCall, ModelChoice]:
        """The call and its model, or `invalid` naming every field at fault."""
        problems: list[TaskInvalid] = []
        mode, choice = "default", None
        try:
            mode = permission_mode(cmd.permission_mode)
        except TaskInvalid as exc:
            problems.append(exc)
        try:
            choice = choose_model(self.models.agent_model(profile), cmd.provider, cmd.model)
        except TaskInvalid as exc:
            problems.append(exc)
        if problems or choice is None:
            details = [ErrorDetail(field=p.field, message=p.message) for p in problems]
            message = "; ".join(f"{p.field}: {p.message}" for p in problems)
            raise RemoteError.of(ErrorCode.INVALID, message, details)
        call = TaskCall(
            agent=profile.slug,
            run_id=cmd.run_id,
            step_id=cmd.step_id,
            prompt=cmd.prompt,
            context=cmd.context,
            context_from=cmd.context_from,
            permission_mode=mode,
        )
        return call, choice

    async def _ask(
        self, profile: Profile, choice: ModelChoice, call: TaskCall, timeout: float
    ) -> TaskAnswer:
        try:
            async with asyncio.timeout(timeout):
                return await self.models.perform(profile, choice, call, timeout)
        except TimeoutError as exc:
            logger.warning(
                "agent %s: run %s step %s timed out", profile.slug, call.run_id, call.step_id
            )
            raise RemoteError.of(
                ErrorCode.UNAVAILABLE, f"agent {profile.slug} did not answer within {timeout:g}s"
            ) from exc
        except ModelFailed as exc:
            logger.warning(
                "agent %s: run %s step %s failed: %s", profile.slug, call.run_id, call.step_id, exc
            )
            raise RemoteError.of(ErrorCode.INTERNAL, f"agent {profile.slug} failed: {exc}") from exc

    async def _store(self, work: Awaitable[T]) -> T:
        try:
            # A deadline on this task, not `wait_for`'s extra task per call.
            async with asyncio.timeout(self.store_timeout):
                return await work
        except TimeoutError as exc:
            raise StoreUnavailable(f"no answer within {self.store_timeout:g}s") from exc


def _cancelled(cmd: RunTask, reason: str) -> str:
    return f"the workflow cancelled step {cmd.step_id!r}: {reason}; nothing was recorded"
