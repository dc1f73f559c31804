"""`RowWrite`: one read-model row written in the same commit as the events it reflects.

A service that keeps a read model beside its log (one row per aggregate) can hand the row to
`SqlEventStore.append(..., row=...)` instead of opening a unit of work. On PostgreSQL the row
becomes one more common table expression of the append statement, so events, outbox rows and
the read row are one statement and one round trip; elsewhere the store writes it in the
append's transaction. Either way the row is written only when the events are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import JSON, Table, insert, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncConnection


class RowConflict(Exception):
    """The read row broke one of its table's unique keys; neither it nor the events were written."""

    def __init__(self, table: str, detail: str) -> None:
        super().__init__(f"{table}: {detail}")
        self.table = table


@dataclass(frozen=True)
class RowWrite:
    """Insert a new row (`create`) or update the row whose `key` columns have these values."""

    table: Table
    key: Mapping[str, Any]
    values: Mapping[str, Any]
    create: bool

    def __post_init__(self) -> None:
        columns = _column_names(self.table)
        unknown = [name for name in (*self.key, *self.values) if name not in columns]
        if unknown:
            raise ValueError(f"{self.table.name}: no column(s) {', '.join(sorted(unknown))}")
        if not self.key:
            raise ValueError(f"{self.table.name}: a row write needs its key columns")

    @property
    def columns(self) -> tuple[str, ...]:
        """Key columns then value columns, in the order `pg_params` gives their values."""
        return (*self.key, *self.values)


async def write_row(conn: AsyncConnection, row: RowWrite) -> None:
    """The portable path: one INSERT or UPDATE in the connection's transaction."""
    if row.create:
        await conn.execute(insert(row.table).values(**row.key, **row.values))
        return
    where = [row.table.c[name] == value for name, value in row.key.items()]
    await conn.execute(update(row.table).where(*where).values(**row.values))


def pg_cte(row: RowWrite, first_param: int) -> str:
    """The row as a CTE named `rm`, run only when the append's `ins` CTE inserted events."""
    return _cte(row.table, tuple(row.key), tuple(row.values), row.create, first_param)


def pg_params(row: RowWrite) -> list[Any]:
    """The CTE's parameters, in `columns` order; JSON documents go as text."""
    out = []
    documents = _json_columns(row.table)
    for name in row.columns:
        value = row.key[name] if name in row.key else row.values[name]
        if name in documents and value is not None:
            value = json.dumps(value)
        out.append(value)
    return out


# Every append with a read row asks these, per column: SQLAlchemy's column lookups cost the
# workflow service, whose one thread is a transition's serial point, about 11 a transition.
@lru_cache(maxsize=64)
def _column_names(table: Table) -> frozenset[str]:
    return frozenset(table.c.keys())


@lru_cache(maxsize=64)
def _json_columns(table: Table) -> frozenset[str]:
    return frozenset(column.key for column in table.c if isinstance(column.type, JSON))


_WITH_EVENTS = "EXISTS (SELECT 1 FROM ins)"  # the append's guard let the events in


@lru_cache(maxsize=64)
def _cte(table: Table, keys: tuple[str, ...], values: tuple[str, ...], create: bool, n: int) -> str:
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]  # SQLAlchemy: untyped __init__

    def param(name: str, index: int) -> str:
        return f"CAST(${n + index} AS {table.c[name].type.compile(dialect=dialect)})"

    names = (*keys, *values)
    if create:
        columns = ", ".join(names)
        params = ", ".join(param(name, i) for i, name in enumerate(names))
        body = f"INSERT INTO {table.name} ({columns}) SELECT {params} WHERE {_WITH_EVENTS}"
    else:
        sets = ", ".join(f"{name} = {param(name, len(keys) + i)}" for i, name in enumerate(values))
        where = " AND ".join(f"{name} = {param(name, i)}" for i, name in enumerate(keys))
        body = f"UPDATE {table.name} SET {sets} WHERE {where} AND {_WITH_EVENTS}"
    return f", rm AS ({body})"
