"""The project the shell is in, as aish sees it: the `[project]` block `:context` attaches
(`summary`: root, branch and bounded `git status` from a git run with the repository's
programs neutralised; `file_tree`: the bounded tree and manifest heads), and the gate's policy
per project directory (`policies`: a trusted project file widens what runs only inside its own
project). Callers outside this room import this lazy face.

The repository is untrusted text: nothing here runs a program it names, and nothing imports
`ui`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aish._lazy_face import lazy_names

if TYPE_CHECKING:
    from aish.agent.project.policies import DirectoryPolicies, may_change_directory
    from aish.agent.project.summary import (
        GIT_TIMEOUT,
        SummaryLimits,
        project_summary,
    )

__all__ = [
    "GIT_TIMEOUT",
    "DirectoryPolicies",
    "SummaryLimits",
    "may_change_directory",
    "project_summary",
]

# Public name → module that defines it, resolved on first use.
_HOMES = {
    "GIT_TIMEOUT": "aish.agent.project.summary",
    "DirectoryPolicies": "aish.agent.project.policies",
    "SummaryLimits": "aish.agent.project.summary",
    "may_change_directory": "aish.agent.project.policies",
    "project_summary": "aish.agent.project.summary",
}

__getattr__ = lazy_names(__name__, _HOMES)
