"""Definition validation: each rule names the step and field it concerns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from baton_workflow.adapters.definitions import load_definition, load_definitions
from baton_workflow.domain.definitions import WorkflowDefinition, stranded
from baton_workflow.domain.errors import DefinitionInvalid
from baton_workflow.service.checkers import CheckerRegistry, builtin_checkers

from .conftest import DEFINITIONS, load


def steps(*specs: dict[str, Any]) -> dict[str, Any]:
    return {"id": "wf", "steps": list(specs)}


def step(step_id: str, nxt: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "agent_slug": "a", "next_step": nxt, **extra}


def problems_of(folder: Path, document: dict[str, Any]) -> list[str]:
    """The problems `load_definition` finds in `document`, written to a YAML file in `folder`."""
    path = folder / "wf.yaml"
    path.write_text(yaml.safe_dump(document))
    with pytest.raises(DefinitionInvalid) as caught:
        load_definition(path, builtin_checkers())
    return caught.value.problems


def test_shipped_definitions_follow_the_seeds() -> None:
    onboarding, classic = load("onboarding.yaml"), load("onboarding-classic.yaml")
    limits = [(s.id, s.min_messages, s.max_messages) for s in onboarding.path()]
    assert limits == [
        ("greeting", 2, 10),
        ("discovery", 5, 30),
        ("brain_dump", 3, 20),
        ("setup_complete", 1, 1),
    ]
    assert onboarding.step("discovery").completion_criteria[1].params == {
        "min_facts": 3,
        "category": "priorities",
    }
    assert [s.id for s in classic.path()][-1] == "completed"
    assert classic.step("brain_dump").completion_criteria[1].checker == "widget_completed"


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (steps(step("a", "b"), step("b")) | {"id": "Bad Id"}, "id"),
        (steps(step("a", "zzz"), step("b")), "steps[0] (a).next_step: unknown step 'zzz'"),
        (steps(step("a", "b"), step("b", "a")), "the last step ends the workflow"),
        (steps(step("a"), step("b")), "only the last step may end the workflow"),
        (steps(step("a", "a"), step("b")), "cycle"),
        (steps(step("a", "b"), step("a")), "steps[1] (a).id: repeated"),
        (steps(step("a", min_messages=5, max_messages=2)), "min_messages: 5 is above"),
        (steps(step("a", surprise=1)), "surprise"),
        (steps(), "steps"),
    ],
)
def test_invalid_definitions_say_what_is_wrong(document: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError) as caught:
        WorkflowDefinition.model_validate(document)
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("criterion", "problem"),
    [
        (
            {"checker": "inbox_items", "params": {"min_item": 3}},
            "params.min_item: Extra inputs are not permitted",
        ),
        (
            {"checker": "memory_facts", "params": {"min_facts": "three"}},
            "params.min_facts: Input should be a valid integer",
        ),
        (
            {"checker": "memory_facts", "params": {"min_facts": -1}},
            "params.min_facts: Input should be greater than or equal to 0",
        ),
        (
            {"checker": "memory_facts", "params": {"category": "p" * 65}},
            "params.category: String should have at most 64 characters",
        ),
        ({"checker": "widget_completed"}, "params.widget_type: Field required"),
        ({"checker": "agent_signal", "params": {"x": 1}}, "params.x: Extra inputs"),
    ],
)
def test_checker_params_are_checked_when_definitions_load(
    tmp_path: Path, criterion: dict[str, Any], problem: str
) -> None:
    [found] = problems_of(tmp_path, steps(step("a", completion_criteria=[criterion])))
    assert found.startswith(f"steps[0] (a).completion_criteria[0].{problem}"), found


def test_a_min_messages_criterion_above_the_steps_max_messages_is_refused(
    tmp_path: Path,
) -> None:
    # The exchange reaching max_messages closes the step forced: `min: 9` on a step of at most
    # 5 was never met, and every instance left the step forced, with a warning.
    unreachable = {"checker": "min_messages", "params": {"min": 9}}
    [found] = problems_of(
        tmp_path, steps(step("a", max_messages=5, completion_criteria=[unreachable]))
    )
    assert found == (
        "steps[0] (a).completion_criteria[0].params.min: 9 is above the step's max_messages "
        "(5); the step closes forced at max_messages, so this criterion could never be met"
    )
    at_most = {"checker": "min_messages", "params": {"min": 5}}  # met by the fifth exchange
    document = steps(step("a", max_messages=5, completion_criteria=[at_most]))
    (tmp_path / "wf.yaml").write_text(yaml.safe_dump(document))
    load_definition(tmp_path / "wf.yaml", builtin_checkers())


@pytest.mark.parametrize("name", ["onboarding.yaml", "onboarding-classic.yaml"])
def test_shipped_definitions_fit_their_checkers_params(name: str) -> None:
    load_definition(DEFINITIONS / name, builtin_checkers())


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (steps(step("a", "zzz"), step("b")), "steps[0] (a).next_step: unknown step 'zzz'"),
        (
            steps(step("a", "b"), step("a", "b"), step("b")),
            "steps[1] (a).id: repeated; steps[0] has it too",
        ),
        (
            steps(step("a", "b"), step("b", "a"), step("c")),
            "steps[1] (b).next_step: 'a' comes earlier on the path; next_step may not form a cycle",
        ),
        (
            steps(step("a"), step("b")),
            "steps[0] (a).next_step: missing; only the last step may end the workflow",
        ),
        (
            steps(step("a", "b"), step("b", "a")),
            "steps[1] (b).next_step: must be left out; the last step ends the workflow",
        ),
        (
            steps(step("a", "c"), step("b", "c"), step("c")),
            "steps[1] (b): never reached from 'a'; no next_step leads to it",
        ),
        (
            steps(step("a", min_messages=5, max_messages=2)),
            "steps[0] (a).min_messages: 5 is above max_messages (2)",
        ),
    ],
)
def test_path_mistakes_name_the_step_and_the_field(
    tmp_path: Path, document: dict[str, Any], problem: str
) -> None:
    assert problems_of(tmp_path, document) == [problem]


@pytest.mark.parametrize("slug", ["Greeter", "greeter ", "inbox collector", "a.b", "x" * 65])
def test_an_agent_slug_no_agent_profile_can_have_is_refused(tmp_path: Path, slug: str) -> None:
    # The agent-runner's profiles and its `agent.cmd.run` take only [a-z0-9_-], at most 64:
    # such a step could never be served, and every chat turn on it would fail.
    [found] = problems_of(tmp_path, steps(step("a", agent_slug=slug)))
    assert found == (
        "steps[0] (a).agent_slug: an agent slug is 1 to 64 lower-case letters, digits, '-' or "
        f"'_', got the string {json.dumps(slug if len(slug) <= 40 else slug[:40] + '...')}"
    )


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (
            steps(step("a")) | {"id": "Onboarding"},
            "id: a workflow id is 1 to 63 lower-case letters, digits, '-' or '_', starting "
            'with a letter, got the string "Onboarding"',
        ),
        (
            steps(step("a", "brain dump"), step("brain dump")),
            "steps[1] (brain dump).id: a step id is 1 to 63 lower-case letters, digits, '-' or "
            "'_', starting with a letter, got the string \"brain dump\"",
        ),
        (
            steps(step("1st")),
            "steps[0] (1st).id: a step id is 1 to 63 lower-case letters, digits, '-' or '_', "
            'starting with a letter, got the string "1st"',
        ),
    ],
)
def test_an_id_that_misses_its_form_is_told_the_form_in_words(
    tmp_path: Path, document: dict[str, Any], problem: str
) -> None:
    # The service stops on this message; a regex (`^[a-z][a-z0-9_-]{0,62}$`) is for a reader
    # of the source, not for the author of a definition file.
    found = problems_of(tmp_path, document)
    assert problem in found
    assert not any("pattern" in p for p in found)


def test_two_files_with_one_workflow_id_are_both_named(tmp_path: Path) -> None:
    document = steps(step("a"))
    (tmp_path / "first.yaml").write_text(yaml.safe_dump(document))
    (tmp_path / "second.json").write_text(json.dumps(document))
    with pytest.raises(DefinitionInvalid) as caught:
        load_definitions(tmp_path, builtin_checkers())
    assert caught.value.source == str(tmp_path / "second.json")
    assert caught.value.problems == [f"id: 'wf' is already defined in {tmp_path / 'first.yaml'}"]


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        (
            "wf.yaml",
            "id: wf\nsteps:\n  - id: a\n    agent_slug: x\n    max_messages: 30\n"
            "    max_messages: 3\n",
            "key 'max_messages' is given twice",
        ),
        ("wf.yaml", "id: wf\nid: other\nsteps: [{id: a, agent_slug: x}]\n", "'id' is given twice"),
        (
            "wf.json",
            '{"id": "wf", "steps": [{"id": "a", "agent_slug": "x", "is_required": true, '
            '"is_required": false}]}',
            "key 'is_required' is given twice",
        ),
    ],
)
def test_a_key_given_twice_is_refused_not_read_as_the_last(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DefinitionInvalid) as caught:
        load_definition(path, builtin_checkers())
    [found] = caught.value.problems
    assert found.startswith("cannot be read: ") and problem in found, found


def test_a_merged_key_may_still_be_overridden(tmp_path: Path) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text(
        "id: wf\nsteps:\n  - &chat {id: a, agent_slug: x, max_messages: 9, next_step: b}\n"
        "  - <<: *chat\n    id: b\n    next_step: null\n"
    )
    assert load_definition(path, builtin_checkers()).step("b").max_messages == 9


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("wf.yaml", "", "document: the file is empty; a definition is a mapping with id and steps"),
        ("wf.yaml", "# only a comment\n", "document: the file is empty; a definition is"),
        ("wf.yaml", "- id: a\n", "document: a list, not a mapping with id and steps"),
        ("wf.json", '"onboarding"', "document: a str, not a mapping with id and steps"),
    ],
)
def test_an_empty_or_shapeless_file_says_so(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DefinitionInvalid) as caught:
        load_definition(path, builtin_checkers())
    [found] = caught.value.problems
    assert found.startswith(problem), found


@pytest.mark.parametrize("name", ["wf.json", "wf.yaml"])
def test_a_file_saved_with_a_byte_order_mark_loads(tmp_path: Path, name: str) -> None:
    # Windows editors save UTF-8 with a BOM; it marks the encoding, it is not content.
    path = tmp_path / name
    dump = json.dumps if name.endswith(".json") else yaml.safe_dump
    path.write_text(dump(steps(step("a"))), encoding="utf-8-sig")
    assert load_definition(path, builtin_checkers()).id == "wf"


@pytest.mark.parametrize(
    ("encoded", "where"),
    [
        # Saved as Windows-1252: `é` is one byte, 0xe9, after "    title: caf".
        ("id: wf\nsteps:\n  - id: a\n    agent_slug: a\n    title: café\n", "line 5, column 15"),
        # The byte-order mark is not a column; the character before the bad byte is (`ß`, 2).
        ("\ufeffid: wf\ntitle: ßé\n", "line 2, column 9"),
    ],
)
def test_a_file_not_in_utf8_is_told_the_line_and_column(
    tmp_path: Path, encoded: str, where: str
) -> None:
    # Python's own "byte 0xe9 in position 61" is an offset no editor shows.
    path = tmp_path / "wf.yaml"
    data = encoded.encode("utf-8")
    path.write_bytes(data.replace("é".encode(), "é".encode("cp1252")))
    with pytest.raises(DefinitionInvalid) as caught:
        load_definition(path, builtin_checkers())
    assert caught.value.problems == [
        f"cannot be read: {where}: byte 0xe9 is not UTF-8; save the file as UTF-8"
    ]


def test_a_suffix_in_capitals_is_a_definition_too(tmp_path: Path) -> None:
    # `INTAKE.YAML`, as a Windows tool may save it, was skipped without a word next to other
    # definitions: its workflow was missing, and every start of it answered 404.
    (tmp_path / "wf.yaml").write_text(yaml.safe_dump(steps(step("a"))))
    (tmp_path / "INTAKE.YAML").write_text(yaml.safe_dump({**steps(step("a")), "id": "intake"}))
    (tmp_path / "Notes.Json").write_text(json.dumps({**steps(step("a")), "id": "notes"}))
    (tmp_path / "README.md").write_text("# our workflows")  # not a definition
    assert sorted(load_definitions(tmp_path, builtin_checkers())) == ["intake", "notes", "wf"]


def test_a_json_file_nested_past_the_readers_depth_is_named_not_a_traceback(
    tmp_path: Path,
) -> None:
    # The JSON reader recurses once per level: its RecursionError ended the service with a
    # traceback naming no file (a YAML file stops at 64 levels, as `TooDeep`).
    path = tmp_path / "wf.json"
    path.write_text('{"id": "wf", "steps": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(DefinitionInvalid) as caught:
        load_definitions(tmp_path, builtin_checkers())
    assert caught.value.source == str(path)
    assert caught.value.problems == [
        "cannot be read: it nests objects and lists deeper than the JSON reader follows"
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "id: wf\nsteps:\n  - id: a\n    agent_slug: [greeter\n",
            # libyaml's words; what is checked is the shape, which PyYAML's own parser shares
            (
                "while parsing a flow sequence (started at line 4, column 17): ",
                "at line 5, column 1",
            ),
        ),
        (
            "id: wf\nid: other\nsteps: [{id: a, agent_slug: x}]\n",
            ("key 'id' is given twice at line 2, column 1", ""),
        ),
    ],
)
def test_a_yaml_mistake_is_told_by_line_and_column_on_one_line(
    tmp_path: Path, text: str, problem: tuple[str, str]
) -> None:
    # PyYAML's own text named the file `in "<unicode string>"`, twice, in a line that names it.
    path = tmp_path / "wf.yaml"
    path.write_text(text)
    with pytest.raises(DefinitionInvalid) as caught:
        load_definition(path, builtin_checkers())
    [found] = caught.value.problems
    starts, ends = problem
    assert found.startswith(f"cannot be read: not valid YAML: {starts}"), found
    assert found.endswith(ends) and "<unicode string>" not in found, found


def _hidden_files(folder: Path) -> None:
    """What macOS and editors leave next to a definition: none of it is a definition."""
    (folder / "._wf.yaml").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")
    (folder / ".#wf.yaml").symlink_to("alice@host.1234:1700000000")  # Emacs lock: dangling
    (folder / ".wf.yaml.swp").write_bytes(b"b0VIM 9.0\x00")
    (folder / ".draft.json").write_text("{")


def test_hidden_files_in_the_folder_are_not_definitions(tmp_path: Path) -> None:
    (tmp_path / "wf.yaml").write_text(yaml.safe_dump(steps(step("a"))))
    _hidden_files(tmp_path)
    assert list(load_definitions(tmp_path, builtin_checkers())) == ["wf"]


def test_an_invalid_file_next_to_hidden_ones_still_stops_the_load(tmp_path: Path) -> None:
    (tmp_path / "wf.yaml").write_text(yaml.safe_dump(steps(step("a", max_messages="ten"))))
    _hidden_files(tmp_path)
    with pytest.raises(DefinitionInvalid) as caught:
        load_definitions(tmp_path, builtin_checkers())
    assert caught.value.source == str(tmp_path / "wf.yaml")


def test_a_folder_of_only_hidden_files_says_they_are_skipped(tmp_path: Path) -> None:
    _hidden_files(tmp_path)
    with pytest.raises(DefinitionInvalid) as caught:
        load_definitions(tmp_path, builtin_checkers())
    assert caught.value.problems == [
        "no workflow definitions (*.yaml, *.yml, *.json) found; "
        "files whose name starts with '.' are skipped"
    ]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("is_required", "yes", 'Input should be a valid boolean, got the string "yes"'),
        ("is_required", "false", 'Input should be a valid boolean, got the string "false"'),
        ("is_required", 1, "Input should be a valid boolean, got the number 1"),
        ("is_required", 0, "Input should be a valid boolean, got the number 0"),
        ("min_messages", "5", 'Input should be a valid integer, got the string "5"'),
        ("min_messages", 5.0, "Input should be a valid integer, got the number 5.0"),
        ("min_messages", True, "Input should be a valid integer, got the boolean true"),
        ("max_messages", "10", 'Input should be a valid integer, got the string "10"'),
        ("max_messages", None, "Input should be a valid integer, got null"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_not_converted(
    tmp_path: Path, field: str, value: Any, problem: str
) -> None:
    # A definition is written by people: "yes" or "5" in quotes, or 5.0, is a mistake to
    # point at, not a value to guess (pydantic's lax mode read "false" as False, 5.0 as 5).
    path = tmp_path / "wf.json"
    path.write_text(json.dumps(steps(step("a", "b"), step("b", **{field: value}))))
    with pytest.raises(DefinitionInvalid) as caught:
        load_definition(path, builtin_checkers())
    assert caught.value.source == str(path)
    assert caught.value.problems == [f"steps[1] (b).{field}: {problem}"]


def test_yaml_booleans_and_whole_numbers_load_as_written(tmp_path: Path) -> None:
    # YAML gives real bools (`true`, and YAML 1.1's `yes`/`no`) and ints: no coercion needed.
    path = tmp_path / "wf.yaml"
    path.write_text(
        "id: wf\nsteps:\n  - {id: a, agent_slug: x, is_required: no, min_messages: 2, "
        "max_messages: 4, next_step: b}\n  - {id: b, agent_slug: y, is_required: true}\n"
    )
    definition = load_definition(path, builtin_checkers())
    a, b = definition.path()
    assert (a.is_required, a.min_messages, a.max_messages, b.is_required) == (False, 2, 4, True)


def _free_params_checkers() -> CheckerRegistry:
    """The built-in checkers and one whose params have no model: it takes them as they come."""
    registry = builtin_checkers()

    @registry.register("score_at_least")
    async def score_at_least(ctx: Any, params: dict[str, Any]) -> Any:  # pragma: no cover
        raise AssertionError("never run: the definition is only loaded")

    return registry


@pytest.mark.parametrize(
    ("name", "text", "problems"),
    [
        (
            "wf.json",
            '{"id": "wf", "steps": [{"id": "a", "agent_slug": "x", "completion_criteria":'
            ' [{"checker": "score_at_least", "params": {"min": NaN, "at": [1, Infinity]}}],'
            ' "next_step": "b"}, {"id": "b", "agent_slug": "y", "title": "t",'
            ' "completion_criteria": [{"checker": "score_at_least",'
            ' "params": {"max": -Infinity, "big": 1e999}}]}]}',
            [
                "steps[0] (a).completion_criteria[0].params.min: must be a finite number, got NaN",
                "steps[0] (a).completion_criteria[0].params.at[1]: "
                "must be a finite number, got Infinity",
                "steps[1] (b).completion_criteria[0].params.max: "
                "must be a finite number, got -Infinity",
                "steps[1] (b).completion_criteria[0].params.big: "
                "must be a finite number, got Infinity",
            ],
        ),
        (
            "wf.yaml",
            "id: wf\nsteps:\n  - id: a\n    agent_slug: x\n    next_step: b\n"
            "    completion_criteria:\n      - checker: score_at_least\n"
            "        params: {min: .nan, at: [1, .inf]}\n"
            "  - id: b\n    agent_slug: y\n    completion_criteria:\n"
            "      - {checker: score_at_least, params: {max: -.Inf}}\n",
            [
                "steps[0] (a).completion_criteria[0].params.min: must be a finite number, got .nan",
                "steps[0] (a).completion_criteria[0].params.at[1]: "
                "must be a finite number, got .inf",
                "steps[1] (b).completion_criteria[0].params.max: "
                "must be a finite number, got -.inf",
            ],
        ),
    ],
)
def test_a_nan_or_infinite_number_stops_the_load_naming_file_step_and_field(
    tmp_path: Path, name: str, text: str, problems: list[str]
) -> None:
    # Without a params model the checker took NaN as given: a bound that every comparison
    # fails (or passes), and a number JSON has no way to send to the agent-runner.
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DefinitionInvalid) as caught:
        load_definition(path, _free_params_checkers())
    assert caught.value.source == str(path)
    assert caught.value.problems == problems


def test_finite_numbers_in_free_params_still_load(tmp_path: Path) -> None:
    path = tmp_path / "wf.yaml"
    path.write_text(
        "id: wf\nsteps:\n  - id: a\n    agent_slug: x\n    completion_criteria:\n"
        "      - {checker: score_at_least, params: {min: 0.5, at: [1, -2.5]}}\n"
    )
    definition = load_definition(path, _free_params_checkers())
    assert definition.steps[0].completion_criteria[0].params == {"min": 0.5, "at": [1, -2.5]}


def test_a_dropped_workflow_is_one_problem_counting_its_instances_on_every_step() -> None:
    # Two active instances of a dropped workflow, on two steps, were two lines each saying "1
    # active instance(s)", and neither named its step.
    onboarding = load("onboarding.yaml")
    active = {
        ("survey", "ask"): 1,
        ("survey", "thanks"): 2,
        ("onboarding", "greeting"): 4,
        ("onboarding", "hello"): 1,
    }
    assert stranded(active, {"onboarding": onboarding}) == [
        "onboarding.steps: no step 'hello', but 1 active instance(s) are on it; keep the step "
        "until they have moved on",
        "survey: no longer defined, but 3 active instance(s) are of it (1 on 'ask', 2 on "
        "'thanks'); keep it until they have completed",
    ]
