"""The askpass bridge: `sudo` in the agent's shell asks for its password on aish's own prompt.

`bridge.AskpassBridge` listens on a Unix socket in a private (0700) directory and writes the
program `SUDO_ASKPASS` names (`helper.py`, through a small launcher); the agent's shell gets
that variable and `alias sudo='sudo -A -k'` (sudo reads the terminal, not `SUDO_ASKPASS`, unless
`-A` says otherwise; `-k`: no cached credential, so every sudo asks). Only sudo's own askpass
child is answered (`peer`): any other program that runs `$SUDO_ASKPASS` is refused. The
question goes to whoever the bridge's `ask` is — the Norris run's password question, echo off,
naming the step — and the answer goes back to the helper, and only there: it is never logged,
recorded or shown to a model.
"""

from __future__ import annotations

from aish.run.askpass.bridge import AskpassBridge

__all__ = ["AskpassBridge"]
