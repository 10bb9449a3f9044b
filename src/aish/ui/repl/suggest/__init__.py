"""Ghost text as you type (`ui.suggest`): `history` (your lines, this directory's first) and
`model` (a local model's completion when the history has none, asked once you pause)."""
