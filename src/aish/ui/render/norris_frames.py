"""How a Norris run — and any action's frame — looks in a terminal, as styled text: no
terminal needed to test it.

`norris_pieces` turns one Norris event, or a tool call's start and end (in chat too), into
`(text, rich style)` pieces (style `""` is plain); `ChatView` writes them. Every user-visible
string of the run lives here. The look:

    ⚡ Norris: count the python files                       (bold cyan)
      bounds: 16 steps · 15m wall clock · 3 skips          (dim)
      executor: local                                      (dim)
      plan (via planner):                                  (dim)
        1. list them
                                                           (a blank line before each step)
    [step 1/16: list them (task 1/2)]                      (bold; `[step k/N]` with no task)
    ┌ $ find . -name '*.py' [safe]                         (the level dim)
    │ ./a.py                                               (the last 20 lines, each cut to fit)
    └ exit 0 · 0.12s · /tmp/p                              (dim; red when the exit is not 0)
    ┌ ⚙ time__get_current_time {"timezone":"UTC"} [safe]  (a tool call: name and arguments)
    │ {"timezone": "UTC", "datetime": "…"}                 (its result's first lines)
    └ ok · 0.31s                                           (dim; `error` in red)
    ─── NORRIS HALT ─── step 2/16 ──────────────────────   (bold red, to the full width)
    reason: [destructive] rm deletes files                 (red)
    action: rm -rf build                                   (red)
    norris done: counted · 2/16 steps · 12.3s · 1,234 tokens · $0.0012 · agent cwd /tmp/p

The summary's `norris <status>` is green for `done`/`tasks_complete`, red for `aborted`,
`halted`, `failed` and `stuck` (the run did not get where it was going), yellow for the rest
(`blocked`, `stalled`, `budget_exhausted`: it stopped for a reason worth reading); the rest of
the line is dim. Everything that came from the model, a command or the user passes through
`visible`, so none of it can drive the terminal.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from aish.agent.events import (
    CommandFinished,
    CommandStarted,
    Halt,
    NorrisEnded,
    NorrisStarted,
    NorrisStatus,
    NorrisStep,
    ToolCallFinished,
    ToolCallStarted,
)
from aish.ui.render.visible_text import visible

if TYPE_CHECKING:
    from aish.agent.gate import HaltAnswer
    from aish.agent.norris import TakeOverAnswer

Piece = tuple[str, str]
NorrisEvent = (
    NorrisStarted
    | NorrisStep
    | CommandStarted
    | CommandFinished
    | ToolCallStarted
    | ToolCallFinished
    | Halt
    | NorrisEnded
)

HALT_QUESTION = "[p]roceed / [s]kip / [a]bort "
HALT_KEYS: dict[str, HaltAnswer] = {"p": "proceed", "s": "skip", "a": "abort"}
# A step that waits for terminal input (the HALT's level is `input`).
INPUT_QUESTION = "[t]ake over / [s]top it / [a]bort "
INPUT_KEYS: dict[str, TakeOverAnswer] = {"t": "take_over", "s": "stop", "a": "abort"}

OUTPUT_LINES_SHOWN = 20

_GOOD: frozenset[NorrisStatus] = frozenset({"done", "tasks_complete"})
_BAD: frozenset[NorrisStatus] = frozenset({"aborted", "halted", "failed", "stuck"})


def norris_pieces(event: NorrisEvent, *, width: int) -> list[Piece]:
    """The styled text of one Norris event, whole lines, `width` columns wide."""
    width = max(width, 20)  # a frame still reads on an absurdly narrow terminal
    if isinstance(event, NorrisStarted):
        return _started(event)
    if isinstance(event, NorrisStep):
        return [("\n", ""), (step_label(event) + "\n", "bold")]
    if isinstance(event, CommandStarted):
        return _command_started(event)
    if isinstance(event, CommandFinished):
        return _command_finished(event, width)
    if isinstance(event, ToolCallStarted):
        return _tool_started(event, width)
    if isinstance(event, ToolCallFinished):
        return _tool_finished(event, width)
    if isinstance(event, Halt):
        return _halt(event, width)
    return _ended(event)


def step_label(event: NorrisStep) -> str:
    """`[step k/N]`, `[step k/N: <task>]`, or with a plan `[step k/N: <task> (task i/n)]`."""
    head = f"step {event.step}/{event.max_steps}"
    if event.task is None:
        return f"[{head}]"
    position = f" (task {event.task_index}/{event.task_count})" if event.task_count > 0 else ""
    return f"[{head}: {_one_line(event.task)}{position}]"


def summary_line(event: NorrisEnded) -> str:
    """The run's one-line summary, unstyled."""
    head, rest = _summary_parts(event)
    return head + rest


def duration(seconds: float) -> str:
    """`0.12s` under a second, `12.3s` under a minute, `2m05s`, then `1h02m05s`."""
    if seconds < 1:
        return f"{max(seconds, 0):.2f}s"
    if round(seconds, 1) < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s"


def cost(usd: float | None) -> str:
    """`$0.0012` below a dollar (cents would hide most runs), `$1.23` above; unknown said so."""
    if usd is None:
        return "cost unknown"
    return f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"


# ---- one event each ----------------------------------------------------------------------------


def _started(event: NorrisStarted) -> list[Piece]:
    pieces: list[Piece] = [(f"⚡ Norris: {_one_line(event.goal)}\n", "bold cyan")]
    if event.bounds:
        bounds = " · ".join(_one_line(bound) for bound in event.bounds)
        pieces.append((f"  bounds: {bounds}\n", "dim"))
    pieces.append((f"  executor: {_one_line(event.executor)}\n", "dim"))
    if event.judge:
        pieces.append((f"  {_one_line(event.judge)}\n", "dim"))
    if event.tasks:
        via = f" (via {_one_line(event.preplanner)})" if event.preplanner else ""
        lines = [f"  plan{via}:\n"]
        lines += [f"    {n}. {_one_line(task)}\n" for n, task in enumerate(event.tasks, 1)]
        pieces.append(("".join(lines), "dim"))
    return pieces


def _command_started(event: CommandStarted) -> list[Piece]:
    # The exact command, never cut: it is what runs. Continuation lines stay inside the frame.
    first, *more = visible(event.command).split("\n")
    text = "".join([f"┌ $ {first}", *(f"\n│   {line}" for line in more)])
    return [(text, ""), (f" [{_one_line(event.level)}]\n", "dim")]


def _command_finished(event: CommandFinished, width: int) -> list[Piece]:
    pieces: list[Piece] = []
    lines = visible(event.output).expandtabs(8).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        pieces.append(("│ [no output]\n", "dim"))
    else:
        earlier = len(lines) - OUTPUT_LINES_SHOWN
        if earlier > 0:
            word = "line" if earlier == 1 else "lines"
            pieces.append((f"│ … {earlier} earlier {word}\n", "dim"))
            lines = lines[earlier:]
        pieces.append(("".join(f"│ {_cut(line, width - 2)}\n" for line in lines), ""))
    foot = f"└ exit {event.exit_status} · {duration(event.duration_s)} · {_one_line(event.cwd)}"
    pieces.append((foot + "\n", "red" if event.exit_status != 0 else "dim"))
    if event.notice:
        pieces.append((f"  {_one_line(event.notice)}\n", "dim"))
    return pieces


def _tool_started(event: ToolCallStarted, width: int) -> list[Piece]:
    # Arguments can be long JSON: one line, cut to fit (the model's call is logged whole).
    head = _cut(f"┌ ⚙ {_one_line(event.name)} {_one_line(event.arguments)}", width - 12)
    return [(head, ""), (f" [{_one_line(event.level)}]\n", "dim")]


def _tool_finished(event: ToolCallFinished, width: int) -> list[Piece]:
    lines = [line for line in visible(event.text).expandtabs(8).split("\n") if line.strip()]
    pieces: list[Piece] = []
    if lines:
        pieces.append(("".join(f"│ {_cut(line, width - 2)}\n" for line in lines), ""))
    else:
        pieces.append(("│ [no output]\n", "dim"))
    outcome = "error" if event.is_error else "ok"
    pieces.append(
        (f"└ {outcome} · {duration(event.duration_s)}\n", "red" if event.is_error else "dim")
    )
    return pieces


def _halt(event: Halt, width: int) -> list[Piece]:
    banner = f"─── NORRIS HALT ─── step {event.step}/{event.max_steps} "
    banner += "─" * max(width - len(banner), 3)
    reasons = "; ".join(_one_line(reason) for reason in event.reasons)
    if event.level == "input":  # "needs your input: Password:", no verdict to show
        reason = f"reason: {reasons}"
    else:
        reason = f"reason: [{_one_line(event.level)}] {reasons}".rstrip()
    first, *more = visible(event.action).split("\n")
    action = "".join([f"action: {first}", *(f"\n        {line}" for line in more)])
    pieces = [(banner + "\n", "bold red"), (f"{reason}\n{action}\n", "red")]
    # What it will touch and whether :undo can take it back (the gate's blast radius).
    pieces += [(f"  {_one_line(line)}\n", "dim") for line in event.touches]
    return pieces


def _ended(event: NorrisEnded) -> list[Piece]:
    head, rest = _summary_parts(event)
    if event.status in _GOOD:
        style = "bold green"
    elif event.status in _BAD:
        style = "bold red"
    else:
        style = "bold yellow"
    pieces: list[Piece] = [(head, style), (rest + "\n", "dim")]
    if event.pending_action:
        pieces.append((f"  pending action: {_one_line(event.pending_action)}\n", "dim"))
    return pieces


def _summary_parts(event: NorrisEnded) -> tuple[str, str]:
    reason = _one_line(event.reason)
    head = f"norris {event.status}" + (f": {reason}" if reason else "")
    tokens = f"{event.tokens:,} token" + ("" if event.tokens == 1 else "s")
    rest = [
        f"{event.steps}/{event.max_steps} steps",
        duration(event.elapsed_s),
        tokens,
        cost(event.cost_usd),
        f"agent cwd {_one_line(event.cwd)}",
    ]
    return head, "".join(f" · {part}" for part in rest)


# ---- text ------------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    """Untrusted text for a one-line slot: made visible, line breaks folded to spaces."""
    return " ".join(visible(text).split("\n")).strip()


def _cut(line: str, cells: int) -> str:
    """`line` in at most `cells` terminal columns, ending in `…` when it was cut."""
    if _cells(line) <= cells:
        return line
    kept, used = [], 0
    for char in line:
        used += _char_cells(char)
        if used > cells - 1:
            break
        kept.append(char)
    return "".join(kept) + "…"


def _cells(text: str) -> int:
    return sum(_char_cells(char) for char in text)


def _char_cells(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
