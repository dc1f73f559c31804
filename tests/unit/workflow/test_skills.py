"""Skills of `skill` steps: argument parsing, the offline text skills, the registry, plug-ins."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from baton_workflow.adapters.skill_args import ArgSpec, ArgumentProblems, Option, Positional
from baton_workflow.adapters.skills import SkillRegistry, build_skills
from baton_workflow.adapters.tools import StepToolsConfig
from baton_workflow.service.step_ports import (
    SkillResult,
    Skills,
    StepActionFailed,
    StepTimedOut,
    UnknownSkill,
)

SHIPPED = ["join", "json-extract", "regex-extract", "web-search", "word-count"]


@pytest.fixture(scope="module")
def skills() -> SkillRegistry:
    return build_skills()


async def run(skills: Skills, name: str, *args: str) -> SkillResult:
    return await skills.run(name, list(args), timeout=5)


async def failure(skills: Skills, name: str, *args: str) -> str:
    with pytest.raises(StepActionFailed) as caught:
        await skills.run(name, list(args), timeout=5)
    return caught.value.message


# The argument parser ---------------------------------------------------------------------

SPEC = ArgSpec(
    positionals=(Positional("text"), Positional("rest", many=True, optional=True)),
    options=(
        Option("--depth", kind="int", default=3, minimum=1, maximum=5),
        Option("--mode", choices=("a", "b")),
        Option("--all", kind="flag", default=False),
    ),
)


def test_parser_reads_positionals_options_flags_and_equals_form() -> None:
    parsed = SPEC.parse("demo", ["x", "--depth", "4", "y", "--all", "--mode=b", "z"])
    assert parsed.values == {"text": "x", "rest": ["y", "z"], "depth": 4, "mode": "b", "all": True}
    assert parsed.where("depth") == "skillArgs[2]"
    assert parsed.where("mode") == "skillArgs[5]"


def test_parser_defaults_when_options_are_absent() -> None:
    assert SPEC.parse("demo", ["x"]).values == {
        "text": "x",
        "rest": [],
        "depth": 3,
        "mode": None,
        "all": False,
    }


def test_parser_reports_every_problem_naming_the_argument() -> None:
    with pytest.raises(ArgumentProblems) as caught:
        SPEC.parse("demo", ["--depth", "many", "--mode", "c", "--all=yes", "--depth"])
    assert caught.value.problems == [
        "skillArgs[1]: --depth expects a whole number, got 'many'",
        "skillArgs[3]: --mode must be one of a, b, got 'c'",
        "skillArgs[4]: --all takes no value",
        "skillArgs[5]: --depth needs a value",
        "skillArgs: missing <text> (usage: demo <text> [<rest>...] [--depth DEPTH] "
        "[--mode a|b] [--all])",
    ]


def test_parser_checks_integer_range() -> None:
    with pytest.raises(ArgumentProblems, match=r"skillArgs\[2\]: --depth must be between 1 and 5"):
        SPEC.parse("demo", ["x", "--depth", "9"])


def test_double_dash_ends_options() -> None:
    parsed = SPEC.parse("demo", ["--", "--all", "--depth"])
    assert parsed.values["text"] == "--all"
    assert parsed.values["rest"] == ["--depth"]
    assert parsed.values["all"] is False


def test_unknown_option_is_an_error_at_create_time_and_text_at_run_time() -> None:
    with pytest.raises(ArgumentProblems, match=r"skillArgs\[1\]: unknown option --al; known"):
        SPEC.parse("demo", ["x", "--al"], static=True)
    assert SPEC.parse("demo", ["x", "--al"]).values["rest"] == ["--al"]


def test_templated_values_are_left_for_run_time_at_create_time() -> None:
    parsed = SPEC.parse("demo", ["{{topic}}", "--depth", "{{depth}}"], static=True)
    assert parsed.values["depth"] == "{{depth}}"
    with pytest.raises(ArgumentProblems, match="expects a whole number"):
        SPEC.parse("demo", ["{{topic}}", "--depth", "{{depth}}"])


def test_extra_positional_is_unexpected() -> None:
    spec = ArgSpec(positionals=(Positional("one"),))
    with pytest.raises(ArgumentProblems, match=r"skillArgs\[1\]: unexpected argument 'two'"):
        spec.parse("demo", ["one", "two"])


# word-count ------------------------------------------------------------------------------


async def test_word_count_counts_words_lines_and_chars_of_all_texts(skills: Skills) -> None:
    result = await run(skills, "word-count", "hello big world", "bye")
    assert result.output == "4 words, 2 lines, 19 chars"
    assert result.data == {"words": 4, "lines": 2, "chars": 19}


async def test_word_count_only_gives_a_bare_number(skills: Skills) -> None:
    assert (await run(skills, "word-count", "a b\nc", "--only", "lines")).output == "2"


async def test_word_count_needs_text(skills: Skills) -> None:
    assert (await failure(skills, "word-count")).startswith("skillArgs: missing <text>...")


# json-extract ----------------------------------------------------------------------------

DOC = '{"items": [{"name": "a", "tags": ["x"]}, {"name": "b", "n": 2}], "ok": true}'


@pytest.mark.parametrize(
    ("path", "output"),
    [
        ("items[1].name", "b"),
        ("items.1.n", "2"),
        ("items[0].tags", '["x"]'),
        ("items[-1].name", "b"),
        ("ok", "true"),
        ("", DOC),
    ],
)
async def test_json_extract_picks_the_value_at_a_path(
    skills: Skills, path: str, output: str
) -> None:
    result = await run(skills, "json-extract", DOC, path)
    assert result.output == output


async def test_json_extract_missing_path_says_what_is_there(skills: Skills) -> None:
    message = await failure(skills, "json-extract", DOC, "items[1].title")
    assert message == (
        "skillArgs[1]: path 'items[1].title' not found: 'items[1]' has no key 'title' "
        "(keys: name, n)"
    )
    message = await failure(skills, "json-extract", DOC, "items[7]")
    assert message.endswith("'items' has 2 items, no index 7")
    message = await failure(skills, "json-extract", DOC, "ok.value")
    assert message.endswith("'ok' is bool, not an object or a list")


async def test_json_extract_default_replaces_a_missing_value(skills: Skills) -> None:
    result = await run(skills, "json-extract", DOC, "nope", "--default", "n/a")
    assert result.output == "n/a"


async def test_json_extract_bad_json_is_a_clear_error(skills: Skills) -> None:
    message = await failure(skills, "json-extract", "{not json", "a")
    assert message.startswith("skillArgs[0]: not valid JSON: Expecting property name")


async def test_json_extract_of_deeply_nested_json_is_a_clear_error(
    skills: SkillRegistry,
) -> None:
    # A page a tool fetched can be nested this deep; it once failed the step with
    # "internal error: RecursionError" and an error traceback in the log.
    deep = "[" * 100_000 + "]" * 100_000
    expected = "skillArgs[0]: not valid JSON: nested too deeply"
    assert await failure(skills, "json-extract", deep, "a") == expected
    assert skills.check("json-extract", [deep, "a"]) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Python's reader words this as advice to call sys.set_int_max_str_digits().
        ('{"id": ' + "1" * 5000 + "}", "a number has more than 4300 digits"),
        # Python's reader takes these, and the value came back as `NaN`, which is no JSON.
        ("[NaN]", "NaN is not a JSON value"),
        ('{"a": -Infinity}', "-Infinity is not a JSON value"),
        ("[1e999]", "the number 1e999 is too large to read"),
    ],
)
async def test_json_extract_reads_only_json_and_says_why_in_its_words(
    skills: SkillRegistry, text: str, expected: str
) -> None:
    message = f"skillArgs[0]: not valid JSON: {expected}"
    assert await failure(skills, "json-extract", text, "0") == message
    assert skills.check("json-extract", [text, "0"]) == [message]


def test_json_extract_static_checks_json_and_path(skills: SkillRegistry) -> None:
    assert skills.check("json-extract", ["[1", "a..b"]) == [
        "skillArgs[0]: not valid JSON: Expecting ',' delimiter: line 1 column 3 (char 2)",
        "skillArgs[1]: bad path 'a..b': use keys and indexes like items[0].name",
    ]
    assert skills.check("json-extract", ["{{steps.fetch.output}}", "data.id"]) == []


# regex-extract ---------------------------------------------------------------------------


async def test_regex_extract_first_match_prefers_group_one(skills: Skills) -> None:
    assert (await run(skills, "regex-extract", "id=42 id=7", r"id=(\d+)")).output == "42"
    assert (await run(skills, "regex-extract", "id=42", r"\d+")).output == "42"


async def test_regex_extract_all_and_named_group(skills: Skills) -> None:
    result = await run(
        skills, "regex-extract", "a=1 b=22", r"(?P<k>\w)=(?P<v>\d+)", "--all", "--group", "v"
    )
    assert result.output == "1\n22"
    assert result.data == {"matched": True, "matches": ["1", "22"]}


async def test_regex_extract_ignore_case(skills: Skills) -> None:
    result = await run(skills, "regex-extract", "Hello", "hello", "--ignore-case")
    assert result.output == "Hello"


async def test_regex_extract_no_match_is_empty_output(skills: Skills) -> None:
    result = await run(skills, "regex-extract", "abc", r"\d")
    assert result.output == ""
    assert result.data == {"matched": False, "matches": []}


async def test_regex_extract_bad_pattern_and_group(skills: SkillRegistry) -> None:
    assert (await failure(skills, "regex-extract", "x", "(")).startswith(
        "skillArgs[1]: bad regular expression: missing ) at position 1"
    )
    assert skills.check("regex-extract", ["x", "(a)", "--group", "2"]) == [
        "skillArgs[3]: --group 2 but the pattern has 1 group(s)"
    ]


# join ------------------------------------------------------------------------------------


async def test_join_with_separator_and_skip_empty(skills: Skills) -> None:
    assert (await run(skills, "join", "a", "b")).output == "a\nb"
    assert (await run(skills, "join", "a", "", "b", "--sep", ", ", "--skip-empty")).output == (
        "a, b"
    )


# web-search without a search URL ---------------------------------------------------------


async def test_web_search_unconfigured_says_which_setting(skills: Skills) -> None:
    message = await failure(skills, "web-search", "AI agents", "--depth", "3")
    assert message == "web-search is not configured: set BATON_WORKFLOW_SEARCH_URL"


def test_seed_web_search_example_is_valid(skills: SkillRegistry) -> None:
    assert skills.check("web-search", ["{{topic}}", "--depth", "3"]) == []
    assert skills.check("web-search", ["{{topic}}", "--depth", "0"]) == [
        "skillArgs[2]: --depth must be between 1 and 50, got 0"
    ]


# The registry ----------------------------------------------------------------------------


def test_registry_lists_the_shipped_skills(skills: SkillRegistry) -> None:
    assert skills.names() == SHIPPED


async def test_unknown_skill_lists_the_known_ones(skills: SkillRegistry) -> None:
    with pytest.raises(UnknownSkill) as caught:
        await skills.run("web-serch", [], timeout=1)
    assert caught.value.message == f"unknown skill 'web-serch'; known skills: {', '.join(SHIPPED)}"
    assert skills.check("web-serch", []) == [f"skill: {caught.value.message}"]


def test_check_reports_argument_and_value_problems_together(skills: SkillRegistry) -> None:
    assert skills.check("regex-extract", ["x", "(", "--al"]) == [
        "skillArgs[2]: unknown option --al; known options: --all, --group, --ignore-case "
        "(put -- before text that starts with --)",
        "skillArgs[1]: bad regular expression: missing ) at position 1",
    ]


def test_skill_name_is_not_a_template(skills: SkillRegistry) -> None:
    assert skills.check("{{which}}", ["x"])[0].startswith("skill: unknown skill '{{which}}'")


# Plug-ins --------------------------------------------------------------------------------

PLUGIN = """
import asyncio
from baton_workflow.adapters.skill_args import ArgSpec, Positional
from baton_workflow.adapters.skills import Skill
from baton_workflow.service.step_ports import SkillResult


def register_skills(registry):
    async def shout(call):
        return SkillResult(output=call.args["text"].upper() + "!")

    async def hang(call):
        await asyncio.Event().wait()

    async def crash(call):
        raise KeyError("boom")

    registry.add(Skill("shout", ArgSpec(positionals=(Positional("text"),)), shout))
    registry.add(Skill("hang", ArgSpec(), hang))
    registry.add(Skill("crash", ArgSpec(), crash))
"""


def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> str:
    name = f"skill_plugin_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


@pytest.fixture
def extended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SkillRegistry:
    name = plugin(tmp_path, monkeypatch, PLUGIN)
    return build_skills(StepToolsConfig(skill_modules=(name,)))


async def test_plugin_skill_is_registered_and_runs(extended: SkillRegistry) -> None:
    assert "shout" in extended.names()
    assert (await run(extended, "shout", "hi")).output == "HI!"
    assert extended.check("shout", []) == ["skillArgs: missing <text> (usage: shout <text>)"]


async def test_a_skill_that_overruns_its_timeout_times_out(extended: SkillRegistry) -> None:
    with pytest.raises(StepTimedOut, match=r"^hang: no result within 0.01s$"):
        await extended.run("hang", [], timeout=0.01)


async def test_a_crashing_skill_fails_the_step_not_the_service(extended: SkillRegistry) -> None:
    with pytest.raises(StepActionFailed, match=r"^crash failed: KeyError: 'boom'$"):
        await extended.run("crash", [], timeout=1)


def test_plugin_name_clash_stops_start_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = PLUGIN.replace('Skill("shout"', 'Skill("join"')
    name = plugin(tmp_path, monkeypatch, source)
    with pytest.raises(ValueError) as caught:
        build_skills(StepToolsConfig(skill_modules=(name,)))
    assert str(caught.value) == (
        f"BATON_WORKFLOW_SKILL_MODULES: {name!r}: skill 'join' is already registered"
    )


def test_plugin_module_without_hook_or_missing_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = plugin(tmp_path, monkeypatch, "x = 1\n")
    with pytest.raises(ValueError, match=rf"'{name}' has no register_skills\(registry\)"):
        build_skills(StepToolsConfig(skill_modules=(name,)))
    with pytest.raises(
        ValueError, match="BATON_WORKFLOW_SKILL_MODULES: cannot import 'no_such_mod_x'"
    ):
        build_skills(StepToolsConfig(skill_modules=("no_such_mod_x",)))


def test_skill_registry_satisfies_the_port() -> None:
    registry: Skills = build_skills()
    assert registry.names() == SHIPPED
    assert asyncio.iscoroutinefunction(registry.run)
