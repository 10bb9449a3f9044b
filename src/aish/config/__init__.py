"""Configuration: the pydantic schema, layered loading (defaults < user file < trusted project
file < AISH_* environment < CLI flags), XDG paths and zero-config autodetection of model servers.

Imports nothing from the other rooms except `llm` types it describes by name only.
"""
