"""Loading workflow definitions from a folder of YAML/JSON files, validated before start."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Protocol

import yaml
from pydantic import ValidationError

from baton_contracts.documents import as_yaml_writes, read_json, yaml_loader
from baton_contracts.ids import PATTERN_MISMATCH
from baton_contracts.storable import all_unstorable
from baton_workflow.domain.definitions import StepDefinition, WorkflowDefinition
from baton_workflow.domain.errors import DefinitionInvalid

SUFFIXES = {".yaml", ".yml", ".json"}


class KnownCheckers(Protocol):
    """The checker registry as definitions see it: its names and what each's params need."""

    def names(self) -> set[str]: ...

    def params_problems(
        self, name: str, params: dict[str, Any], step: StepDefinition | None = None
    ) -> list[str]: ...


def load_definitions(folder: Path, checkers: KnownCheckers) -> dict[str, WorkflowDefinition]:
    """Every definition in `folder` by id; the first invalid file raises `DefinitionInvalid`."""
    if not folder.is_dir():
        raise DefinitionInvalid(str(folder), ["not a folder of workflow definitions"])
    found: dict[str, WorkflowDefinition] = {}
    origin: dict[str, Path] = {}
    for path in sorted(p for p in folder.iterdir() if _is_definition_file(p)):
        definition = load_definition(path, checkers)
        if definition.id in found:
            first = origin[definition.id]  # both files named: the author must pick one
            raise DefinitionInvalid(
                str(path), [f"id: {definition.id!r} is already defined in {first}"]
            )
        found[definition.id], origin[definition.id] = definition, path
    if not found:
        raise DefinitionInvalid(
            str(folder),
            [
                "no workflow definitions (*.yaml, *.yml, *.json) found; "
                "files whose name starts with '.' are skipped"
            ],
        )
    return found


def _is_definition_file(path: Path) -> bool:
    # A dotfile is never an author's definition: macOS leaves `._x.yaml` (binary metadata),
    # Emacs `.#x.yaml` (a lock, often a dangling link), Vim `.x.yaml.swp`. Read as one, any of
    # them would stop the service.
    # `MINE.YAML`, as a Windows tool may save it, is as much a definition: skipped, it left its
    # workflow out of the service without a word, and every start of it a 404.
    return path.suffix.lower() in SUFFIXES and not path.name.startswith(".")


def load_definition(path: Path, checkers: KnownCheckers) -> WorkflowDefinition:
    """One file, parsed and validated; problems name the step and the field."""
    raw = _parse(path)
    if not isinstance(raw, dict):  # pydantic would name its own class, not the mistake
        problem = (
            "the file is empty; a definition is a mapping with id and steps"
            if raw is None
            else f"a {type(raw).__name__}, not a mapping with id and steps"
        )
        raise DefinitionInvalid(str(path), [f"document: {problem}"])
    if not_finite := _not_finite(raw, yaml_written=path.suffix.lower() != ".json"):
        raise DefinitionInvalid(str(path), not_finite)
    try:
        definition = WorkflowDefinition.model_validate(raw)
    except ValidationError as exc:
        raise DefinitionInvalid(str(path), [_locate(raw, e) for e in exc.errors()]) from None
    known, problems = checkers.names(), []
    for i, step in enumerate(definition.steps):
        for j, criterion in enumerate(step.completion_criteria):
            where = f"steps[{i}] ({step.id}).completion_criteria[{j}]"
            if criterion.checker not in known:
                problems.append(f"{where}.checker: unknown checker {criterion.checker!r}")
                continue
            problems.extend(
                f"{where}.params.{problem}"
                for problem in checkers.params_problems(criterion.checker, criterion.params, step)
            )
    if problems:
        raise DefinitionInvalid(str(path), problems)
    return definition


def _parse(path: Path) -> Any:
    # A key given twice is a mistake (which one was meant?), not a silent override.
    try:
        # utf-8-sig: a byte-order mark (Windows editors write one) marks the encoding, it is
        # not content; `json` refuses a document that starts with one.
        text = path.read_text(encoding="utf-8-sig")
        if path.suffix.lower() == ".json":
            return read_json(text)
        return yaml.load(text, Loader=yaml_loader())  # a SafeLoader: no Python objects
    except UnicodeDecodeError as exc:
        raise DefinitionInvalid(str(path), [f"cannot be read: {_not_utf8(exc)}"]) from None
    except RecursionError:  # the JSON reader recurses once per level: YAML stops at TooDeep
        # Uncaught, it ended the service with a traceback that named no file.
        raise DefinitionInvalid(str(path), [f"cannot be read: {TOO_DEEP_FOR_JSON}"]) from None
    except yaml.MarkedYAMLError as exc:
        raise DefinitionInvalid(str(path), [f"cannot be read: {_yaml_problem(exc)}"]) from None
    except (OSError, ValueError, yaml.YAMLError) as exc:
        one_line = " ".join(str(exc).split())  # YAML errors span lines; the service prints one
        raise DefinitionInvalid(str(path), [f"cannot be read: {one_line}"]) from None


def _yaml_problem(exc: Any) -> str:
    """PyYAML's error on one line, its places as line and column: its own text named the text
    `in "<unicode string>"` twice, a name no author gave it, in a line that names the file."""
    problem = exc.problem or "not valid YAML"
    if exc.problem_mark is not None:
        problem += f" at {_place(exc.problem_mark)}"
    if exc.context:
        context = exc.context
        if exc.context_mark is not None:
            context += f" (started at {_place(exc.context_mark)})"
        problem = f"{context}: {problem}"
    return f"not valid YAML: {problem}"


def _place(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


TOO_DEEP_FOR_JSON = "it nests objects and lists deeper than the JSON reader follows"


def _not_utf8(exc: UnicodeDecodeError) -> str:
    """Where the first byte that is not UTF-8 is, as an editor counts lines and columns.

    Python says `byte 0xe9 in position 61`: an offset into the file that no editor shows, in
    a file saved as Latin-1 or Windows-1252 (`café`), where the author has to find the one
    character to retype or the file to save again as UTF-8."""
    before = exc.object[: exc.start]
    line_start = before.rfind(b"\n") + 1
    column = len(before[line_start:].decode("utf-8", "replace").lstrip("\ufeff")) + 1
    line = before.count(b"\n") + 1
    bad = " ".join(f"0x{byte:02x}" for byte in exc.object[exc.start : exc.end])
    what = f"byte {bad} is" if exc.end - exc.start == 1 else f"bytes {bad} are"
    return f"line {line}, column {column}: {what} not UTF-8; save the file as UTF-8"


def _not_finite(raw: dict[str, Any], yaml_written: bool) -> list[str]:
    """Every NaN or infinite number in the document, each where it is. Typed fields refuse
    them anyway; a checker's params without a model of their own took them as they came, a
    bound of NaN then passing or failing every check, and JSON has neither to send on."""
    return [
        f"{_where(raw, found.loc)}: must be a finite number, got {_written(value, yaml_written)}"
        for found in all_unstorable(raw, nul=False)
        if found.kind == "number" and isinstance(value := _at(raw, found.loc), float)
    ]


def _at(raw: Any, loc: tuple[str | int, ...]) -> Any:
    for token in loc:
        raw = raw[token]
    return raw


def _written(value: float, yaml_written: bool) -> str:
    """As the author wrote it: `.nan` and `.inf` in YAML, `NaN` and `Infinity` in JSON (which
    reads a number too large for a float, `1e999`, as Infinity too)."""
    if yaml_written:
        return as_yaml_writes(value)
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _where(raw: Any, loc: Any) -> str:
    """`steps[1] (discovery).completion_criteria[0].params.min_facts` for a location."""
    parts: list[str] = []
    loc = list(loc)
    for i, token in enumerate(loc):
        if isinstance(token, int):
            if not parts:
                parts.append("document")
            parts[-1] += f"[{token}]"
            if loc[:i] == ["steps"]:
                parts[-1] += _step_name(raw, token)
        else:
            parts.append(str(token))
    return ".".join(parts)


def _locate(raw: Any, error: Any) -> str:
    """`steps[1] (discovery).max_messages: Input should be ...` from a pydantic error.

    A model's own rule (a `ValueError`) already begins with the field it concerns, relative
    to that model: it is appended to the location as it is, without pydantic's "Value error".
    """
    where = _where(raw, error["loc"]) or "document"
    if error["type"] == "value_error":
        rule = str(error["ctx"]["error"])
        return f"{where}.{rule}" if error["loc"] else rule
    # "should be a valid integer" reads wrong next to `"5"`; a form in words wants the value
    # it refused next to it, as the author may not see which character broke it.
    if error["type"].endswith("_type") or error["type"] == PATTERN_MISMATCH:
        return f"{where}: {error['msg']}, got {_given(error.get('input'))}"
    return f"{where}: {error['msg']}"


def _given(value: Any) -> str:
    """What the author wrote, as YAML and JSON spell it: `the string "5"`, `the number 5.0`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else f"{value[:40]}..."
        return f"the string {json.dumps(shown, ensure_ascii=False)}"
    return "a mapping" if isinstance(value, dict) else f"a {type(value).__name__}"


def _step_name(raw: Any, index: int) -> str:
    try:
        return f" ({raw['steps'][index]['id']})"
    except (KeyError, IndexError, TypeError):
        return ""
