"""Meta commands, the REPL's own verbs (`:help`, `:model`, `:cost`, `:memory`, `:trust`,
`:undo` …): the command table and dispatch (`commands`), what a command may see of the REPL
(`context`), and one module per family of commands.
"""

__all__: list[str] = []
