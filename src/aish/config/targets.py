"""Which preset a request uses when none (or a name) is given: pure config, no keys read.

Resolving a preset into the broker's `ModelTarget` (and reading its API key) is model choice,
in `aish.session.model_targets`: `config` imports nothing from `llm`.
"""

from __future__ import annotations

from aish.config.schema import AishConfig

__all__ = ["preset_name"]


def preset_name(config: AishConfig, name: str | None = None) -> str | None:
    """The preset a request uses: `name`, else `default_model`, else the first preset."""
    if name:
        return name
    return config.default_model or next(iter(config.models), None)
