"""The interactive shell: its loop (`loop.Repl`), a command's output on the terminal
(`shell_output`; the shell itself runs in `aish.run.user_shell`), line input (continuation,
history, the prompt line, completion against the live shell), the REPL's models, memory and
MCP servers, and the meta commands (`meta/`).

Modules are imported by path: importing this face loads none of them (the loop pulls in
prompt_toolkit, which the first prompt pays for only once).
"""

__all__: list[str] = []
