"""`baton token`: a bearer token the running gateway accepts, for curl and local clients."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

from baton_auth import MAX_USER_ID_CHARS, mint_token, project_id_problem, user_id_problem
from baton_cli.datadir import read_secret
from baton_cli.errors import UsageError

_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
MAX_TTL = timedelta(days=3650)
"""Ten years: longer would not make a token more useful, and past year 9999 it cannot expire."""
_DURATION = re.compile(r"^\s*(\d+)\s*([smhd])\s*$")


def parse_ttl(value: str) -> timedelta:
    """`90s`, `30m`, `12h`, `7d` -> a positive timedelta; an error naming `--ttl` otherwise."""
    match = _DURATION.match(value)
    if match is None:
        raise UsageError(f"--ttl: expected a duration like 30m, 12h or 7d, got {value!r}")
    amount, unit = int(match.group(1)), match.group(2)
    if amount <= 0:
        raise UsageError(f"--ttl: must be longer than zero, got {value!r}")
    too_long = UsageError(f"--ttl: at most {MAX_TTL.days}d, got {value!r}")
    try:
        lifetime = timedelta(**{_UNITS[unit]: amount})
    except OverflowError:
        raise too_long from None
    if lifetime > MAX_TTL:
        raise too_long
    return lifetime


def make_token(
    data_dir: Path,
    user_id: str,
    project_id: str | None,
    ttl: str,
    env: Mapping[str, str] = os.environ,
) -> str:
    """A token for `user_id` signed with the secret `baton up` uses for this data dir."""
    if (problem := user_id_problem(user_id)) is not None:
        # A name too long is not quoted back: the problem says its length, and the name
        # itself (pasted by mistake, a whole file say) filled the terminal.
        # Escaped (`!a`), the decomposed look-alike of a name shows how it differs from it.
        shown = "" if len(user_id) > MAX_USER_ID_CHARS else f", got {user_id!a}"
        raise UsageError(f"--user: {problem}{shown}")
    if project_id and (problem := project_id_problem(project_id)) is not None:
        raise UsageError(f"--project: {problem}, got {project_id!r}")
    lifetime = parse_ttl(ttl)
    secret = read_secret(data_dir, env)
    return mint_token(secret, user_id, project_id=project_id or None, ttl=lifetime)
