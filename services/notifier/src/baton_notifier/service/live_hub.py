"""The one in-memory router per process, from the live feed to the sessions of each user."""

from __future__ import annotations

from baton_notifier.domain.live import LiveEvent
from baton_notifier.service.live_session import LiveSession


class LiveHub:
    """Routes each live event, in memory, to the sessions of its user."""

    def __init__(self) -> None:
        self._by_user: dict[str, set[LiveSession]] = {}

    def add(self, session: LiveSession) -> None:
        """Start routing events to `session` (it leaves by itself when it ends)."""
        self._by_user.setdefault(session.filter.user_id, set()).add(session)
        session.on_end = self.remove

    def remove(self, session: LiveSession) -> None:
        """Stop routing events to `session`."""
        sessions = self._by_user.get(session.filter.user_id)
        if sessions is not None:
            sessions.discard(session)
            if not sessions:
                del self._by_user[session.filter.user_id]

    def deliver(self, event: LiveEvent) -> None:
        """Hand one event to every session of its user (each filters by instance itself)."""
        sessions = self._by_user.get(event.user_id)
        if sessions:
            for session in tuple(sessions):
                session.offer(event)

    def sessions(self) -> list[LiveSession]:
        """Every open session."""
        return [s for group in self._by_user.values() for s in group]
