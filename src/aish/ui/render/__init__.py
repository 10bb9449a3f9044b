"""Text made ready for the terminal, pure and without I/O: markdown while it streams and
finished blocks as ANSI, `CMD:` lines spotted in a reply, Norris frames and a sandbox's change
set as styled pieces, the one escaping rule for text aish did not write (`visible_text`),
control sequences stripped for pipes, JSON lines, and the terminal state a program left behind.
"""

__all__: list[str] = []
