from __future__ import annotations

import stat
from pathlib import Path

import pytest

from baton_cli.datadir import load_or_create_secret, prepare_data_dir, read_secret
from baton_cli.errors import CliError

SECRET = "s" * 40


def test_prepare_creates_the_dir_and_its_logs_folder(tmp_path: Path) -> None:
    root = prepare_data_dir(tmp_path / "a" / "b")
    assert root.is_absolute() and (root / "logs").is_dir()


def test_a_data_dir_under_a_file_is_an_error_naming_the_path(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with pytest.raises(
        CliError, match=rf"data dir {tmp_path / 'afile' / 'data'} is not a writable"
    ):
        prepare_data_dir(tmp_path / "afile" / "data")


def test_a_data_dir_on_a_full_disk_is_refused_saying_so(tmp_path: Path) -> None:
    # On a full disk `baton up` started NATS and the services, one of them failed with a
    # traceback in a log that could not be written, and the error pointed at that empty log.
    with pytest.raises(CliError) as refused:
        prepare_data_dir(tmp_path / "d", free_bytes=lambda _: 4096)
    assert str(refused.value) == (
        f"data dir {tmp_path / 'd'}: its disk is full (4 KiB free, Baton needs 16 MiB to"
        " start); free some space and start again"
    )
    assert prepare_data_dir(tmp_path / "d", free_bytes=lambda _: 64 * 1024 * 1024).is_dir()


def test_a_new_secret_is_kept_with_mode_0600_and_reused(tmp_path: Path) -> None:
    first = load_or_create_secret(tmp_path, {})
    path = tmp_path / "jwt-secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first.encode()) >= 32
    assert load_or_create_secret(tmp_path, {}) == first
    assert read_secret(tmp_path, {}) == first


def test_the_env_secret_wins_and_no_file_is_written(tmp_path: Path) -> None:
    assert load_or_create_secret(tmp_path, {"BATON_JWT_SECRET": SECRET}) == SECRET
    assert not (tmp_path / "jwt-secret").exists()


def test_a_short_env_secret_is_refused_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(CliError, match="BATON_JWT_SECRET: JWT secret must be at least 32 bytes"):
        load_or_create_secret(tmp_path, {"BATON_JWT_SECRET": "short"})


def test_no_secret_anywhere_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(CliError, match="run 'baton up' first or set BATON_JWT_SECRET"):
        read_secret(tmp_path, {})
    assert not (tmp_path / "jwt-secret").exists()
