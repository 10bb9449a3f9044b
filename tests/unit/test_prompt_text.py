"""The prompt shows the model, a short cwd and a failing status."""

from __future__ import annotations

from aish.ui.repl.prompt_line import prompt_text, shorten_cwd


def test_home_and_long_paths_are_shortened() -> None:
    assert shorten_cwd("/home/u", home="/home/u") == "~"
    assert shorten_cwd("/home/u/src/aish", home="/home/u") == "~/src/aish"
    assert shorten_cwd("/home/user2", home="/home/u") == "/home/user2"
    long = "/srv/data/projects/customer-portal/backend/services/billing"
    short = shorten_cwd(long, home="/home/u")
    assert short.startswith("…/") and short.endswith("/billing") and len(short) <= 34


def test_status_shows_only_when_non_zero() -> None:
    assert prompt_text("fast", "/tmp", 0) == "[aish:fast] /tmp> "
    assert prompt_text("fast", "/tmp", 2) == "[aish:fast] /tmp [2]> "
    assert prompt_text("deep", "/tmp", 0, norris=True) == "[aish:deep ⚡] /tmp> "
