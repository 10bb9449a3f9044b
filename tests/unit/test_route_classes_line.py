"""`:route classes` names where each class of question goes, `??`'s fix class included."""

from __future__ import annotations

from aish.config.validation import validate_config
from aish.session.models import ModelChoice

_PRESET = {"endpoint": "http://127.0.0.1:1/v1", "model": "m"}


def _line(settings: dict[str, object]) -> str:
    choice = ModelChoice(validate_config(settings), status=lambda _: None, log=lambda *_: None)
    return choice.route_command("classes")


def test_the_fix_class_is_shown_with_the_preset_it_goes_to() -> None:
    line = _line(
        {
            "models": {"deep": _PRESET, "small": _PRESET},
            "routing": {"classes": {"code": "deep", "fix": "small"}},
        }
    )
    assert line == (
        "auto-routing off: code → deep, reasoning → your model, default → your model; "
        "?? (fix) → small"
    )


def test_without_a_fix_entry_a_fast_preset_takes_it_else_your_model() -> None:
    assert _line({"models": {"fast": _PRESET}}).endswith("; ?? (fix) → fast")
    assert _line({"models": {"deep": _PRESET}}).endswith("; ?? (fix) → your model")
