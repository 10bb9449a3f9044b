"""Token estimates for when a server reports no usage.

A deliberately simple ~4 characters per token over the serialised request: good enough to show
a cost and a context size marked as estimated, and never presented as exact.
"""

from __future__ import annotations

import json
import math
from typing import Any

from aish.llm.types import Usage

CHARS_PER_TOKEN = 4.0


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def estimate_usage(request_body: dict[str, Any], reply_text: str) -> Usage:
    prompt = {k: request_body.get(k) for k in ("system", "messages", "tools") if k in request_body}
    return Usage(
        prompt_tokens=estimate_tokens(json.dumps(prompt, ensure_ascii=False)),
        completion_tokens=estimate_tokens(reply_text),
        estimated=True,
    )
