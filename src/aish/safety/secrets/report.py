"""`aish secrets check`: what the scrubber would replace in a text, as one JSON document.

The shape, documented in `docs/secrets.md` and the command's help:
`{"findings": [{"type": "GITHUB_TOKEN", "start": 10, "end": 50}, …]}`, sorted by start;
start and end are offsets in characters (code points) of the text as read (UTF-8, invalid bytes
replaced), end exclusive; `"value"` is added to each finding only when asked to show it.
The environment's sensitive values count, as they do when a message leaves for a cloud model.
"""

from __future__ import annotations

from collections.abc import Mapping

from aish.safety.secrets.scrubber import env_file_values, find_secrets, sensitive_environment
from aish.safety.secrets.structures import kubernetes_secret_values


def findings_report(text: str, environ: Mapping[str, str], *, show: bool) -> dict[str, object]:
    """The JSON-ready report of what `SecretVault.scrub` would replace in `text`."""
    known = {
        **sensitive_environment(environ),
        **env_file_values(text),
        **kubernetes_secret_values(text),
    }
    findings: list[dict[str, object]] = []
    for finding in find_secrets(text, known):
        record: dict[str, object] = {
            "type": finding.type,
            "start": finding.start,
            "end": finding.end,
        }
        if show:
            record["value"] = finding.value
        findings.append(record)
    return {"findings": findings}
