"""The line that starts a `CMD&:` command as a background job of a shell, and what cannot be
started that way.

The gate judged the command's text in the shell that runs it; the wrapping must not change
what that text means. So the command is never spliced into aish's own syntax: it is one
single-quoted word handed to `eval` in a subshell, which parses it exactly as the prompt would
(the same aliases, functions and variables: the subshell is a fork of that shell), and no text
of the command — a `)`, a quote, a comment, a trailing backslash — can reach the wrapper around
it. The subshell keeps an `exit`, a `cd` or an `exec` of the command to the job.

What cannot be started that way is refused before anyone is asked, with the reason: text bash
would not take as finished (an unclosed quote, a trailing backslash, an open construct), a
here-document (a one-line command has no body for it), a parse error (`true ) ; rm x ; ( true`
judged as text is a broken line, and must not run as anything), a trailing `&` (the job would
end at once while its program ran on unseen), and a `!` history expansion (the prompt expands
it, `eval` would not: it would run as other text than the line judged).

    { if ( builtin eval '<command>' ) </dev/null >>'<dir>/out' 2>&1; then builtin echo 0;
      else builtin echo "$?"; fi >|'<dir>/status'; } & builtin echo $! >|'<dir>/pid';
      builtin disown 2>/dev/null || builtin :

The output goes into a FIFO that aish holds open for reading (`table`): it never reaches a disk,
so a job printing without end (`yes`) cannot fill one, and the job's output lives only as long
as aish reads it — once aish is gone, the job's next write ends it (SIGPIPE). (`>>` rather than
`>`: a FIFO is not truncated either way, and a user's `noclobber` never refuses it.) The exit
status is written once the command ended (the `if` keeps a user's `set -e` from skipping it),
and the job is disowned: the shell prints no "Done" line over aish's prompt, and aish keeps its
own table (`:jobs`). A job that ended before `disown` ran (`exec true`) may be gone from zsh's
table already: that is no failure to start (the pid file says it started). Works the same in
bash and zsh (`$!` unquoted: zsh would take `!"` for a history reference).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["JobFiles", "background_line", "cannot_background"]


@dataclass(frozen=True)
class JobFiles:
    """Where one job's output (a FIFO aish reads), exit status and pid go (a private directory
    of the shell's)."""

    directory: Path

    @property
    def output(self) -> Path:
        return self.directory / "out"

    @property
    def status(self) -> Path:
        return self.directory / "status"

    @property
    def pid(self) -> Path:
        return self.directory / "pid"


def cannot_background(command: str) -> str | None:
    """Why `command` cannot run as a background job, or None when it can."""
    from aish.safety.bash.continuation import unfinished
    from aish.safety.bash.history_expansion import history_expansion
    from aish.safety.bash.syntax import parsed_tree

    if not command.strip():
        return "there is no command"
    open_ = unfinished(command)
    if open_ is not None:
        if open_.kind == "heredoc":
            return "a here-document has no body on a single line"
        return f"it is not a finished line ({open_.reason})"
    expansion = history_expansion(command)
    if expansion is not None:
        return f"`{expansion}` is a history expansion, which a background job cannot repeat"
    with parsed_tree(command) as (root, error):
        if error is not None:
            return f"bash cannot parse it ({error})"
        if any(node.type.startswith("heredoc") for node in _nodes(root)):
            return "a here-document has no body on a single line"
        tokens = [child for child in root.children if child.type != "comment"]
        if tokens and tokens[-1].type == "&":
            return "it already ends in `&`: propose it without the `&`"
    return None


def background_line(command: str, files: JobFiles) -> str:
    """The line typed into the shell to start `command` as a job writing into `files`."""
    quoted = shlex.quote(command)
    out, status, pid = (shlex.quote(str(p)) for p in (files.output, files.status, files.pid))
    return (
        f"{{ if ( builtin eval {quoted} ) </dev/null >>{out} 2>&1; then builtin echo 0; "
        f'else builtin echo "$?"; fi >|{status}; }} & builtin echo $! >|{pid}; '
        "builtin disown 2>/dev/null || builtin :"
    )


def _nodes(root: Node) -> list[Node]:
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found
