"""What each Norris step tells the model, and how the bounds read in the banner."""

from __future__ import annotations

from aish.agent.norris import INSTRUCTIONS, NorrisBounds
from aish.agent.norris.prompt import StepFacts, step_message
from aish.config.schema import NorrisConfig


def test_the_first_step_carries_the_instructions_goal_and_task() -> None:
    text = step_message(StepFacts("count files", 1, 16, "list them", 1, 3))
    assert text == (
        f"{INSTRUCTIONS}\nGoal: count files\nCurrent task 1/3: list them\nStep 1 of at most 16."
    )
    assert "GOAL: complete" in INSTRUCTIONS and "GOAL: blocked" in INSTRUCTIONS
    assert "[aish] action skipped by user: <action>" in INSTRUCTIONS


def test_later_steps_carry_a_short_reminder_with_the_goal_and_task() -> None:
    text = step_message(StepFacts("count files", 4, 16))
    assert INSTRUCTIONS not in text
    lines = text.splitlines()
    assert lines[0].startswith("[aish norris mode] Continue toward the goal")
    assert lines[1:] == ["Goal: count files", "Step 4 of at most 16."]
    assert len(text) < 250  # it is repeated every step: it must stay small


def test_bounds_from_config_and_as_shown() -> None:
    config = NorrisConfig(
        max_norris_steps=8, wall_clock_s=5400, token_cap=20000, command_timeout_s=45
    )
    bounds = NorrisBounds.from_config(config, commands_per_step=3)
    assert bounds.describe() == (
        "8 steps",
        "1h30m wall clock",
        "45s per command",
        "3 commands per step",
        "3 skips in a row",
        "20,000 tokens",
        "no cost cap",
    )
    assert NorrisBounds.from_config(config, max_steps=2).max_steps == 2
    unlimited = NorrisBounds(wall_clock_s=None, cost_cap_usd=0.5, command_timeout_s=300)
    assert unlimited.describe()[1:3] == ("no wall-clock limit", "5m per command")
    assert unlimited.describe()[-1] == "$0.5 cost cap"
