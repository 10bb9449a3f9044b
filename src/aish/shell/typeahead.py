"""Where the shell hands back the keys a command did not read.

After aish's command the integration script reads its terminal up to aish's END_OF_INPUT key
(see ``protocol.py``) and writes what came before it to a private file next to its rc file; aish
takes the file when the prompt is ready. The keys may hold anything the user typed (a password
for a program that had already exited), so the file lives only until aish takes it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["typeahead_path"]


def typeahead_path(rcfile_dir: Path, shell_pid: int) -> Path:
    """The file the shell with this pid writes its unread keys to (the scripts' naming)."""
    return rcfile_dir / f"aish-typeahead.{shell_pid}"
