"""XDG locations follow the environment at call time."""

from __future__ import annotations

from pathlib import Path

import pytest

from aish.config import config_file, data_dir, log_file, state_dir
from aish.config.paths import default_config_file


def test_xdg_variables_are_honoured(xdg_home: Path) -> None:
    assert config_file({}) == xdg_home / "config" / "aish" / "config.toml"
    assert default_config_file() == config_file({})
    assert state_dir() == xdg_home / "state" / "aish"
    assert data_dir() == xdg_home / "data" / "aish"
    assert log_file() == xdg_home / "state" / "aish" / "aish.log"


def test_aish_config_overrides_the_location(
    xdg_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert config_file({"AISH_CONFIG": str(tmp_path / "x.toml")}) == tmp_path / "x.toml"
    assert config_file({"AISH_CONFIG": "~/y.toml"}) == xdg_home / "y.toml"  # HOME is xdg_home
    assert config_file({"AISH_CONFIG": ""}) == default_config_file()
    monkeypatch.setenv("AISH_CONFIG", str(tmp_path / "z.toml"))
    assert config_file() == tmp_path / "z.toml"
