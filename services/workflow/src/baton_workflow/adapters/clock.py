"""The real clock."""

from __future__ import annotations

from datetime import UTC, datetime


class SystemClock:
    """Timezone-aware UTC now."""

    def now(self) -> datetime:
        """Now."""
        return datetime.now(UTC)
