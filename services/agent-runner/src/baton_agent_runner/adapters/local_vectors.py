"""A user's facts of a local Qdrant folder, kept in memory: listed, counted and searched.

Qdrant's local mode (a folder, no server) has no payload index. A search or listing filtered
to one user checks every point's payload in Python, about 25 us a point on a small machine, so
a user with 1,000 facts waited 25 ms for each search, count or fact write, and every other
user's facts made it slower still. A folder is locked to one client, so the process holding it
sees every write. This index keeps each user's facts (ids, payloads and vectors) in memory:
loaded from the folder on first use, refreshed point by point after each write through the
adapter, and ranked by cosine similarity, the collection's metric.
A Qdrant server (`BATON_QDRANT_URL`) indexes payloads itself and does not use this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from qdrant_client import QdrantClient, models

_PAGE = 1000
Matrix = np.ndarray[Any, np.dtype[np.float64]]


@dataclass
class _UserFacts:
    ids: list[str] = field(default_factory=list)
    payloads: list[dict[str, Any]] = field(default_factory=list)
    unit: Matrix = field(default_factory=lambda: np.zeros((0, 0)))  # rows of length 1
    at: dict[str, int] = field(default_factory=dict)  # id -> row

    @classmethod
    def of(cls, points: list[tuple[str, dict[str, Any], list[float]]]) -> _UserFacts:
        if not points:
            return cls()
        ids = [point_id for point_id, _, _ in points]
        unit = _unit(np.asarray([vector for _, _, vector in points], dtype=np.float64))
        at = {point_id: row for row, point_id in enumerate(ids)}
        return cls(ids, [payload for _, payload, _ in points], unit, at)

    def put(self, point_id: str, payload: dict[str, Any], vector: list[float]) -> None:
        row = _unit(np.asarray([vector], dtype=np.float64))
        if point_id in self.at:
            at = self.at[point_id]
            self.payloads[at], self.unit[at] = payload, row[0]
            return
        self.at[point_id] = len(self.ids)
        self.ids.append(point_id)
        self.payloads.append(payload)
        self.unit = row if not len(self.unit) else np.vstack([self.unit, row])


class LocalUserIndex:
    """Each user's facts of one collection. Call it from one thread at a time."""

    def __init__(self, client: QdrantClient, collection: str) -> None:
        self._client = client
        self._collection = collection
        self._users: dict[str, _UserFacts] = {}

    def forget(self, user_id: str) -> None:
        """The user's facts changed in a way not known here: read them again on next use."""
        self._users.pop(user_id, None)

    def refresh(self, user_id: str, point_ids: list[str]) -> None:
        """These points of the user were written: take them from the folder again."""
        facts = self._users.get(user_id)
        if facts is None:
            return  # not loaded: the first use reads everything
        points = self._client.retrieve(
            self._collection, ids=point_ids, with_payload=True, with_vectors=True
        )
        if len(points) != len(point_ids):
            self.forget(user_id)
            return
        for point in points:
            vector = _dense(point.vector)
            if vector is None:
                self.forget(user_id)
                return
            facts.put(str(point.id), dict(point.payload or {}), vector)

    def rows(self, user_id: str, where: dict[str, str]) -> list[dict[str, Any]]:
        """The user's facts whose payload has the `where` values, as Mem0's `get_all` lists
        them: `id`, `memory` (the text) and `metadata` (category and key among others)."""
        facts = self._facts(user_id)
        return [
            {"id": point_id, "memory": payload.get("data"), "metadata": payload}
            for point_id, payload in zip(facts.ids, facts.payloads, strict=True)
            if all(payload.get(name) == value for name, value in where.items())
        ]

    def search(
        self, user_id: str, vector: list[float], category: str | None, limit: int
    ) -> list[dict[str, Any]]:
        """The payloads of the user's `limit` nearest facts (of `category`), nearest first."""
        facts = self._facts(user_id)
        if not facts.payloads or limit < 1:
            return []
        scores = facts.unit @ _unit(np.asarray([vector], dtype=np.float64))[0]
        if category is not None:
            wanted = np.array([p.get("category") == category for p in facts.payloads])
            scores = np.where(wanted, scores, -np.inf)
        order = np.argsort(-scores, kind="stable")[:limit]
        return [facts.payloads[i] for i in order if np.isfinite(scores[i])]

    def _facts(self, user_id: str) -> _UserFacts:
        facts = self._users.get(user_id)
        if facts is None:
            facts = self._users[user_id] = self._load(user_id)
        return facts

    def _load(self, user_id: str) -> _UserFacts:
        mine = models.Filter(
            must=[models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id))]
        )
        found: list[tuple[str, dict[str, Any], list[float]]] = []
        offset: Any = None
        while True:
            points, offset = self._client.scroll(
                self._collection,
                scroll_filter=mine,
                limit=_PAGE,
                offset=offset,
                with_payload=True,
                with_vectors=True,
            )
            found += [
                (str(point.id), dict(point.payload or {}), vector)
                for point in points
                if (vector := _dense(point.vector)) is not None
            ]
            if offset is None:
                return _UserFacts.of(found)


def _unit(rows: Matrix) -> Matrix:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def _dense(vector: object) -> list[float] | None:
    """A point's vector when it is one dense vector (Baton's collection holds only those), or
    None for anything else Qdrant can return (none, named or multi-vectors)."""
    if isinstance(vector, list) and not (vector and isinstance(vector[0], list)):
        return cast(list[float], vector)
    return None
