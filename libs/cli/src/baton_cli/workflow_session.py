"""The state one `baton workflow` invocation shares: options, gateway client, error reporting.

Exit codes: 0 success; 2 a usage error or a definition the gateway found invalid (every problem
printed as `path: message`); 1 anything else (not found, unreachable gateway, a failed run).
"""

from __future__ import annotations

import getpass
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from baton_cli.errors import CliError, UsageError
from baton_cli.gateway_client import GatewayClient, GatewayError
from baton_cli.printable import say
from baton_cli.state import read_state
from baton_cli.workflow_input import InputError

if TYPE_CHECKING:
    import httpx
    from rich.console import Console

DEFAULT_URL = "http://127.0.0.1:8080"
LOCAL_TOKEN_TTL = "1h"
NO_TOKEN = "set BATON_TOKEN (see `baton token`)"
URL_OPTION = "--url / BATON_URL"
TOKEN_OPTION = "--token / BATON_TOKEN"


@dataclass(frozen=True)
class WorkflowCliDeps:
    """What tests replace (pass as `obj=` to the runner): HTTP transport, poll sleep, console."""

    transport: httpx.BaseTransport | None = None
    sleep: Callable[[float], None] = time.sleep
    console: Console | None = None


@dataclass
class Session:
    """The sub-app's global options, and the gateway client made from them on first use."""

    url: str
    token: str | None
    user: str
    data_dir: Path
    deps: WorkflowCliDeps
    console: Console
    _client: GatewayClient | None = field(default=None, repr=False)

    def client(self) -> GatewayClient:
        """The gateway client; resolving the token may fail with a usage error."""
        if self._client is None:
            url, token = checked_url(self.url), self._token()
            self._client = GatewayClient(url, token, transport=self.deps.transport)
        return self._client

    def _token(self) -> str:
        if self.token and self.token.strip():
            return checked_token(self.token.strip())
        local = local_gateway_url(self.data_dir)
        if local is not None and local.rstrip("/") == self.url.rstrip("/"):
            # The embedded gateway of this data dir: sign with its dev secret, as `baton token`.
            from baton_cli.tokens import make_token  # the JWT stack, only when minting

            return make_token(self.data_dir, self.user, None, LOCAL_TOKEN_TTL)
        raise InputError(NO_TOKEN)

    def close(self) -> None:
        """Release the client, if one was made."""
        if self._client is not None:
            self._client.close()


MAX_PORT = 65535


def checked_url(url: str) -> str:
    """`url` if it is an http(s) URL with a host; a usage error naming the option otherwise."""
    import httpx

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise InputError(f"{URL_OPTION}: not a valid URL ({exc}), got {url!r}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise InputError(f"{URL_OPTION}: expected http://HOST[:PORT] or https://..., got {url!r}")
    if parsed.port is not None and not 1 <= parsed.port <= MAX_PORT:  # httpx takes any number
        raise InputError(f"{URL_OPTION}: the port is 1 to {MAX_PORT}, got {url!r}")
    return url


def checked_token(token: str) -> str:
    """`token` if it can go in an HTTP header as a JWT can; a usage error otherwise.

    The token is a secret: the error says where the bad character is, never what the token is.
    """
    for position, char in enumerate(token, start=1):
        if not "!" <= char <= "~":
            raise InputError(
                f"{TOKEN_OPTION}: a bearer token is printable ASCII without spaces; character "
                f"{position} of {len(token)} is {unicodedata.name(char, repr(char))}"
            )
    return token


def local_gateway_url(data_dir: Path) -> str | None:
    """The gateway URL the `baton up` of this data dir published, if it did."""
    try:
        return read_state(data_dir).gateway_url
    except CliError:
        return None


def default_user(login: Callable[[], str] = getpass.getuser) -> str:
    """Who a locally minted token names when `--user` is not given: the login name, with each
    character a user id cannot hold (`.`, `*`, `>`, white space) as `-` (`first.last` is the
    user `first-last`), in Unicode NFC (a login spelled with combining accents names the user
    a user id may be; the decomposed form is refused); `local` when there is no login name."""
    try:
        name = login()
    except (KeyError, OSError):
        return "local"
    from baton_auth.tokens import MAX_USER_ID_CHARS  # the JWT stack, only when minting

    name = unicodedata.normalize("NFC", name)
    fit = "".join("-" if c in ".*>" or c.isspace() or not c.isprintable() else c for c in name)
    # NFC again after the cut, so no cut can leave a form the gateway refuses.
    return unicodedata.normalize("NFC", fit[:MAX_USER_ID_CHARS]) if fit.strip("-") else "local"


def session_of(ctx: typer.Context) -> Session:
    """The session the `workflow` callback stored in the context."""
    session: Session = ctx.obj
    return session


def fail(message: str, code: int) -> NoReturn:
    """Print `error: <message>` on stderr and exit with `code`."""
    say(f"error: {message}", err=True)
    raise typer.Exit(code)


NotFound = str | Callable[[GatewayError], str] | None
"""What a 404 says: one message, or one chosen from the error (see `missing_by_field`)."""


def missing_by_field(by_field: dict[str, str], otherwise: str) -> Callable[[GatewayError], str]:
    """A 404's message chosen by the field the gateway names as missing (a request that names
    two things, such as the two versions of a diff, says which one is missing)."""

    def say(error: GatewayError) -> str:
        named = (by_field[p.field] for p in error.problems if p.field in by_field)
        return next(named, otherwise)

    return say


@contextmanager
def reporting(not_found: NotFound = None, invalid: str | None = None) -> Iterator[None]:
    """Turn failures into messages and exit codes; `not_found` / `invalid` name the subject."""
    try:
        yield
    except UsageError as error:  # a file or argument, or a `--user` no token can name
        fail(str(error), 2)
    except GatewayError as error:
        if error.status == 422:
            _invalid(error, invalid)
        if error.status == 404 and not error.problems:
            # Every 404 of the gateway's routes names what is missing (`path.name`); one that
            # names nothing is a route it does not have: a wrong --url (a prefix), or not a
            # gateway. It was reported as "workflow X not found".
            fail(f"{error} (no such route on the gateway: is --url right?)", 1)
        if error.status == 404 and not_found:
            fail(not_found(error) if callable(not_found) else not_found, 1)
        fail(str(error), 1)
    except CliError as error:
        fail(str(error), 1)


def _invalid(error: GatewayError, subject: str | None) -> NoReturn:
    if not error.problems:
        fail(str(error), 2)
    count = len(error.problems)
    header = f"{subject or 'the request'} is invalid ({count} problem{'s' * (count != 1)}):"
    say(f"error: {header}", err=True)
    for problem in error.problems:
        say(str(problem), err=True)
    raise typer.Exit(2)
