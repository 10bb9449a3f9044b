"""Layered loading with real files: precedence, sources, and one-line warnings with lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from aish.config import autodetect, load_config
from aish.config.loader import LoadedConfig

PRESETS = """\
default_model = "fast"

[models.fast]
endpoint = "http://127.0.0.1:8080/v1"
model = "small"

[models.deep]
endpoint = "https://example.com/v1"
model = "big"
api_key_env = "DEEP_KEY"
"""


@pytest.fixture
def user_file(xdg_home: Path) -> Path:
    path = xdg_home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def load(
    text: str | None, path: Path, *, env: dict[str, str] | None = None, **kwargs: object
) -> LoadedConfig:
    if text is not None:
        path.write_text(text)
    return load_config(env=env or {}, autodetect=False, **kwargs)  # type: ignore[arg-type]


# ---- layers and precedence ----------------------------------------------------------------


def test_defaults_without_any_file(user_file: Path) -> None:
    loaded = load(None, user_file)
    assert loaded.config.models == {}
    assert loaded.config.norris.max_norris_steps == 16
    assert loaded.config.context.output_max_bytes == 16384
    assert loaded.warnings == []
    assert loaded.user_file is None and not loaded.autodetected
    assert set(loaded.sources.values()) == {"default"}
    assert loaded.sources["safety.llm_model"] == "default"


def test_user_file_is_read_from_xdg_config_home(user_file: Path) -> None:
    loaded = load(PRESETS, user_file)
    assert loaded.warnings == []
    assert loaded.user_file == user_file
    assert list(loaded.config.models) == ["fast", "deep"]
    assert loaded.config.default_model == "fast"
    assert loaded.config.models["deep"].api_key_env == "DEEP_KEY"


def test_env_beats_file_and_flags_beat_env(user_file: Path) -> None:
    text = PRESETS + "\n[routing]\nauto = false\n[cost]\nstop_at_dollars = 1\n"
    env = {
        "AISH_DEFAULT_MODEL": "deep",
        "AISH_ROUTING__AUTO": "true",
        "AISH_COST__STOP_AT_DOLLARS": "5",
    }
    loaded = load(text, user_file, env=env)
    assert loaded.warnings == []
    assert loaded.config.default_model == "deep"
    assert loaded.config.routing.auto is True
    assert loaded.config.cost.stop_at_dollars == 5

    loaded = load(None, user_file, env=env, flags={"default_model": "fast", "routing.auto": None})
    assert loaded.config.default_model == "fast"
    assert loaded.config.routing.auto is True  # None means the flag was not given
    assert loaded.sources["default_model"] == "flag --model"


def test_sources_name_where_each_value_came_from(user_file: Path) -> None:
    loaded = load(
        PRESETS + '\n[routing]\nclasses = { code = "deep" }\n',
        user_file,
        env={"AISH_ROUTING__AUTO": "true"},
        flags={"default_model": "deep"},
    )
    assert loaded.sources["models.fast.endpoint"] == str(user_file)
    assert loaded.sources["routing.classes.code"] == str(user_file)
    assert loaded.sources["routing.auto"] == "env AISH_ROUTING__AUTO"
    assert loaded.sources["default_model"] == "flag --model"
    assert loaded.sources["ui.edit_mode"] == "default"
    # A table set by a layer replaces the default's entry for the whole table.
    assert "models" not in loaded.sources and "routing.classes" not in loaded.sources


def test_project_files_are_not_read_yet(user_file: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    (project / ".aish.toml").write_text('default_model = "evil"\n')
    loaded = load(PRESETS, user_file)
    assert loaded.config.default_model == "fast"


def test_aish_config_and_config_path_point_elsewhere(user_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.toml"
    other.write_text(PRESETS + "bogus = 1\n")
    by_env = load_config(env={"AISH_CONFIG": str(other)}, autodetect=False)
    assert by_env.user_file == other
    # Outside the usual location the file is named as given.
    assert by_env.warnings == [f"{other}:11: key models.deep.bogus: unknown key"]
    by_arg = load_config(config_path=other, env={}, autodetect=False)
    assert by_arg.warnings == by_env.warnings


def test_missing_explicit_file_is_reported(tmp_path: Path, user_file: Path) -> None:
    missing = tmp_path / "nope.toml"
    loaded = load_config(config_path=missing, env={}, autodetect=False)
    assert loaded.warnings == [f"{missing}: no such file"]
    assert loaded.user_file is None


def test_unreadable_file_warns_and_uses_defaults(user_file: Path) -> None:
    user_file.mkdir()  # a directory where the file should be
    loaded = load(None, user_file)
    assert len(loaded.warnings) == 1
    assert loaded.warnings[0].startswith("config.toml: cannot read:")
    assert loaded.config.models == {}


# ---- syntax errors --------------------------------------------------------------------------


def test_syntax_error_names_the_line_without_tomllibs_position(user_file: Path) -> None:
    loaded = load('default_model = "fast"\n\n[models.fast\nmodel = "x"\n', user_file)
    assert loaded.warnings == [
        "config.toml:3: syntax: Expected ']' at the end of a table declaration"
    ]
    assert loaded.config.models == {} and loaded.config.default_model is None
    assert loaded.user_file == user_file


def test_syntax_error_at_end_of_document(user_file: Path) -> None:
    loaded = load('a = 1\nb = "unterminated', user_file)
    assert loaded.warnings == ["config.toml:2: syntax: Unterminated string"]


def test_invalid_utf8_is_a_syntax_error_with_its_line(user_file: Path) -> None:
    user_file.write_bytes(b'a = "x"\nb = "\xff"\n')
    loaded = load(None, user_file)
    assert loaded.warnings == ["config.toml:2: syntax: not UTF-8 text"]


# ---- invalid keys: line numbers and recovery -----------------------------------------------


def test_bad_value_in_nested_table_keeps_the_rest(user_file: Path) -> None:
    text = PRESETS + "timeout_s = -3\n"  # lands in [models.deep], line 11
    loaded = load(text, user_file)
    assert loaded.warnings == [
        "config.toml:11: key models.deep.timeout_s: must be greater than 0 (got -3)"
    ]
    deep = loaded.config.models["deep"]
    assert deep.timeout_s == 60 and deep.model == "big"
    assert "models.deep.timeout_s" not in loaded.sources


def test_bad_dotted_key_and_inline_table(user_file: Path) -> None:
    text = """\
models.fast.endpoint = "http://127.0.0.1:8080/v1"
models.fast.model = "small"
models.fast.temperature = 7

[models.cloud]
endpoint = "https://openrouter.ai/api/v1"
model = "x"
price = { input = 1.0, output = -2 }

[cost]
warn_at_dollars = [
  1,
  -2,
]
"""
    loaded = load(text, user_file)
    assert loaded.warnings == [
        "config.toml:3: key models.fast.temperature: must be less than or equal to 2 (got 7)",
        "config.toml:8: key models.cloud.price.output: must be greater than or equal to 0 (got -2)",
        "config.toml:13: key cost.warn_at_dollars[1]: must be greater than or equal to 0 (got -2)",
    ]
    assert loaded.config.cost.warn_at_dollars == [1]
    assert loaded.config.models["cloud"].price is not None
    assert loaded.config.models["cloud"].price.input == 1.0


def test_array_of_tables_where_a_table_belongs(user_file: Path) -> None:
    text = PRESETS + "\n[[safety]]\nallow = []\n\n[[safety]]\nallow = []\n"
    loaded = load(text, user_file)
    assert loaded.warnings == ["config.toml:12: key safety: must be a table (got an array)"]
    assert loaded.config.models.keys() == {"fast", "deep"}


def test_bad_item_inside_an_array(user_file: Path) -> None:
    text = 'ui.shell = "zsh"\n[safety]\nallow = [\n  "ls",\n  3,\n]\n'
    loaded = load(text, user_file)
    assert loaded.warnings == ["config.toml:5: key safety.allow[1]: must be a string (got 3)"]
    assert loaded.config.safety.allow == ["ls"]
    assert loaded.config.ui.shell == "zsh"


def test_unknown_keys_are_reported_with_a_suggestion(user_file: Path) -> None:
    text = PRESETS + "tiemout_s = 9\n\n[norris]\nmax_steps = 3\n\n[nonsense]\nx = 1\n"
    loaded = load(text, user_file)
    assert loaded.warnings == [
        "config.toml:11: key models.deep.tiemout_s: unknown key (did you mean timeout_s?)",
        "config.toml:14: key norris.max_steps: unknown key (did you mean max_norris_steps?)",
        "config.toml:16: key nonsense: unknown key",
    ]
    assert loaded.config.models["deep"].model == "big"


def test_preset_missing_a_required_key_is_dropped_alone(user_file: Path) -> None:
    text = PRESETS + '\n[models.broken]\nendpoint = "http://127.0.0.1:1/v1"\n'
    loaded = load(text, user_file)
    assert loaded.warnings == [
        "config.toml:12: key models.broken.model: required key missing; models.broken ignored"
    ]
    assert list(loaded.config.models) == ["fast", "deep"]


def test_bad_required_key_drops_its_preset_in_one_warning(user_file: Path) -> None:
    text = PRESETS + '\n[models.ftp]\nendpoint = "ftp://example.com"\nmodel = "m"\n'
    loaded = load(text, user_file)
    assert loaded.warnings == [
        "config.toml:13: key models.ftp.endpoint: must be an http:// or https:// URL with a "
        "host (got 'ftp://example.com'); models.ftp ignored"
    ]


def test_default_model_naming_a_missing_preset(user_file: Path) -> None:
    loaded = load(PRESETS.replace('default_model = "fast"', 'default_model = "dep"'), user_file)
    assert loaded.warnings == [
        "config.toml:1: key default_model: no model preset named 'dep' (known: fast, deep)"
    ]
    assert loaded.config.default_model is None
    assert list(loaded.config.models) == ["fast", "deep"]


def test_default_model_whose_preset_was_dropped(user_file: Path) -> None:
    text = PRESETS.replace('model = "big"\n', "")
    loaded = load(text.replace('"fast"', '"deep"', 1), user_file)
    assert loaded.warnings == [
        "config.toml:7: key models.deep.model: required key missing; models.deep ignored",
        "config.toml:1: key default_model: no model preset named 'deep' (known: fast)",
    ]
    assert list(loaded.config.models) == ["fast"]


def test_api_key_in_the_file_is_allowed_with_a_warning(user_file: Path) -> None:
    text = PRESETS + 'api_key = "sk-written-down"\n'
    loaded = load(text, user_file)
    assert loaded.warnings == [
        "config.toml:11: key models.deep.api_key: a key written in the config file; "
        "prefer api_key_env"
    ]
    assert loaded.config.models["deep"].api_key == "sk-written-down"


def test_secrets_are_not_echoed_in_warnings(user_file: Path) -> None:
    text = PRESETS.replace('api_key_env = "DEEP_KEY"', 'api_key_env = "sk-abc123secret"')
    loaded = load(text, user_file)
    assert len(loaded.warnings) == 1
    assert "config.toml:10: key models.deep.api_key_env: must be the NAME" in loaded.warnings[0]
    assert "sk-abc123secret" not in loaded.warnings[0]


def test_quoted_preset_names(user_file: Path) -> None:
    text = (
        '[models."qwen2.5"]\nendpoint = "http://127.0.0.1:8080/v1"\nmodel = "q"\nmax_tokens = 0\n'
    )
    loaded = load(text, user_file)
    assert loaded.warnings == [
        'config.toml:4: key models."qwen2.5".max_tokens: must be greater than 0 (got 0)'
    ]
    assert "qwen2.5" in loaded.config.models


def test_whole_file_falls_back_when_recovery_cannot_finish(
    user_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aish.config import recovery

    monkeypatch.setattr(recovery, "MAX_ROUNDS", 1)
    text = PRESETS.replace('"fast"', '"gone"', 1) + "timeout_s = 0\n"
    loaded = load(text, user_file)
    assert loaded.warnings[-1] == (
        "config.toml: still invalid after dropping bad keys; all of it ignored"
    )
    assert loaded.config.models == {}


# ---- environment and flags ----------------------------------------------------------------


def test_env_values_are_toml_when_they_parse(user_file: Path) -> None:
    env = {
        "AISH_SAFETY__ALLOW": '["ls", "df"]',
        "AISH_UI__SHELL": "/bin/zsh",  # not TOML: taken as text
        "AISH_NORRIS__PREPLAN_SYSTEM": '"quoted text"',
        "AISH_COST__WARN_AT_DOLLARS": "0.5",
        "AISH_CONTEXT__SUMMARIZE_ON_EVICT": "true",
    }
    loaded = load(None, user_file, env=env)
    assert loaded.warnings == []
    config = loaded.config
    assert config.safety.allow == ["ls", "df"]
    assert config.ui.shell == "/bin/zsh"
    assert config.norris.preplan_system == "quoted text"
    assert config.cost.warn_at_dollars == [0.5]
    assert config.context.summarize_on_evict is True


def test_env_number_that_names_a_preset_is_taken_as_text(user_file: Path) -> None:
    text = '[models.123]\nendpoint = "http://127.0.0.1:1/v1"\nmodel = "m"\n'
    loaded = load(text, user_file, env={"AISH_DEFAULT_MODEL": "123"})
    assert loaded.warnings == []
    assert loaded.config.default_model == "123"


def test_env_can_define_a_whole_preset(user_file: Path) -> None:
    env = {
        "AISH_MODELS__LOCAL__ENDPOINT": "http://127.0.0.1:8080/v1",
        "AISH_MODELS__LOCAL__MODEL": "m",
        "AISH_MODELS__HALF__ENDPOINT": "http://127.0.0.1:8081/v1",
    }
    loaded = load(None, user_file, env=env)
    assert list(loaded.config.models) == ["local"]
    assert loaded.warnings == [
        "env AISH_MODELS__HALF__ENDPOINT: key models.half.model: required key missing; "
        "models.half ignored"
    ]
    assert loaded.sources["models.local.model"] == "env AISH_MODELS__LOCAL__MODEL"


def test_env_mistakes_name_the_variable(user_file: Path) -> None:
    env = {
        "AISH_FOO": "1",
        "AISH_ROUTING__AUTOMATIC": "true",
        "AISH_CONTEXT__MAX_TURNS": "zero",
        "AISH_DEFAULT_MODEL": "nope",
        "AISH_LOG": "debug",
        "AISH_CONFIG": "",
        "AISH_": "x",
        "DEEP_KEY": "not aish",
    }
    loaded = load(PRESETS, user_file, env=env)
    assert sorted(loaded.warnings) == [
        "env AISH_: unknown config key ",
        "env AISH_CONTEXT__MAX_TURNS: must be a whole number (got 'zero')",
        "env AISH_DEFAULT_MODEL: no model preset named 'nope' (known: fast, deep)",
        "env AISH_FOO: unknown config key foo",
        "env AISH_ROUTING__AUTOMATIC: unknown config key routing.automatic",
    ]
    assert loaded.config.default_model == "fast"  # the file's value stands
    assert loaded.config.context.max_turns == 40


def test_env_variable_named_as_a_key_variable_is_not_a_config_key(user_file: Path) -> None:
    text = PRESETS.replace("DEEP_KEY", "AISH_DEEP_KEY")
    loaded = load(text, user_file, env={"AISH_DEEP_KEY": "sk-1"})
    assert loaded.warnings == []


def test_env_clash_between_a_value_and_a_table(user_file: Path) -> None:
    env = {"AISH_ROUTING": "true", "AISH_ROUTING__AUTO": "true"}
    loaded = load(None, user_file, env=env)
    assert (
        "env AISH_ROUTING__AUTO: ignored: routing is already set to a value" in (loaded.warnings[0])
    )
    assert loaded.warnings[1] == "env AISH_ROUTING: must be a table (got 'true')"


def test_flag_mistakes_name_the_flag(user_file: Path) -> None:
    loaded = load(PRESETS, user_file, flags={"default_model": "nope", "ui.edit_mode": "ed"})
    assert loaded.warnings == [
        "flag --ui.edit_mode: must be 'shell', 'emacs' or 'vi' (got 'ed')",
        "flag --model: no model preset named 'nope' (known: fast, deep)",
    ]
    assert loaded.config.default_model == "fast"
    assert loaded.sources["default_model"] == str(user_file)


# ---- zero-config --------------------------------------------------------------------------


def test_nothing_found_gives_one_how_to_line(
    user_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(autodetect, "LOCAL_SERVERS", ())
    loaded = load_config(env={}, autodetect=True)
    assert len(loaded.warnings) == 1
    line = loaded.warnings[0]
    assert "aish init" in line and str(user_file) in line and "OPENAI_API_KEY" in line
    assert loaded.config.models == {} and not loaded.autodetected


def test_key_variables_become_presets(user_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(autodetect, "LOCAL_SERVERS", ())
    env = {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oa", "OPENROUTER_API_KEY": " "}
    loaded = load_config(env=env, autodetect=True)
    assert loaded.warnings == []
    assert loaded.autodetected
    models = loaded.config.models
    assert list(models) == ["openai", "anthropic"]  # an empty variable offers nothing
    assert models["openai"].endpoint == "https://api.openai.com/v1"
    assert models["openai"].api_key_env == "OPENAI_API_KEY"
    assert models["anthropic"].api == "anthropic"
    assert loaded.config.default_model == "openai"
    assert loaded.sources["models.openai.model"] == "autodetect"


def test_no_autodetection_when_a_file_or_env_names_presets(
    user_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(autodetect, "LOCAL_SERVERS", ())
    env = {"OPENAI_API_KEY": "sk"}
    user_file.write_text("[ui]\nedit_mode = 'vi'\n")
    assert load_config(env=env).config.models == {}
    user_file.unlink()
    env["AISH_MODELS__MINE__ENDPOINT"] = "http://127.0.0.1:1/v1"
    env["AISH_MODELS__MINE__MODEL"] = "m"
    loaded = load_config(env=env)
    assert list(loaded.config.models) == ["mine"] and not loaded.autodetected


def test_a_pasted_key_in_api_key_env_drops_the_preset_without_echoing_it(
    xdg_home: Path,
) -> None:
    from aish.config import load_config

    path = xdg_home / "config" / "aish" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        '[models.cloud]\nendpoint = "https://openrouter.ai/api/v1"\nmodel = "m"\n'
        'api_key_env = "sk-or-v1-0123456789abcdef"\n'
        '[models.local]\nendpoint = "http://127.0.0.1:8080/v1"\nmodel = "m"\n'
        '[models.badport]\nendpoint = "http://127.0.0.1:99999/v1"\nmodel = "m"\n'
        '[models.query]\nendpoint = "https://x.example/v1?api-version=1"\nmodel = "m"\n'
    )
    loaded = load_config()
    assert list(loaded.config.models) == ["local"]
    text = "\n".join(loaded.warnings)
    assert "config.toml:4: key models.cloud.api_key_env" in text and "models.cloud ignored" in text
    assert "sk-or-v1" not in text
    assert "models.badport" in text and "models.query" in text
