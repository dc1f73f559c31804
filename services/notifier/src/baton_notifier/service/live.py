"""Live events for sockets: one hub per process, and per socket a bounded queue fed in seq order.

A socket's session starts by holding live events aside while it replays what the client
missed from the stored history; then it switches to live, dropping every held event whose
seq it already sent. So handover neither loses nor repeats an event. A session that falls
`queue_size` frames behind is ended (`CLOSE_TOO_SLOW`) instead of slowing anyone else down,
and one whose token expires is ended then (`CLOSE_UNAUTHORIZED`) by a timer of its own.

`LiveEvents.subscribe` is the Python API behind `/ws` and `/api/events`: "events of a user
(or one of its instances) since seq N, then live", for any other front end to reuse.

The parts: `live_session.py` (`LiveSession`, `SessionEnded`), `live_sending.py` (`Send`),
`live_hub.py` (`LiveHub`) and `live_events.py` (`LiveEvents`). This module re-exports them, so
callers keep importing from `baton_notifier.service.live`.
"""

from baton_notifier.service.live_events import LiveEvents, TooManySessions
from baton_notifier.service.live_hub import LiveHub
from baton_notifier.service.live_sending import Send
from baton_notifier.service.live_session import LiveSession, SessionEnded

__all__ = ["LiveEvents", "LiveHub", "LiveSession", "Send", "SessionEnded", "TooManySessions"]
