"""The context sent to a model: turns, the prompt layout (stable system prompt, dynamic
context in the newest user message), budgets, eviction, summaries and token counts.

May import `llm` types; never `ui`, `agent` or `shell`.
"""
