"""The interactive shell: its loop (`loop.Repl`), the user's command lines in the live shell
(`shell_commands`), line input (continuation, history, the prompt line, completion against the
live shell), the REPL's models, memory and MCP servers, and the meta commands (`meta/`).

Modules are imported by path: importing this face loads none of them (the loop pulls in
prompt_toolkit, which the first prompt pays for only once).
"""

__all__: list[str] = []
