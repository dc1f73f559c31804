"""The PostgreSQL statements of the reply and task logs (`sql_logs`), sent on the pooled
asyncpg connection (`raw_postgres`): look up, claim, record, release, prune."""

from __future__ import annotations

_NOW = "clock_timestamp()"
"""Now, for a claim's expiry: the database server's clock, the one every replica shares (not
its host's, which may be seconds apart from another's, or step). `clock_timestamp()`, not
`now()`, which is when the transaction began."""


def log_statements(table: str, column: str, columns: list[str]) -> dict[str, str]:
    """The PostgreSQL statements of one log (see `raw_postgres`), from its table; JSON is read
    as text and validated straight from it."""
    values = ", ".join(f"${n}" for n in range(1, len(columns) + 1))
    log, holder = f"${len(columns) + 1}", f"${len(columns) + 2}"
    where_key = "user_id = $1 AND idempotency_key = $2"
    return {
        "get": (
            f"SELECT {column}::text AS value, request_digest AS digest FROM {table} "
            f"WHERE {where_key}"
        ),
        # The recorded value; else the claim inserted for $5 seconds, or taken over when it
        # ran out or is this holder's; and else when the other's claim runs out. The server's
        # clock sets and checks expiries (`_NOW`). Every look but the insert's sees the table
        # as the statement began: a claim made meanwhile reads as NULL, and one whose holder
        # recorded its value meanwhile still reads as its (`held_by`), while the insert, which
        # waited for that holder's commit, took the key (`FirstRecorded.claim` looks again).
        "claim": (
            f"WITH recorded AS (SELECT {column}::text AS value, request_digest AS digest "
            f"FROM {table} WHERE {where_key}), "
            "held AS (SELECT expires_at, holder FROM agent_claims "
            f"WHERE log = $3 AND {where_key}), "
            "taken AS (INSERT INTO agent_claims AS c "
            "(log, user_id, idempotency_key, holder, expires_at) "
            "SELECT $3::varchar, $1::varchar, $2::varchar, $4::varchar, "
            f"{_NOW} + make_interval(secs => $5::float8) "
            "WHERE NOT EXISTS (SELECT 1 FROM recorded) "
            "ON CONFLICT (log, user_id, idempotency_key) DO UPDATE "
            "SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at "
            f"WHERE c.expires_at < {_NOW} OR c.holder = EXCLUDED.holder RETURNING 1) "
            "SELECT (SELECT value FROM recorded) AS value, "
            "(SELECT digest FROM recorded) AS digest, EXISTS (SELECT 1 FROM taken) AS mine, "
            "(SELECT expires_at FROM held) AS held_until, (SELECT holder FROM held) AS held_by"
        ),
        "put": (
            f"WITH put AS (INSERT INTO {table} ({', '.join(columns)}) VALUES ({values}) "
            "ON CONFLICT (user_id, idempotency_key) DO NOTHING RETURNING 1), "
            f"released AS (DELETE FROM agent_claims WHERE log = {log} AND {where_key} "
            f"AND holder = {holder}) SELECT 1 FROM put"
        ),
        "release": (
            "DELETE FROM agent_claims "
            "WHERE log = $1 AND user_id = $2 AND idempotency_key = $3 AND holder = $4"
        ),
        "prune_claims": (
            "WITH gone AS (DELETE FROM agent_claims "
            f"WHERE log = $1 AND expires_at < {_NOW} RETURNING 1) SELECT count(*) FROM gone"
        ),
        # One batch of a prune: up to $2 rows recorded before $1, only their count back. Found
        # by their place (`ctid`, a TID scan), not joined on the key. SKIP LOCKED: a replica
        # pruning at the same moment takes other old rows instead of waiting for these ones.
        "prune": (
            f"WITH gone AS (DELETE FROM {table} WHERE ctid = ANY(ARRAY("
            f"SELECT ctid FROM {table} WHERE created_at < $1 LIMIT $2 "
            "FOR UPDATE SKIP LOCKED)) RETURNING 1) SELECT count(*) FROM gone"
        ),
    }
