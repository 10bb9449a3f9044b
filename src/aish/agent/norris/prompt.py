"""What a Norris step tells the model: the mode's instructions, the goal, the current task.

All of it goes into the newest user message of each step, never the system prompt (DESIGN.md
"Prompt layout"): the system prompt and the history stay byte-identical, so a server's prefix
cache keeps everything up to the previous step. The first step carries the full instructions;
later steps a short reminder of the goal and task, since the instructions are already in the
history the model reads. No memory `[background]` block is ever part of a step.
"""

from __future__ import annotations

from dataclasses import dataclass

INSTRUCTIONS = """\
[aish norris mode] You are now working autonomously toward the goal below, step by step. \
Each reply is one step: propose the next command(s) as CMD: lines. aish runs them in a shell of \
its own (safe ones without asking; anything that may change or delete something waits for the \
user) and shows you their output in the next message. Re-plan from what you see; prefer \
read-only commands to find things out. When the goal is achieved, write a line \
GOAL: complete
optionally followed by a brief summary. If it cannot be achieved, or you need the user, write \
GOAL: blocked <one-line reason>
An action the user declines comes back as "[aish] action skipped by user: <action>"; then \
choose another way or say you are blocked. A long command can run in the background as \
CMD&: <command>: the run goes on, and its exit status and output come with the first step \
after it ends; a step that proposes nothing while background jobs run waits for one to end."""

_REMINDER = (
    "[aish norris mode] Continue toward the goal: the next CMD: line(s), or GOAL: complete / "
    "GOAL: blocked <reason>."
)


@dataclass(frozen=True)
class StepFacts:
    """Where the run stands when a step starts."""

    goal: str
    step: int
    max_steps: int
    task: str | None = None
    task_index: int = 0  # 1-based; 0: no plan
    task_count: int = 0
    # The full instructions although this is not the first step (the history lost them).
    instructions: bool = False


def step_message(facts: StepFacts) -> str:
    """The text of the step's user message (the context block of command results goes
    before it, as in every turn)."""
    lines = [INSTRUCTIONS if facts.step == 1 or facts.instructions else _REMINDER]
    lines.append(f"Goal: {facts.goal}")
    if facts.task is not None:
        lines.append(f"Current task {facts.task_index}/{facts.task_count}: {facts.task}")
    lines.append(f"Step {facts.step} of at most {facts.max_steps}.")
    return "\n".join(lines)
