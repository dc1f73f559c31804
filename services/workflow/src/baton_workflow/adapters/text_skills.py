"""The offline text skills: `word-count`, `json-extract`, `regex-extract` and `join`.

Each is a plain function over parsed arguments; `build_skills` runs them in a worker thread.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import regex  # type: ignore[import-untyped]  # regex ships no type hints

from baton_workflow.adapters.skill_args import ArgSpec, Option, ParsedArgs, Positional
from baton_workflow.service.step_ports import SkillResult, StepActionFailed, is_templated

_PATH_PART = re.compile(r"^([^\[\]]*)((?:\[-?\d+\])*)$")
_INDEX = re.compile(r"\[(-?\d+)\]")


@dataclass(frozen=True)
class TextSkill:
    """A pure skill: arguments in, result out; `check(args, static)` reports bad values."""

    name: str
    spec: ArgSpec
    run: Callable[[ParsedArgs, float], SkillResult]
    """The parsed arguments and the step's timeout in seconds in, the result out."""
    description: str
    check: Callable[[ParsedArgs, bool], list[str]] | None = None


def _concrete(value: str | None, static: bool) -> bool:
    """A value to check now: given, and not a template left for run time."""
    return value is not None and not (static and is_templated(value))


def _untimed(
    run: Callable[[ParsedArgs], SkillResult],
) -> Callable[[ParsedArgs, float], SkillResult]:
    """A skill whose work is linear in its input: it ends in time without being told when."""
    return lambda args, _timeout: run(args)


def _fail(problems: list[str]) -> None:
    if problems:
        raise StepActionFailed("; ".join(problems))


# word-count ------------------------------------------------------------------------------


def word_count(args: ParsedArgs) -> SkillResult:
    """Words, lines and characters of the text arguments (joined by newlines)."""
    text = "\n".join(args["text"])
    counts = {"words": len(text.split()), "lines": len(text.splitlines()), "chars": len(text)}
    only = args["only"]
    if only:
        return SkillResult(output=str(counts[only]), data=counts)
    output = f"{counts['words']} words, {counts['lines']} lines, {counts['chars']} chars"
    return SkillResult(output=output, data=counts)


# json-extract ----------------------------------------------------------------------------


def _path_steps(path: str) -> list[str | int]:
    """`a.b[0].c` or `a.b.0.c` as keys and indexes; `""` or `.` is the whole document."""
    if path.strip() in ("", "."):
        return []
    steps: list[str | int] = []
    for part in path.split("."):
        match = _PATH_PART.match(part)
        if not part or match is None:
            raise ValueError(f"bad path {path!r}: use keys and indexes like items[0].name")
        if match.group(1):
            steps.append(match.group(1))
        steps += [int(index) for index in _INDEX.findall(match.group(2))]
    return steps


def _label(walked: list[str | int]) -> str:
    if not walked:
        return "the document"
    text = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in walked)
    return repr(text.lstrip("."))


def _step_into(current: Any, step: str | int, walked: list[str | int]) -> Any:
    label = _label(walked)
    if isinstance(current, dict):
        if str(step) not in current:
            keys = ", ".join(list(current)[:10]) or "none"
            raise LookupError(f"{label} has no key {str(step)!r} (keys: {keys})")
        return current[str(step)]
    if isinstance(current, list):
        if isinstance(step, str) and not re.fullmatch(r"-?\d+", step):
            raise LookupError(f"{label} is a list; use an index, not {step!r}")
        index = int(step)
        if not -len(current) <= index < len(current):
            raise LookupError(f"{label} has {len(current)} items, no index {index}")
        return current[index]
    kind = "null" if current is None else type(current).__name__
    raise LookupError(f"{label} is {kind}, not an object or a list")


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large to read")
    return value


def _read_json(text: str) -> Any:
    """The JSON value of `text`, as JSON has it. Python's reader also takes NaN and Infinity
    and reads 1e999 as Infinity (each written back as no JSON: `NaN`, `Infinity`), and words
    a number of more than 4,300 digits as advice to call `sys.set_int_max_str_digits()`,
    which a workflow author cannot act on."""
    try:
        return json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            limit = sys.get_int_max_str_digits()
            raise ValueError(f"a number has more than {limit} digits") from None
        raise


def _json_check(args: ParsedArgs, static: bool) -> list[str]:
    problems: list[str] = []
    if _concrete(args["json"], static):
        try:
            _read_json(args["json"])
        except ValueError as exc:
            problems.append(f"{args.where('json')}: not valid JSON: {exc}")
        except RecursionError:  # the reader recurses once per level of nesting
            problems.append(f"{args.where('json')}: not valid JSON: nested too deeply")
    if _concrete(args["path"], static):
        try:
            _path_steps(args["path"])
        except ValueError as exc:
            problems.append(f"{args.where('path')}: {exc}")
    return problems


def json_extract(args: ParsedArgs) -> SkillResult:
    """The value at a dotted path of a JSON text; strings as they are, the rest as JSON."""
    _fail(_json_check(args, static=False))
    current: Any = _read_json(args["json"])
    walked: list[str | int] = []
    try:
        for step in _path_steps(args["path"]):
            current = _step_into(current, step, walked)
            walked.append(step)
    except LookupError as exc:
        if args["default"] is not None:
            return SkillResult(output=args["default"], data={"found": False})
        where = args.where("path")
        raise StepActionFailed(f"{where}: path {args['path']!r} not found: {exc}") from None
    output = current if isinstance(current, str) else json.dumps(current, ensure_ascii=False)
    return SkillResult(output=output, data={"found": True, "value": current})


# regex-extract ---------------------------------------------------------------------------


# The `regex` library, not `re`: `re` holds the interpreter for the whole of a match and takes
# no timeout, so a pattern that backtracks without end (`(a|aa)+$` on sixty `a`s and a `!`),
# matched in the skills' worker thread, stalled every run and request of the workflow service,
# its own timeout included, until it was restarted. `regex` matches with the interpreter
# released (`concurrent`) and gives up at the step's timeout; its syntax is `re`'s (VERSION0).


def _compiled(args: ParsedArgs) -> Any:
    return regex.compile(args["pattern"], regex.IGNORECASE if args["ignore_case"] else 0)


def _regex_check(args: ParsedArgs, static: bool) -> list[str]:
    if not _concrete(args["pattern"], static):
        return []
    try:
        pattern = _compiled(args)
    except regex.error as exc:
        return [f"{args.where('pattern')}: bad regular expression: {exc}"]
    group = args["group"]
    if not _concrete(group, static):
        return []
    where = args.where("group")
    if group.isdigit() and int(group) > pattern.groups:
        return [f"{where}: --group {group} but the pattern has {pattern.groups} group(s)"]
    if not group.isdigit() and group not in pattern.groupindex:
        named = ", ".join(pattern.groupindex) or "none"
        return [f"{where}: --group {group!r} is not a named group (named groups: {named})"]
    return []


def regex_extract(args: ParsedArgs, timeout: float) -> SkillResult:
    """The first match (group 1 when the pattern has groups), or every match with `--all`;
    `TimeoutError` once matching has taken `timeout` seconds."""
    _fail(_regex_check(args, static=False))
    pattern, text = _compiled(args), args["text"]
    group: str | int = args["group"] or (1 if pattern.groups else 0)
    if isinstance(group, str) and group.isdigit():
        group = int(group)
    if args["all"]:
        found = list(pattern.finditer(text, concurrent=True, timeout=timeout))
    else:
        found = [pattern.search(text, concurrent=True, timeout=timeout)]
    matches = [match.group(group) or "" for match in found if match is not None]
    return SkillResult(
        output="\n".join(matches), data={"matched": bool(matches), "matches": matches}
    )


# join ------------------------------------------------------------------------------------


def join(args: ParsedArgs) -> SkillResult:
    """The items joined by `--sep` (a newline by default); `--skip-empty` drops empty ones."""
    items = [item for item in args["item"] if item or not args["skip_empty"]]
    return SkillResult(output=args["sep"].join(items), data={"count": len(items)})


TEXT_SKILLS = (
    TextSkill(
        "word-count",
        ArgSpec(
            positionals=(Positional("text", many=True),),
            options=(Option("--only", choices=("words", "lines", "chars")),),
        ),
        _untimed(word_count),
        "Words, lines and characters of the text",
    ),
    TextSkill(
        "json-extract",
        ArgSpec(
            positionals=(Positional("json"), Positional("path")),
            options=(Option("--default"),),
        ),
        _untimed(json_extract),
        "A value from JSON text by dotted path",
        _json_check,
    ),
    TextSkill(
        "regex-extract",
        ArgSpec(
            positionals=(Positional("text"), Positional("pattern")),
            options=(
                Option("--all", kind="flag", default=False),
                Option("--group"),
                Option("--ignore-case", kind="flag", default=False),
            ),
        ),
        regex_extract,
        "The first (or every) match of a regular expression",
        _regex_check,
    ),
    TextSkill(
        "join",
        ArgSpec(
            positionals=(Positional("item", many=True),),
            options=(
                Option("--sep", default="\n"),
                Option("--skip-empty", kind="flag", default=False),
            ),
        ),
        _untimed(join),
        "The items joined by a separator",
    ),
)
