"""The issues' targets read on their hardware from the references of the same run."""

from __future__ import annotations

from typing import Any

import pytest

from bench import report, scaled

RUN, EARLIER = "2026-11-29 02:17 UTC", "2026-11-28 23:00 UTC"


def rows(*pairs: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"label": label, **values} for label, values in pairs]


def cases(reference_date: str = RUN) -> dict[str, Any]:
    return {
        "reference.pydantic_ai": {
            "date": reference_date,
            # 2.5 ms a run: 1.47 times issue 4's 1.7
            "rows": rows(("agent.run(), NativeOutput", {"ops_per_s": 400.0, "p50_ms": 2.4})),
        },
        "reference.langgraph": {
            "date": reference_date,
            "rows": rows(
                (scaled.LANGGRAPH_RUNS[1], {"ops_per_s": 275.0}),  # 2 times as slow
                (scaled.LANGGRAPH_RESUME[1], {"ops_per_s": 150.0, "p50_ms": 6.8}),  # 2 times
            ),
        },
        "workflow.transition.postgres": {
            "date": RUN,
            "rows": rows(
                ("PostgreSQL: 1 instance", {"ops_per_s": 300.0, "p50_ms": 4.0}),
                ("PostgreSQL: 50 instances", {"ops_per_s": 1100.0, "p50_ms": 40.0}),
            ),
        },
    }


def reading(found: list[scaled.Reading], what: str) -> scaled.Reading:
    return next(r for r in found if r.target.what == what)


def test_a_rate_is_multiplied_and_a_latency_divided_by_each_factor() -> None:
    found = scaled.readings(cases())
    rate = reading(found, "2,000 transitions/s, 50 instances")
    assert [f.by for f, _ in rate.scaled] == [
        "agent.run()",
        "LangGraph steps/s",
        "LangGraph resume",
    ]
    assert [round(v) for _, v in rate.scaled] == [1618, 2200, 2200]
    latency = reading(found, "transition p50 < 3 ms, PostgreSQL")
    assert [round(v, 2) for _, v in latency.scaled] == [2.72, 2.0, 2.0]


def test_a_target_is_met_or_short_only_when_every_reading_agrees() -> None:
    found = scaled.readings(cases())
    assert reading(found, "2,000 transitions/s, 50 instances").verdict == "unclear"
    assert reading(found, "transition p50 < 3 ms, PostgreSQL").verdict == "met"
    data = cases()
    data["workflow.transition.postgres"]["rows"][1]["ops_per_s"] = 900.0
    assert reading(scaled.readings(data), "2,000 transitions/s, 50 instances").verdict == "short"


def test_references_of_another_run_are_not_used() -> None:
    assert scaled.readings(cases(reference_date=EARLIER)) == []
    assert scaled.render(cases(reference_date=EARLIER)) == []


def test_a_target_whose_row_did_not_run_is_left_out() -> None:
    found = scaled.readings(cases())
    assert {r.target.case for r in found} == {"workflow.transition.postgres"}


def test_the_section_names_every_reading_and_the_verdict() -> None:
    text = "\n".join(scaled.render(cases()))
    assert "## The targets on the issues' hardware" in text
    assert (
        "| 3 | 2,000 transitions/s, 50 instances | 1,100/s | 1,618/s by agent.run() (x1.47)" in text
    )
    assert "| unclear |" in text and "| met |" in text


@pytest.mark.parametrize("target", scaled.TARGETS, ids=lambda t: f"{t.case}: {t.label}")
def test_every_target_names_a_row_the_benchmarks_write(target: scaled.Target) -> None:
    # A renamed row would silently drop out of the section: the stored run must hold it.
    stored = report._load()["cases"]
    assert target.label in [row["label"] for row in stored[target.case]["rows"]]


@pytest.mark.parametrize(
    "reference", [scaled.AGENT_RUN, scaled.LANGGRAPH_RUNS, scaled.LANGGRAPH_RESUME]
)
def test_every_reference_names_a_row_the_benchmarks_write(reference: tuple[str, str]) -> None:
    case, label = reference
    stored = report._load()["cases"]
    assert label in [row["label"] for row in stored[case]["rows"]]


def test_a_row_that_timed_agent_run_beside_itself_is_read_by_that_too() -> None:
    data = cases()
    data["workflow.transition.postgres"]["rows"][1]["agent_run_ms"] = 3.4  # 2 times 1.7
    rate = reading(scaled.readings(data), "2,000 transitions/s, 50 instances")
    assert [(f.by, round(v)) for f, v in rate.scaled][-1] == ("agent.run() beside the row", 2200)
    assert len(rate.scaled) == 4


def test_a_row_timed_beside_itself_is_read_without_references_of_its_run() -> None:
    data = cases(reference_date=EARLIER)
    data["workflow.transition.postgres"]["rows"][1]["agent_run_ms"] = 1.7
    found = scaled.readings(data)
    assert [(r.target.what, [f.by for f, _ in r.scaled]) for r in found] == [
        ("2,000 transitions/s, 50 instances", ["agent.run() beside the row"])
    ]
    assert found[0].verdict == "short"  # 1,100/s on hardware as fast as the issues'
