"""An example checker module, loaded through BATON_WORKFLOW_CHECKER_MODULES."""

from __future__ import annotations

from typing import Any

from baton_workflow.domain.criteria import CriterionResult
from baton_workflow.service.checkers import CheckContext, CheckerParams, CheckerRegistry


class FlagParams(CheckerParams):
    flag: str


def register(registry: CheckerRegistry) -> None:
    @registry.register("shared_flag", params=FlagParams)
    async def shared_flag(ctx: CheckContext, params: dict[str, Any]) -> CriterionResult:
        flag = str(params["flag"])
        met = bool(ctx.state.shared.get(flag))
        return CriterionResult(checker="shared_flag", met=met, detail=f"{flag}={met}")
