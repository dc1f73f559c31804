"""A bad setting in one line: `BATON_X: problem (got 'value')` for each, the service named.

What every service prints about its settings, from pydantic's errors; a value is quoted, cut
when long, with a URL's user and password hidden, unless the variable holds a secret. Light:
a service's settings import it before the service checks them (`process.check_settings`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from pydantic import ValidationError
from pydantic_settings import SettingsError as PydanticSettingsError

ResultT = TypeVar("ResultT")


def settled(name: str, read: Callable[[], ResultT]) -> ResultT:
    """`read()` (settings from the environment), or exit with status 2 and one line naming each
    bad variable."""
    try:
        return read()
    except ValidationError as exc:
        refuse(name, "; ".join(setting_problem(error) for error in exc.errors()))
    except PydanticSettingsError as exc:  # a list or mapping setting that is not JSON
        refuse(name, unparsed_setting(str(exc)))


ENV_PREFIX = "BATON_"


def refuse(name: str, problems: str) -> NoReturn:
    """Exit with status 2 after `<name>: invalid settings: <problems>`."""
    print(f"{name}: invalid settings: {problems}", file=sys.stderr)
    sys.exit(2)


def setting_problem(error: Any) -> str:
    """`BATON_X: problem (got 'value')` (or `... is required but not set`) for one pydantic
    error of a settings class: what every service prints about a bad variable. A row of a
    mapping setting is named (`BATON_MODEL_PRICES, row "gpt-4o", field input_usd_per_1k`),
    and the value is quoted, cut when long, unless the variable holds a secret."""
    loc = error["loc"]
    field = str(loc[0]) if loc else "?"
    # A field read under its own variable's name (`validation_alias`) is named as it is.
    variable = field if field.isupper() else f"{ENV_PREFIX}{field.upper()}"
    where = variable + "".join(_place(index, key) for index, key in enumerate(loc[1:]))
    if error["type"] == "missing":
        return f"{where} is required but not set" if len(loc) <= 1 else f"{where}: missing"
    message = without_credentials(str(error["msg"]).removeprefix("Value error, "))
    problem = f"{where}: {message}"
    if _is_secret(field) or "input" not in error:
        return problem
    shown = shown_value(error["input"])
    return problem if shown in message else f"{problem} (got {shown})"


def _place(index: int, key: object) -> str:
    if isinstance(key, int):
        return f", item {key}"
    # The first key under a mapping setting is a row's name (a model's, for prices), which
    # may hold dots: quoted, it cannot be read as a path.
    return f", row {json.dumps(key)}" if index == 0 else f", field {key}"


SECRET_WORDS = ("key", "secret", "password", "token")
"""A variable whose name holds one of these is never quoted (`BATON_OPENAI_API_KEY`)."""

MAX_SHOWN_CHARS = 80


def _is_secret(field: str) -> bool:
    return any(word in field.lower() for word in SECRET_WORDS)


def without_credentials(text: str) -> str:
    """`text` with every URL's user and password (`scheme://user:password@`) as `***`."""
    return re.sub(r"(\w+://)[^/@\s'\"]*@", r"\1***@", text)


def shown_value(value: object) -> str:
    """`value` quoted for a settings error: a URL's user and password hidden, cut when long."""
    shown = without_credentials(repr(value))
    if len(shown) > MAX_SHOWN_CHARS:
        shown = shown[: MAX_SHOWN_CHARS - 3] + "..."
    return shown


def unparsed_setting(message: str) -> str:
    """pydantic-settings' 'error parsing value for field "x" from source ...' as `BATON_X`."""
    found = re.search(r'field "([^"]+)"', message)
    if found is None:
        return message
    return f"{ENV_PREFIX}{found.group(1).upper()}: not valid JSON (a list or mapping is JSON)"
