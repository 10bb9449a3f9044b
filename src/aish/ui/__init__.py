"""The terminal frontend: the REPL loop, meta commands, the renderer and the confirm and HALT
prompts. The only room (with `cli/`) that prints.
"""
