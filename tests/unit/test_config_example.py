"""The example config written by `aish init`: valid, complete, and never clobbering a file."""

from __future__ import annotations

import dataclasses
import stat
import tomllib
from pathlib import Path

import pytest

from aish.config import AishConfig, load_config
from aish.config.example import EXAMPLE_CONFIG, write_example


def test_example_loads_without_a_single_warning(xdg_home: Path) -> None:
    path = write_example(xdg_home / "config" / "aish" / "config.toml")
    loaded = load_config(env={}, autodetect=False)
    assert loaded.user_file == path
    assert loaded.warnings == []
    assert loaded.config.default_model == "fast"
    assert {"fast", "deep", "cloud"} <= loaded.config.models.keys()
    assert loaded.config.models["cloud"].api_key_env == "OPENROUTER_API_KEY"


def test_example_covers_every_section() -> None:
    data = tomllib.loads(EXAMPLE_CONFIG)
    assert set(data) == {field.name for field in dataclasses.fields(AishConfig)}
    commented = "\n".join(
        line.lstrip("# ") for line in EXAMPLE_CONFIG.splitlines() if line.startswith("#")
    )
    # Keys left commented out are still documented, so every field of every section appears.
    for section in ("safety", "norris", "memory", "routing", "context", "cost", "ui"):
        model = type(getattr(AishConfig(), section))
        for name in (field.name for field in dataclasses.fields(model)):
            assert name in data[section] or f"{name} =" in commented, f"{section}.{name}"


def test_write_example_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "config.toml"
    assert write_example(path) == path
    assert path.read_text() == EXAMPLE_CONFIG
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("# mine\n")
    with pytest.raises(FileExistsError):
        write_example(path)
    assert path.read_text() == "# mine\n"
    write_example(path, force=True)
    assert path.read_text() == EXAMPLE_CONFIG
