"""Execution below the UI: the one place that runs an authorized action and contains it.

`sandbox/` runs Norris's agent shell in a copy-on-write sandbox (Linux namespaces and an
overlay over the working tree) and turns what it wrote into a change set the user reviews,
applies or discards. Reached through `agent/gate.py`'s authorizations: nothing here decides
whether an action may run. May import `shell`, `config` and the standard library; never `ui`
or `agent`.
"""
