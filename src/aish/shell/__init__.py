"""The persistent shell on a PTY: integration scripts, the marker parser, the capture
sanitiser and the session that spawns, injects, relays, interrupts and respawns.

The front door is ``session.ShellSession`` (with ``terminal.Terminal`` for relaying the user's
terminal while a command runs). Inside: ``integration.bash``/``integration.zsh`` (the shell's
hooks), ``markers`` (pure parser of their markers), ``protocol`` (what the markers mean, no
I/O), ``channel`` (reading and writing the PTY), ``process`` and ``launch`` (starting the
shell), ``results`` (result and error types, user-visible notices), ``environment`` (the live
shell's exported variables, for starting another shell like it), the sub-room ``capture/``
(what the model sees of a command's output) and ``completion_helper`` (a second bash that runs
the user's programmable completion; the line it is given is cut by the shared leaf
``aish.completion_words``).

Knows nothing of models; imports nothing from the other rooms, and never prints.
"""
