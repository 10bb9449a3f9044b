"""`aish doctor`'s question for each preset: does its endpoint answer, and with what?

One listing of the endpoint's models, reported as `(ok, one short phrase)`. The CLI prints.
It is I/O to a model server, so it belongs to the broker's room, not to `config`.
"""

from __future__ import annotations

from aish.errors import ConfigError
from aish.llm.errors import ConnectError, HTTPStatusError, LLMError, TimedOut
from aish.llm.types import ModelTarget


async def check_endpoint(target: ModelTarget, timeout_s: float) -> tuple[bool, str]:
    """`(True, "answers, 3 models")`, `(False, "connection refused")`, `(False, "HTTP 401")`."""
    from aish.llm.listing import list_models  # httpx only when a check runs

    try:
        ids = await list_models(target, timeout_s)
    except HTTPStatusError as error:
        return False, f"HTTP {error.status}"
    except TimedOut:
        return False, f"no answer within {timeout_s:g}s"
    except ConnectError as error:
        return False, error.reason or error.message
    except (LLMError, ConfigError) as error:  # the doctor line already names the endpoint
        return False, error.message
    detail = f"answers, {len(ids)} model{'' if len(ids) == 1 else 's'}"
    if ids and target.model not in ids:
        detail += f"; {target.model} is not among them"
    return True, detail
