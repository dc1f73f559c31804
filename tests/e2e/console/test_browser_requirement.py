"""Without Debian's chromium the browser tests skip, unless CI requires the browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import conftest


@pytest.fixture
def no_chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    monkeypatch.setattr(conftest, "CHROMIUM", tmp_path / "no-chromium")
    return monkeypatch


def test_without_chromium_the_browser_tests_skip_saying_why(
    no_chromium: pytest.MonkeyPatch,
) -> None:
    no_chromium.delenv(conftest.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        conftest.chromium_or_skip()


def test_when_ci_requires_the_browser_a_missing_chromium_fails(
    no_chromium: pytest.MonkeyPatch,
) -> None:
    no_chromium.setenv(conftest.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="BATON_REQUIRE_BROWSER=1"):
        conftest.chromium_or_skip()
