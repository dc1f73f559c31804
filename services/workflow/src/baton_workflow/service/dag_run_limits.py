"""How many runs one user may have running at once (`workflow_max_runs_per_user`).

Every run in flight holds a drive in the workflow service, and its steps hold model calls in
the agent-runner: one user's script starting runs in a loop took every replica's and every
model's time from the other users, and ran up the bill at the pace it looped. A start past the
limit is refused `too_many` (HTTP 429) and nothing is written; a run that ends or is cancelled
makes room.

The limit is exact: the start's append counts the user's running runs again, in the
transaction that writes the run, while no other start of the user (on any replica) counts
(`RunStore.append(at_most=...)`, `RunsFull`). Starts that arrive together go in one after
another until the limit, and the rest are refused. The count read before (`earlier_if_full`)
only spares a user who is full the work of checking the workflow again, and saves no write.
"""

from __future__ import annotations

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.dag_api import StartDagRun
from baton_workflow.service.dag_ports import RunStore


async def earlier_if_full(runs: RunStore, command: StartDagRun, limit: int) -> str | None:
    """None while the user has room for another run, as the count reads now (the append counts
    again, exactly). When it has none: `earlier_or_too_many`."""
    running = await runs.running_count(command.user_id)
    if running < limit:
        return None
    return await earlier_or_too_many(runs, command, running, limit)


async def earlier_or_too_many(
    runs: RunStore, command: StartDagRun, running: int, limit: int
) -> str:
    """For a user with `running` runs running, no fewer than `limit`: the run an earlier start
    under this request id made (a retry of a start that went in is answered with its run, as
    below the limit), else `too_many`."""
    if command.request_id is not None:
        earlier = await runs.find_request(command.user_id, command.request_id)
        if earlier is not None:
            return earlier
    raise RemoteError.of(
        ErrorCode.TOO_MANY,
        f"you have {running} runs running, and at most {limit} may run at once; start this "
        "one when another has ended, or cancel one",
        [ErrorDetail(field="runs", message=f"{running} running of at most {limit}")],
    )
