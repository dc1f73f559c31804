"""Russian brain dumps that were misread: actions joined by "и" kept as one item, ", ну и ..."
merged into the item before it, and ", а потом продолжим" kept in an inbox request's item."""

# ruff: noqa: RUF001, RUF002  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import time

import pytest

from baton_agent_runner.domain import brain_dump, inbox_requests


@pytest.mark.parametrize(
    ("message", "items"),
    [
        (
            "сходить в зал и записаться к стоматологу и купить корм коту",
            ["сходить в зал", "записаться к стоматологу", "купить корм коту"],
        ),
        (
            "go to the gym and book the dentist and buy cat food",
            ["go to the gym", "book the dentist", "buy cat food"],
        ),
        # Going there to get something stays one, and so does asking there.
        (
            "сходить в аптеку и купить бинт и позвонить маме",
            ["сходить в аптеку и купить бинт", "позвонить маме"],
        ),
        (
            "позвонить в банк и спросить про кредит и купить хлеб",
            ["позвонить в банк и спросить про кредит", "купить хлеб"],
        ),
        ("сходить в аптеку и купить бинт", ["сходить в аптеку и купить бинт"]),
        ("купить хлеб и молоко", ["купить хлеб и молоко"]),
        (
            "позвонить в банк насчёт карты, ну и маме цветы на 8 марта",
            ["позвонить в банк насчёт карты", "маме цветы на 8 марта"],
        ),
    ],
)
def test_a_russian_list_of_actions_is_an_item_each(message: str, items: list[str]) -> None:
    assert brain_dump.dumped_items(message) == items


@pytest.mark.parametrize(
    ("message", "item"),
    [
        ("Запиши в inbox купить молоко, а потом продолжим", "купить молоко"),
        ("Запиши в inbox купить молоко, давай дальше", "купить молоко"),
        ("add to my inbox: buy milk, then let's continue", "buy milk"),
        # Going on with a task is the task.
        ("Запиши в inbox купить молоко и продолжить ремонт", "купить молоко и продолжить ремонт"),
        ("add to my inbox: continue the renovation", "continue the renovation"),
    ],
)
def test_an_inbox_request_s_item_leaves_out_going_on_with_the_chat(message: str, item: str) -> None:
    assert inbox_requests.inbox_request(message) == item


def _seconds_to_read(spaces: int) -> float:
    """The least of five reads of an inbox request with `spaces` spaces before a comma."""
    message = "Запиши в inbox купить" + " " * spaces + ",x"
    times = []
    for _ in range(5):
        started = time.perf_counter()
        inbox_requests.inbox_request(message)
        times.append(time.perf_counter() - started)
    return min(times)


def test_an_inbox_request_with_a_long_run_of_spaces_is_read_in_linear_time() -> None:
    # The going-on clause was looked for from each space of the run: 0.3 s for 8,000 (a
    # message's most), the time growing as the square of the run. Read by growth, not by a
    # clock's limit, so a busy machine does not fail it: four times the run takes about four
    # times as long in linear time, sixteen times in square time.
    _seconds_to_read(2000)  # warm: the patterns compiled
    ratio = _seconds_to_read(8000) / _seconds_to_read(2000)
    assert ratio < 9, f"four times the spaces took {ratio:.1f} times as long"
