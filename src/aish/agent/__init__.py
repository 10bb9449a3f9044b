"""What the assistant does: a chat turn with its tool sub-loop, action extraction
(CMD:/TASK:/GOAL:), the one safety gate, and the sub-rooms `norris/` (the loop, its bounds and
prompt, the preplanner), `routing/` (where a typed line goes, and `aish route`) and `project/`
(the `[project]` block of `:context`, the gate's policy per project directory).

Never prints: it talks to a `Frontend` protocol. May import conversation, llm, shell, safety,
mcp and store; never `ui`.
"""
