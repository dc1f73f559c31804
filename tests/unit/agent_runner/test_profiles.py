"""Profile files: the shipped ones load; a bad one is refused naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, ProfileInvalid, load_profiles
from baton_agent_runner.domain.profile import PROMOTE_DEFERRED_INBOX
from baton_agent_runner.settings import AgentRunnerSettings

GOOD = """\
slug: collector
role: collects
system_prompt: {en: collect, ru: собирай}
"""


def refusal(folder: Path, content: str | bytes) -> str:
    """What loading `collector.yaml` with this content is refused with."""
    path = folder / "collector.yaml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(ProfileInvalid) as caught:
        load_profiles(folder)
    return str(caught.value)


def test_the_inbox_collector_promotes_deferred_items_when_its_step_starts() -> None:
    profiles = load_profiles(SHIPPED_PROFILES)
    assert profiles["inbox_collector"].on_step_start == [PROMOTE_DEFERRED_INBOX]
    assert all(not p.on_step_start for slug, p in profiles.items() if slug != "inbox_collector")


def test_an_unknown_step_start_action_is_refused_naming_file_and_field(tmp_path: Path) -> None:
    message = refusal(tmp_path, GOOD + "on_step_start: [empty_inbox]\n")
    assert "collector.yaml" in message and "on_step_start" in message
    assert "promote_deferred_inbox" in message  # what it may be


def test_a_tool_the_agent_runner_does_not_have_is_refused_naming_it(tmp_path: Path) -> None:
    """A profile's tools were read and never given to the agent: a name nobody implements
    loaded silently. Now it stops the service, saying what may be named."""
    message = refusal(tmp_path, GOOD + "tools: [recall_facts, web_search]\n")
    assert message == (
        f"{tmp_path / 'collector.yaml'}: tools[1]: Input should be 'recall_facts' or "
        "'inbox_summary', got 'web_search'"
    )


def test_a_tool_named_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(GOOD + "tools: [inbox_summary, inbox_summary]\n")
    with pytest.raises(ProfileInvalid, match="tools: 'inbox_summary' listed more than once"):
        load_profiles(tmp_path)


def test_a_profile_without_step_start_actions_has_none(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(GOOD)
    assert load_profiles(tmp_path)["collector"].on_step_start == []


@pytest.mark.parametrize("model", ["bogus:x", "openai:", "gpt-4o"])
def test_a_model_the_agent_runner_cannot_build_is_refused_at_load(
    tmp_path: Path, model: str
) -> None:
    message = refusal(tmp_path, GOOD + f"model: '{model}'\n")
    assert "collector.yaml" in message and "model" in message


@pytest.mark.parametrize("model", ["bogus:x", "openai:"])
def test_an_agent_model_setting_it_cannot_build_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    monkeypatch.setenv("BATON_AGENT_MODEL", model)
    with pytest.raises(ValidationError, match="agent_model"):
        AgentRunnerSettings()
    monkeypatch.setenv("BATON_AGENT_MODEL", "openai:llama3.1")
    assert AgentRunnerSettings().agent_model == "openai:llama3.1"


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_inbox_collector_prompt_tells_a_model_that_a_widget_step_closes_on_its_list(
    language: str,
) -> None:
    # A model behind an endpoint was told only "ask for more while there are fewer than 3":
    # on onboarding-classic's brain_dump it demanded 3 chat items of a user who said "that's
    # all", where the list widget is what closes the step (the turn's step.criteria says so).
    prompt = getattr(load_profiles(SHIPPED_PROFILES)["inbox_collector"].system_prompt, language)
    assert "step.criteria" in prompt and "widget_completed" in prompt, prompt
    assert "Done" in prompt and "can_complete" in prompt, prompt


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            "model: 'gpt-4o'",
            "model: a model is 'scripted' or 'openai:<model>' (openai:gpt-4o-mini), with no "
            "spaces, got 'gpt-4o'",
        ),
        (
            "model: 'openai:gpt 4o'",
            "model: a model is 'scripted' or 'openai:<model>' (openai:gpt-4o-mini), with no "
            "spaces, got 'openai:gpt 4o'",
        ),
    ],
)
def test_a_model_that_misses_its_form_is_told_the_form_in_words(
    tmp_path: Path, line: str, problem: str
) -> None:
    message = refusal(tmp_path, GOOD + line + "\n")
    # One line, as the service stops on it: the file, the field, the form in words.
    assert message == f"{tmp_path / 'collector.yaml'}: {problem}"


@pytest.mark.parametrize("slug", ["Collector", "inbox collector", "a.b", "x" * 65])
def test_a_slug_no_turn_could_name_is_refused_in_words(tmp_path: Path, slug: str) -> None:
    # `agent.cmd.run` and a workflow step take 1 to 64 of [a-z0-9_-]; a profile with any
    # other slug loaded before, and then no turn could ever reach it.
    message = refusal(tmp_path, GOOD.replace("slug: collector", f"slug: '{slug}'"))
    assert message == (
        f"{tmp_path / 'collector.yaml'}: slug: an agent slug is 1 to 64 lower-case letters, "
        f"digits, '-' or '_', got {slug!r}"
    )


def test_every_problem_of_a_profile_is_named_on_one_line(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(
        "slug: collector\nrole: r\nsystem_prompt: {en: x}\ntemperature: 3\n"
    )
    with pytest.raises(ProfileInvalid) as caught:
        load_profiles(tmp_path)
    message = str(caught.value)
    assert "\n" not in message
    assert "system_prompt.ru: Field required" in message
    assert "temperature: Input should be less than or equal to 2" in message


def test_an_agent_model_setting_that_misses_its_form_is_told_it_in_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BATON_AGENT_MODEL", "gpt-4o")
    with pytest.raises(ValidationError) as caught:
        AgentRunnerSettings()
    [error] = caught.value.errors()
    assert error["msg"] == (
        "a model is 'scripted' or 'openai:<model>' (openai:gpt-4o-mini), with no spaces"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "the file is empty"),
        ("# nothing but a comment\n", "the file is empty"),
        ("- slug: collector\n", "a list, not a mapping"),
        ("collector\n", "a str, not a mapping"),
    ],
)
def test_a_profile_that_is_not_a_mapping_is_refused_saying_what_it_is(
    tmp_path: Path, text: str, problem: str
) -> None:
    message = refusal(tmp_path, text)
    assert message == (
        f"{tmp_path / 'collector.yaml'}: document: {problem}; a profile is a mapping with slug, "
        "role and system_prompt (en and ru)"
    )


def test_a_profile_that_is_not_utf8_is_refused_naming_the_byte(tmp_path: Path) -> None:
    message = refusal(tmp_path, b"slug: coll\xe9ctor\n")
    assert message == (
        f"{tmp_path / 'collector.yaml'}: cannot be read: not UTF-8 text (byte 10 is 0xe9)"
    )


def test_dotfiles_beside_the_profiles_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(GOOD)
    (tmp_path / "._collector.yaml").write_bytes(b"\x00\x05\x16\x07Mac OS X        \xff\xfe")
    (tmp_path / ".#collector.yaml").write_text("not: [a profile")
    assert list(load_profiles(tmp_path)) == ["collector"]


def test_a_folder_of_dotfiles_alone_has_no_profiles(tmp_path: Path) -> None:
    (tmp_path / "._collector.yaml").write_bytes(b"\x00\x05\x16\x07")
    with pytest.raises(ProfileInvalid) as caught:
        load_profiles(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}: no agent profiles (*.yaml, *.yml) found; files whose name starts with "
        "'.' are skipped"
    )


def test_a_profile_that_cannot_be_opened_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(GOOD)
    (tmp_path / "drafts.yaml").mkdir()  # an OSError, which stopped the start with a traceback
    with pytest.raises(ProfileInvalid) as caught:
        load_profiles(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'drafts.yaml'}: cannot be read: Is a directory"


@pytest.mark.parametrize(
    ("name", "problem"), [("gone", "does not exist"), ("file", "is not a folder")]
)
def test_a_profiles_folder_that_is_not_one_is_refused_saying_so(
    tmp_path: Path, name: str, problem: str
) -> None:
    (tmp_path / "file").write_text(GOOD)
    with pytest.raises(ProfileInvalid) as caught:
        load_profiles(tmp_path / name)
    assert str(caught.value) == (
        f"{tmp_path / name}: {problem}; BATON_AGENT_PROFILES_DIR names the folder"
    )


def test_a_profile_spelled_yml_is_loaded_beside_the_yaml_ones(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(GOOD)
    (tmp_path / "writer.yml").write_text(GOOD.replace("collector", "writer"))
    assert sorted(load_profiles(tmp_path)) == ["collector", "writer"]


def test_one_agent_in_a_yaml_and_a_yml_file_is_defined_twice(tmp_path: Path) -> None:
    (tmp_path / "collector.yml").write_text(GOOD)
    message = refusal(tmp_path, GOOD)
    assert message == f"{tmp_path / 'collector.yml'}: slug 'collector' is defined twice"


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("input_usd_per_mtok: .inf", "input_usd_per_mtok"),
        ("output_usd_per_mtok: .inf", "output_usd_per_mtok"),
        ("temperature: .nan", "temperature"),
    ],
)
def test_a_number_that_is_not_finite_is_refused_as_such(
    tmp_path: Path, line: str, field: str
) -> None:
    message = refusal(tmp_path, GOOD + line + "\n")
    assert message == f"{tmp_path / 'collector.yaml'}: {field}: Input should be a finite number"


@pytest.mark.parametrize("prompt", ['"   "', '"\\t\\n"'])
def test_a_system_prompt_of_white_space_alone_is_refused(tmp_path: Path, prompt: str) -> None:
    message = refusal(tmp_path, GOOD.replace("en: collect", f"en: {prompt}"))
    assert message == f"{tmp_path / 'collector.yaml'}: system_prompt.en: must not be blank"


def test_a_field_given_twice_is_refused_not_read_as_the_last(tmp_path: Path) -> None:
    message = refusal(tmp_path, "model: openai:gpt-4o\n" + GOOD + "model: scripted\n")
    assert message == (
        f"{tmp_path / 'collector.yaml'}: cannot be read: key 'model' is given twice"
        " at line 5, column 1"
    )


def test_broken_yaml_is_refused_naming_the_line_once(tmp_path: Path) -> None:
    message = refusal(tmp_path, "slug: [collector\n")
    # libyaml and PyYAML's own parser word the problem apart; each gives one place, ours.
    assert message.startswith(f"{tmp_path / 'collector.yaml'}: cannot be read: ")
    assert message.endswith("',' or ']' at line 2, column 1")
    assert "<unicode string>" not in message


@pytest.mark.parametrize(
    ("value", "problem"),
    [("!!timestamp 2024-13-45", "month must be in 1..12"), ("9" * 5000, "Exceeds the limit")],
)
def test_a_value_yaml_cannot_build_is_refused_naming_the_file(
    tmp_path: Path, value: str, problem: str
) -> None:
    message = refusal(tmp_path, GOOD + f"max_tokens: {value}\n")
    assert message.startswith(f"{tmp_path / 'collector.yaml'}: cannot be read: {problem}")


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("max_tokens: yes", "max_tokens: Input should be a valid integer"),
        ("temperature: on", "temperature: Input should be a valid number"),
        ("input_usd_per_mtok: true", "input_usd_per_mtok: Input should be a valid number"),
    ],
)
def test_a_yes_or_no_where_a_number_goes_is_refused_not_read_as_1(
    tmp_path: Path, line: str, problem: str
) -> None:
    message = refusal(tmp_path, GOOD + line + "\n")
    assert message == f"{tmp_path / 'collector.yaml'}: {problem}"


def test_whole_numbers_are_still_a_temperature_and_a_price(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(GOOD + "temperature: 1\ninput_usd_per_mtok: 3\n")
    profile = load_profiles(tmp_path)["collector"]
    assert (profile.temperature, profile.input_usd_per_mtok) == (1.0, 3.0)
