"""Criteria checkers in a registry; adding one is registering one function or class.

A checker gets a `CheckContext` and its parameters and returns a `CriterionResult` (or an
awaitable of one); a class is registered as one instance of it, made with no arguments. A checker
that raises or times out is logged and counts as not met, named as a checker error: an
instance never crashes on a checker (seed 000, risks). A checker registered with a `params`
model has its parameters checked when definitions load, so a typo (`min_item: 3`) stops the
service instead of being read as the default.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from baton_contracts import ErrorCode, RemoteError
from baton_messaging.process import SettingUnusable
from baton_workflow.domain.commands import Signal
from baton_workflow.domain.criteria import CriteriaReport, CriterionResult
from baton_workflow.domain.definitions import CriterionSpec, StepDefinition
from baton_workflow.domain.state import InstanceState
from baton_workflow.domain.widgets import widget_of
from baton_workflow.service.ports import AgentRunnerQueries

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckContext:
    """What a checker may look at: the instance, its step, the signal being decided, the owner."""

    state: InstanceState
    step: StepDefinition
    signal: Signal | None
    messages_in_step: int
    agent_runner: AgentRunnerQueries


Checker = Callable[[CheckContext, dict[str, Any]], Awaitable[CriterionResult] | CriterionResult]
Registered = TypeVar("Registered", bound=Callable[..., Any])


class CheckerParams(BaseModel):
    """Base of a checker's parameter model: unknown parameters are refused by name."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class CheckerRegistry:
    """Checkers by name, each with the model its parameters must fit (None: unchecked)."""

    def __init__(self) -> None:
        self._checkers: dict[str, Checker] = {}
        self._params: dict[str, type[BaseModel] | None] = {}

    def register(
        self, name: str, params: type[BaseModel] | None = None
    ) -> Callable[[Registered], Registered]:
        """Decorator: `@registry.register("my_check", params=MyParams)` over
        `async def check(ctx, params)`, a plain function, or a class whose instances are such
        callables; the checker still gets the parameters as a dict."""

        def add(checker: Registered) -> Registered:
            if name in self._checkers:
                raise ValueError(f"checker {name!r} is registered twice")
            if inspect.isclass(checker):  # a class: one instance serves every check
                self._checkers[name] = cast(Checker, checker())
            else:
                self._checkers[name] = checker
            self._params[name] = params
            return checker

        return add

    def names(self) -> set[str]:
        """Every registered checker name."""
        return set(self._checkers)

    def params_problems(
        self, name: str, params: dict[str, Any], step: StepDefinition | None = None
    ) -> list[str]:
        """What is wrong with `params` for checker `name`, as `field: problem` (none: []).

        The params model is validated with `{"step": step}` as its context, so a parameter
        that only the step can rule out (a `min` above its `max_messages`) is refused too."""
        model = self._params.get(name)
        if model is None:
            return []
        try:
            model.model_validate(params, context={"step": step})
        except ValidationError as exc:
            return [
                f"{'.'.join(str(p) for p in e['loc']) or 'params'}: {_rule(e)}"
                for e in exc.errors()
            ]
        return []

    async def evaluate(
        self, ctx: CheckContext, specs: Sequence[CriterionSpec], timeout: float
    ) -> CriteriaReport:
        """Run every criterion of the step concurrently, each bounded by `timeout`."""
        if len(specs) == 1:  # the usual case: no task to gather
            results = [await self._run(ctx, specs[0], timeout)]
        else:
            results = await asyncio.gather(*(self._run(ctx, spec, timeout) for spec in specs))
        return CriteriaReport(step=ctx.step.id, results=tuple(results))

    async def _run(self, ctx: CheckContext, spec: CriterionSpec, timeout: float) -> CriterionResult:
        checker = self._checkers.get(spec.checker)
        if checker is None:
            return _failed(spec.checker, "checker error: not registered")
        try:
            answer: object = checker(ctx, spec.params)
            if inspect.isawaitable(answer):
                # Only what waits can be timed out; a plain function has answered already, and
                # skips the timer (the built-ins that read the instance, on every signal).
                async with asyncio.timeout(timeout):  # not wait_for: no task per checker call
                    answer = await answer
        except TimeoutError:
            cause = f"no answer within {timeout}s"
            _outage(spec.checker, ctx, cause)
            return _failed(spec.checker, f"checker error: {cause}")
        except RemoteError as exc:  # the service asked (the agent-runner) is down or refused
            # Down is expected (a restart); another answer is worth an error, but its traceback
            # would show only this call: the cause is in the answering service's log.
            detail = f"checker error: {type(exc).__name__}: {exc}"
            if exc.code is ErrorCode.UNAVAILABLE:
                _outage(spec.checker, ctx, str(exc), counted=False)
                return Unreachable(checker=spec.checker, met=False, detail=detail, error=True)
            _outage(spec.checker, ctx, str(exc), logging.ERROR)
            return _failed(spec.checker, detail)
        except Exception as exc:  # a bug in the checker: its traceback is what to read
            logger.exception(
                "checker %s failed on instance %s", spec.checker, ctx.state.instance_id
            )
            return _failed(spec.checker, f"checker error: {type(exc).__name__}: {exc}")
        return _answered(spec.checker, answer)


def _outage(
    name: str, ctx: CheckContext, cause: str, level: int = logging.WARNING, *, counted: bool = True
) -> None:
    """One line for a checker that could not get its answer from another service: an outage
    (the agent-runner restarting, say) is expected and says nothing a traceback would add,
    while one traceback per blocked step would bury the log. An `Unreachable` one is not
    `counted`: no turn is decided on it (the turn is refused, nothing recorded)."""
    logger.log(
        level,
        "checker %s on instance %s could not answer (%s): %s",
        name,
        ctx.state.instance_id,
        "counted as not met" if counted else "its service is unavailable: no turn is decided on it",
        cause,
    )


def _answered(name: str, answer: object) -> CriterionResult:
    """A plugin's answer, checked: anything but a `CriterionResult` is a checker error (not a
    failed command), and the result is named for the criterion it answers."""
    if not isinstance(answer, CriterionResult):
        logger.error("checker %s answered %r, not a CriterionResult", name, answer)
        return _failed(name, f"checker error: answered {type(answer).__name__}, not a result")
    return answer if answer.checker == name else answer.model_copy(update={"checker": name})


class Unreachable(CriterionResult):
    """A checker error of one kind: the service the checker asks (the agent-runner) did not
    answer, as in a restart. It reads like any checker error in a report (`explain` shows it
    not met), but no turn is decided on it: the chat pre-check
    (`agent_requests._can_complete`) and a turn's decision (`turns._decide`) refuse the turn
    `unavailable` instead, nothing recorded, so a restart is never recorded as a blocked step."""


def unreachable_causes(report: CriteriaReport) -> str | None:
    """The report's `Unreachable` results, described and joined; None when it has none."""
    unreachable = [r.describe() for r in report.results if isinstance(r, Unreachable)]
    return "; ".join(unreachable) if unreachable else None


def _rule(error: Any) -> str:
    """A params model's own rule as it says it, without pydantic's "Value error, " before it."""
    if error["type"] == "value_error":
        return str(error["ctx"]["error"])
    return str(error["msg"])


def _failed(name: str, detail: str) -> CriterionResult:
    return CriterionResult(checker=name, met=False, detail=detail, error=True)


def _counted(name: str, observed: int, required: int, what: str) -> CriterionResult:
    return CriterionResult(
        checker=name,
        met=observed >= required,
        observed=observed,
        required=required,
        detail=f"{observed}/{required} {what}",
    )


def load_checker_modules(registry: CheckerRegistry, modules: Sequence[str]) -> CheckerRegistry:
    """Import each module and call its `register(registry)`; a bad module is a clear error."""
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise SettingUnusable(
                f"BATON_WORKFLOW_CHECKER_MODULES: cannot import {name!r}: {exc}"
            ) from None
        register = getattr(module, "register", None)
        if not callable(register):
            raise SettingUnusable(
                f"BATON_WORKFLOW_CHECKER_MODULES: {name!r} has no register(registry)"
            )
        register(registry)
    return registry


class NoParams(CheckerParams):
    """`agent_signal` takes none."""


class MinMessagesParams(CheckerParams):
    """`min_messages`: how many (the step's own `min_messages` when left out)."""

    min: int | None = Field(default=None, ge=0, strict=True)

    @field_validator("min")
    @classmethod
    def _reachable(cls, wanted: int | None, info: ValidationInfo) -> int | None:
        # The exchange that reaches `max_messages` closes the step forced: a `min` above it
        # is never met, and every instance would leave the step forced, with a warning.
        step = (info.context or {}).get("step")
        if wanted is not None and step is not None and wanted > step.max_messages:
            raise ValueError(
                f"{wanted} is above the step's max_messages ({step.max_messages}); the step "
                "closes forced at max_messages, so this criterion could never be met"
            )
        return wanted


class MemoryFactsParams(CheckerParams):
    """`memory_facts`: how many facts, of which category (any when left out)."""

    min_facts: int = Field(default=1, ge=0, strict=True)
    # As long as the agent-runner's query takes: a longer one failed every check, not the load.
    category: str | None = Field(default=None, min_length=1, max_length=64)


class InboxItemsParams(CheckerParams):
    """`inbox_items`: how many inbox items."""

    min_items: int = Field(default=1, ge=0, strict=True)


class WidgetParams(CheckerParams):
    """`widget_completed`: which widget, and how many items it must hold."""

    widget_type: str = Field(min_length=1)
    min_items: int = Field(default=0, ge=0, strict=True)


def builtin_checkers() -> CheckerRegistry:
    """A registry holding the built-ins of seeds 000 and 001."""
    registry = CheckerRegistry()

    @registry.register("agent_signal", params=NoParams)
    def agent_signal(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        signalled = ctx.signal is not None and ctx.signal.action == "complete_step"
        detail = "agent signalled completion" if signalled else "agent has not signalled completion"
        return CriterionResult(checker="agent_signal", met=signalled, detail=detail)

    @registry.register("min_messages", params=MinMessagesParams)
    def min_messages(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        wanted = params.get("min")
        required = ctx.step.min_messages if wanted is None else int(wanted)
        return _counted("min_messages", ctx.messages_in_step, required, "messages")

    @registry.register("memory_facts", params=MemoryFactsParams)
    async def memory_facts(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        category = params.get("category")
        found = await ctx.agent_runner.count_memory_facts(ctx.state.user_id, category)
        what = f"facts in {category!r}" if category else "facts"
        return _counted("memory_facts", found, int(params.get("min_facts", 1)), what)

    @registry.register("inbox_items", params=InboxItemsParams)
    async def inbox_items(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        found = await ctx.agent_runner.count_inbox_items(ctx.state.user_id)
        return _counted("inbox_items", found, int(params.get("min_items", 1)), "inbox items")

    @registry.register("widget_completed", params=WidgetParams)
    def widget_completed(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        return _widget(ctx, str(params.get("widget_type", "")), int(params.get("min_items", 0)))

    return registry


def _widget(ctx: CheckContext, widget_type: str, min_items: int) -> CriterionResult:
    """A widget counts once step data holds it completed: `{"widget": {type, completed, items}}`;
    its items are its text entries that are not blank (`domain.widgets`)."""
    widget = widget_of(ctx.state.step_data.get(ctx.step.id, {}))
    if widget is None or widget.widget_type != widget_type:
        return CriterionResult(
            checker="widget_completed", met=False, detail=f"no {widget_type} widget yet"
        )
    if not widget.completed:
        return CriterionResult(
            checker="widget_completed", met=False, detail=f"{widget_type} widget not completed"
        )
    return _counted("widget_completed", len(widget.items), min_items, f"items in {widget_type}")
