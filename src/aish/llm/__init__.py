"""The model broker: request and event types, the OpenAI-compatible and Anthropic streaming
adapters, typed errors, retries and timeouts.

Each wire format is one adapter module behind the seam in `adapters`. Knows nothing of shells,
terminals or configuration files; it receives a resolved preset.
"""
