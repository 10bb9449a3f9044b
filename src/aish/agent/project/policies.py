"""The gate's policy for one action, from the config of the directory the action runs in.

A trusted project file may widen what runs (`safety.allow`, `confirm_cmd`, MCP `auto_approve`),
but only inside its own project: the user who trusted `make test` in repository A did not
trust B's Makefile. So the policy is taken per action, from the directory of the shell that
will run it at that moment — the user's shell for chat, the agent's shell for Norris.

A command that may change directory part-way (`cd ../B && make test`, `make -C ../B test`)
would run its later parts under another project's files, so it gets only the rules that hold
everywhere: the user's own config, without any project file. The test for that is a
conservative look at the words (a false alarm only means the project's extra rules do not
help that one command).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from aish.agent import gate
from aish.agent.permission_rules import user_rules_of

if TYPE_CHECKING:
    from aish.agent.outbound import Outbound
    from aish.config.project_scope import ConfigScope

__all__ = ["DirectoryPolicies", "may_change_directory"]

# `cd`, `pushd`, `popd` as words anywhere (also inside `bash -c '…'`), and the options that run
# a program somewhere else: `make -C`, `git -C`, `env --chdir`, `tar --directory`, `git --git-dir`.
_CHANGES_DIRECTORY: Final = re.compile(
    r"(?<![\w./-])(?:cd|pushd|popd|chdir)(?![\w./-])"
    r"|(?<![\w-])(?:-C|--chdir|--directory|--git-dir|--work-tree)(?![\w-])"
)


def may_change_directory(command: str) -> bool:
    """Whether part of `command` may run in a directory other than the one it starts in."""
    return _CHANGES_DIRECTORY.search(command) is not None


@dataclass(frozen=True)
class DirectoryPolicies:
    """A `gate.PolicySource`: the policy of the directory `cwd()` names when asked."""

    scope: ConfigScope
    mode: gate.Mode
    cwd: Callable[[], str]
    yes_safe: bool = False
    # The session's door: every policy made here redeems placeholders with its vault.
    outbound: Outbound | None = None

    def __call__(self, action: gate.Action) -> gate.Policy:
        if isinstance(action, gate.ProposedCommand) and may_change_directory(action.command):
            loaded = self.scope.outside_projects()
            policy = gate.Policy.from_config(
                loaded.config, self.mode, yes_safe=self.yes_safe, outbound=self.outbound
            )
            # What the project denies or asks about still holds: leaving it loosens nothing.
            here = user_rules_of(self.scope.loaded_for(self.cwd()).config.safety)
            return dataclasses.replace(policy, user_rules=policy.user_rules.tightened_by(here))
        loaded = self.scope.loaded_for(self.cwd())
        return gate.Policy.from_config(
            loaded.config, self.mode, yes_safe=self.yes_safe, outbound=self.outbound
        )
