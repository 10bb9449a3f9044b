"""The validated config kept on disk: taken as it is while the sources read the same, loaded
afresh (with fresh warnings) when any of them changes, never kept when it would hold a key from
the environment or what the network said, never read when it is not private."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aish.config import load_config
from aish.config.loader import LoadedConfig

PRESETS = """\
default_model = "fast"

[models.fast]
endpoint = "http://127.0.0.1:8080/v1"
model = "small"
timeout_s = -1
"""


@pytest.fixture
def user_file(xdg_home: Path) -> Path:
    path = xdg_home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(PRESETS)
    return path


@pytest.fixture
def cache(xdg_home: Path) -> Path:
    return xdg_home / "cache" / "aish" / "config"


def load(cache: Path, env: dict[str, str] | None = None, **kwargs: object) -> LoadedConfig:
    return load_config(env=env or {}, autodetect=False, cache_dir=cache, **kwargs)  # type: ignore[arg-type]


def kept(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.config.pickle")) if cache.exists() else []


def test_a_second_load_with_the_same_sources_is_the_kept_one(user_file: Path, cache: Path) -> None:
    first = load(cache)
    (entry,) = kept(cache)
    assert entry.stat().st_mode & 0o777 == 0o600
    second = load(cache)
    assert second is not first
    assert second.config == first.config
    assert second.warnings == first.warnings  # the bad timeout is still said, from the cache
    assert any("timeout_s" in warning for warning in second.warnings)
    assert second.sources == first.sources and second.user_file == user_file
    assert kept(cache) == [entry]


def test_the_kept_config_is_what_is_used(user_file: Path, cache: Path) -> None:
    """Proof that a hit does not validate again: a kept entry edited on disk is what loads."""
    import pickle

    load(cache)
    (entry,) = kept(cache)
    loaded = pickle.loads(entry.read_bytes())
    loaded.config.default_model = "from-the-cache"
    entry.write_bytes(pickle.dumps(loaded))
    assert load(cache).config.default_model == "from-the-cache"


def test_an_edited_file_is_loaded_afresh(user_file: Path, cache: Path) -> None:
    load(cache)
    user_file.write_text(PRESETS.replace('model = "small"', 'model = "large"'))
    assert load(cache).config.models["fast"].model == "large"
    assert len(kept(cache)) == 2


def test_a_new_variable_is_loaded_afresh(user_file: Path, cache: Path) -> None:
    load(cache)
    loaded = load(cache, {"AISH_NORRIS__MAX_NORRIS_STEPS": "3"})
    assert loaded.config.norris.max_norris_steps == 3
    assert load(cache).config.norris.max_norris_steps == 16


def test_trust_given_later_applies(user_file: Path, cache: Path, tmp_path: Path) -> None:
    from aish.config.project import digest_of

    project = tmp_path / "home" / "repo"
    (project / ".git").mkdir(parents=True)
    (project / ".aish.toml").write_text("[context]\noutput_max_lines = 7\n")
    env = {"HOME": str(tmp_path / "home")}
    untrusted = load(cache, env, cwd=project, trusted_digest=lambda _path: None)
    assert untrusted.config.context.output_max_lines != 7
    digest = digest_of((project / ".aish.toml").read_bytes())
    trusted = load(cache, env, cwd=project, trusted_digest=lambda _path: digest)
    assert trusted.config.context.output_max_lines == 7 and trusted.project_trusted
    assert load(cache, env, cwd=project, trusted_digest=lambda _path: digest) == trusted


def test_letting_a_projects_allow_rules_in_is_a_fresh_load(
    user_file: Path, cache: Path, tmp_path: Path
) -> None:
    from aish.config.project import Trusted, digest_of

    project = tmp_path / "home" / "repo"
    (project / ".git").mkdir(parents=True)
    (project / ".aish.toml").write_text('[safety]\nallow = ["make test"]\n')
    env = {"HOME": str(tmp_path / "home")}
    digest = digest_of((project / ".aish.toml").read_bytes())
    tightening = load(cache, env, cwd=project, trusted_digest=lambda _p: Trusted(digest))
    assert tightening.config.safety.allow == []
    allowing = load(cache, env, cwd=project, trusted_digest=lambda _p: Trusted(digest, True))
    assert allowing.config.safety.allow == ["make test"]
    again = load(cache, env, cwd=project, trusted_digest=lambda _p: Trusted(digest))
    assert again.config.safety.allow == []


def test_a_key_from_the_environment_is_never_written(user_file: Path, cache: Path) -> None:
    loaded = load(cache, {"AISH_MODELS__FAST__API_KEY": "sk-secret-from-env"})
    assert loaded.config.models["fast"].api_key == "sk-secret-from-env"
    assert kept(cache) == []


def test_zero_config_autodetection_is_not_kept(xdg_home: Path, cache: Path) -> None:
    load_config(env={"OPENAI_API_KEY": "sk-x"}, autodetect=True, cache_dir=cache)
    assert kept(cache) == []


def test_an_entry_others_may_write_is_not_read(user_file: Path, cache: Path) -> None:
    import pickle

    load(cache)
    (entry,) = kept(cache)
    loaded = pickle.loads(entry.read_bytes())
    loaded.config.default_model = "planted"
    entry.write_bytes(pickle.dumps(loaded))
    os.chmod(entry, 0o666)
    assert load(cache).config.default_model == "fast"


def test_a_broken_entry_is_a_miss(user_file: Path, cache: Path) -> None:
    load(cache)
    (entry,) = kept(cache)
    entry.write_bytes(b"not a pickle")
    assert load(cache).config.default_model == "fast"


def test_an_unwritable_cache_costs_nothing_but_time(user_file: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    assert load(blocked / "config").config.default_model == "fast"


def test_a_start_that_takes_the_kept_config_never_imports_pydantic(
    user_file: Path, cache: Path
) -> None:
    """The schema is plain dataclasses; pydantic (a third of the time to the first prompt) is
    for validating, which a start with unchanged sources does not do. A second process, as a
    second start would be: the first load validates, the second takes what was kept."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from aish.config import load_config\n"
        f"loaded = load_config(env={{}}, autodetect=False, cache_dir=Path({str(cache)!r}))\n"
        "print('pydantic' in sys.modules, loaded.config.models['fast'].model,"
        " len(loaded.warnings))\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0] == ["True", "small", "1"]  # validated: the bad timeout_s is said
    assert runs[1] == ["False", "small", "1"]  # kept: the same config and warning, no pydantic


def test_the_key_follows_the_validator_and_python_without_importing_them() -> None:
    """An upgrade of pydantic or of Python may judge the same file differently: their files
    and version are part of the key, read without importing pydantic."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from aish.config.validated_cache import _code_fingerprint\n"
        "print(repr(_code_fingerprint()))\n"
        "print('pydantic' in sys.modules)\n"
    )
    fingerprint, imported = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    import pydantic.version

    assert sys.version in fingerprint
    version_file = Path(pydantic.version.__file__)
    assert f"{version_file.name}:{version_file.stat().st_size}:" in fingerprint
    assert imported == "False"
