"""What `baton workflow` reads from its arguments: workflow files, `--var` pairs, version ids.

Each function raises `InputError` naming the argument and the problem; the command turns it into
exit code 2.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from baton_cli.errors import UsageError
from baton_contracts.dag_api import WORKFLOW_NAME_PATTERN
from baton_contracts.dag_base import MAX_DEFINITION_CHARS
from baton_contracts.documents import (
    NOT_TEXT_KEY,
    TooDeep,
    as_yaml_writes,
    json_chars,
    read_json,
    yaml_loader,
)
from baton_contracts.storable import key_path

NAME = re.compile(r"[A-Za-z0-9_-]+\Z")  # match() anchors the start; "$" would let a final "\n" in
_ROUTABLE_NAME = re.compile(WORKFLOW_NAME_PATTERN)
_VERSION_ID = re.compile(r"^(?:(?P<name>[A-Za-z0-9_-]+)@)?(?P<version>[0-9]+)$")
YAML_SUFFIXES = (".yaml", ".yml")


class InputError(UsageError):
    """A bad argument or file: a usage error (exit 2), never a gateway failure."""


def load_document(path: Path) -> dict[str, Any]:
    """A workflow document from a JSON file, or YAML when the name ends in .yaml/.yml."""
    try:
        # utf-8-sig: a byte-order mark (Windows editors write one) is no content; `json`
        # refuses a text that starts with one.
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        # Python's wording ("'utf-8' codec can't decode byte 0xff in position 0") says
        # nothing of what to do; a UTF-16 file from a Windows editor is the usual cause.
        message = f"{path}: cannot read: it is not UTF-8 (byte {exc.start}); save it as UTF-8"
        raise InputError(message) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        document = _parse(path, text)
        where = _not_finite(document)
    except RecursionError:  # the readers recurse once per level of nesting
        raise _too_deep(path) from None
    if where is not None:
        # Python's readers take NaN, Infinity and 1e400 (infinity); JSON, which the gateway
        # takes, has no such number: sending it raised a traceback.
        at, value = where
        raise InputError(f"{path}: {at or 'the document'} is {value!r}: not a finite number")
    if not isinstance(document, dict):
        raise InputError(
            f"{path}: a workflow document must be an object, got {type(document).__name__}"
        )
    return document


def _parse(path: Path, text: str) -> Any:
    if path.suffix.lower() in YAML_SUFFIXES:
        return _parse_yaml(path, text)
    try:
        return read_json(text)  # refuses a key given twice
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except ValueError as exc:  # a value Python cannot build (a 5,000-digit number)
        raise InputError(f"{path}: not valid JSON: {_unbuildable(exc)}") from None


def _not_finite(value: Any, at: str = "") -> tuple[str, float] | None:
    """Where the first number that is not finite is (`steps[0].budget`), and the number."""
    if isinstance(value, float) and not math.isfinite(value):
        return at, value
    if isinstance(value, dict):
        for key, item in value.items():
            if found := _not_finite(item, key_path(at, str(key))):
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if found := _not_finite(item, f"{at}[{index}]"):
                return found
    return None


def _key_not_text(value: Any, at: str = "") -> tuple[str, str] | None:
    """Where the first key YAML read as no string is (`variables.null`), and the key as YAML
    writes it."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                shown = as_yaml_writes(key)
                return (f"{at}.{shown}" if at else shown), shown
            if found := _key_not_text(item, key_path(at, key)):
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if found := _key_not_text(item, f"{at}[{index}]"):
                return found
    return None


def _unbuildable(exc: ValueError) -> str:
    if "integer string conversion" in str(exc):
        return f"a number has more than {sys.get_int_max_str_digits()} digits"
    return str(exc)


def _parse_yaml(path: Path, text: str) -> Any:
    try:  # imported only when a YAML file is read
        import yaml
    except ImportError:
        raise InputError(f"{path}: reading YAML needs PyYAML (pip install pyyaml)") from None

    try:
        loaded = yaml.load(text, Loader=yaml_loader())  # dates as text, no repeated key
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"{path}: not valid YAML: {problem}{where}") from None
    except TooDeep:
        raise _too_deep(path) from None
    except ValueError as exc:  # `!!timestamp 2024-13-45`, a 5,000-digit number
        raise InputError(f"{path}: not valid YAML: {_unbuildable(exc)}") from None
    try:
        bad_key = _key_not_text(loaded)
    except RecursionError:
        raise _too_deep(path) from None
    if bad_key is not None:
        # Sent as JSON, `null:` became the key "null" without a word, where the gateway,
        # sent the same YAML, refuses it.
        at, shown = bad_key
        raise InputError(f"{path}: {at}: {NOT_TEXT_KEY.format(shown)}")
    # Measured before it is written out: a few hundred bytes of nested aliases ("billion
    # laughs") wrote 358 MB of JSON, held 3.7 GB for 100 s, then were refused as a 413.
    try:
        size = json_chars(loaded)
    except RecursionError:  # an alias that holds itself
        raise _too_deep(path) from None
    if size > MAX_DEFINITION_CHARS:
        raise InputError(
            f"{path}: is {size:,} characters as JSON, its YAML aliases written out; "
            f"a workflow may have at most {MAX_DEFINITION_CHARS:,}"
        )
    # An explicit `!!timestamp` or `!!binary` has no JSON type: send it as text.
    try:
        return json.loads(json.dumps(loaded, default=str))
    except ValueError:  # "Circular reference detected": an alias that holds itself
        raise _too_deep(path) from None


def _too_deep(path: Path) -> InputError:
    return InputError(f"{path}: nested too deeply to be a workflow")


def document_name(document: dict[str, Any]) -> str | None:
    """The document's `name` if a gateway route can carry it, else None.

    A missing or bad name is not refused here: the gateway reports it along with every other
    problem of the document, so one `validate` lists them all.
    """
    name = document.get("name")
    return name if isinstance(name, str) and _ROUTABLE_NAME.match(name) else None


def not_utf8(value: str) -> str | None:
    """Why `value` cannot be sent, if it cannot: the shell passed a byte that is not UTF-8 (a
    Latin-1 terminal, a pasted file name), which Python keeps as a lone surrogate and which
    neither JSON nor a URL can carry (sending it raised a traceback)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"holds a byte that is not UTF-8 text (character {exc.start + 1})"
    return None


def parse_vars(pairs: list[str]) -> dict[str, str]:
    """`--var key=value` pairs; the value may contain `=`; a key given twice is an error."""
    variables: dict[str, str] = {}
    for pair in pairs:
        problem = not_utf8(pair)
        if problem:
            raise InputError(f"--var: {pair!r} {problem}")
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--var: expected key=value, got {pair!r}")
        if key in variables:
            raise InputError(f"--var: {key!r} is given twice")
        variables[key] = value
    return variables


def version_id_for(name: str, given: str) -> str:
    """`rollback`'s version: `3` or `name@3` -> `name@3`; another workflow's id is an error."""
    match = _VERSION_ID.match(given.strip())
    if match is None:
        raise InputError(f"version-id: expected {name}@N or N, got {given!r}")
    _from_one("version-id", match)
    owner = match.group("name") or name
    if owner != name:
        raise InputError(f"version-id: {given} is a version of {owner}, not of {name}")
    return f"{name}@{int(match.group('version'))}"


def _version_match(arg: str, value: str) -> re.Match[str]:
    match = _VERSION_ID.match(value.strip())
    if match is None:
        raise InputError(f"{arg}: expected NAME@N or N, got {value!r}")
    return _from_one(arg, match)


def _from_one(arg: str, match: re.Match[str]) -> re.Match[str]:
    if int(match.group("version")) == 0:
        raise InputError(f"{arg}: versions start at 1, got {match.group(0)!r}")
    return match


def diff_ids(first: str, second: str) -> tuple[str, str]:
    """`diff`'s two versions: `name@1 name@3`, or `name@1 3` (the other one names the workflow)."""
    a, b = _version_match("version1", first), _version_match("version2", second)
    name = a.group("name") or b.group("name")
    if name is None:
        raise InputError("version1: name the workflow, e.g. research-and-summarize@1")
    return (
        f"{a.group('name') or name}@{int(a.group('version'))}",
        f"{b.group('name') or name}@{int(b.group('version'))}",
    )
