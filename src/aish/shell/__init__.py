"""The persistent shell on a PTY: integration scripts, the marker parser, the capture
sanitiser and the session that spawns, injects, relays, interrupts and respawns.

Knows nothing of models; imports nothing from the other rooms.
"""
