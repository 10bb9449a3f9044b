"""Token usage figures reported with a reply (estimated from character counts)."""

from __future__ import annotations

from dataclasses import dataclass

from aish_testllm.scenario import UsageOverride
from aish_testllm.tokens import CHARS_PER_TOKEN, estimate_tokens, whole_tokens


@dataclass(frozen=True)
class Usage:
    """Usage of one request; ``cached_tokens`` is part of ``prompt_tokens``."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    reasoning_tokens: int
    cost: float | None = None

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def uncached_prompt_tokens(self) -> int:
        """Prompt tokens that were not served from the (simulated) prefix cache."""
        return max(self.prompt_tokens - self.cached_tokens, 0)


def compute_usage(
    override: UsageOverride,
    *,
    prompt_chars: int,
    cached_chars: int,
    completion_chars: int,
    reasoning_chars: int,
    chars_per_token: float = CHARS_PER_TOKEN,
) -> Usage:
    """Default figures from character counts, with any scenario overrides applied."""
    ratio = chars_per_token

    def pick(value: int | None, default: int) -> int:
        return default if value is None else value

    return Usage(
        prompt_tokens=pick(override.prompt_tokens, estimate_tokens(prompt_chars, ratio)),
        completion_tokens=pick(
            override.completion_tokens, estimate_tokens(completion_chars, ratio)
        ),
        cached_tokens=pick(override.cached_tokens, whole_tokens(cached_chars, ratio)),
        reasoning_tokens=estimate_tokens(reasoning_chars, ratio),
        cost=override.cost,
    )
