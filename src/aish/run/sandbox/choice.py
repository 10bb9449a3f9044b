"""Whether this run gets a sandbox, and the one line that says so.

`overlay` and `auto` both build one where the kernel allows it; where it does not the run says
so in one line and runs unsandboxed — never silently. `off` builds none and says nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from aish.run.sandbox.namespaces import sandbox_support
from aish.run.sandbox.overlay import Sandbox, SandboxUnavailable, project_root

__all__ = ["choose_sandbox"]

Setting = Literal["auto", "overlay", "off"]


def choose_sandbox(
    setting: Setting, cwd: str, *, network: bool = False, sockets: Sequence[str] = ()
) -> tuple[Sandbox | None, str | None]:
    """The sandbox for a run started in `cwd` (over its project root), and what to say."""
    if setting == "off":
        return None, None
    support = sandbox_support()
    if not support.available:
        return None, f"no sandbox here ({support.reason}): this run is NOT sandboxed"
    tree = project_root(cwd)
    try:
        sandbox = Sandbox.create(tree, network=network, allow_sockets=sockets)
    except (SandboxUnavailable, OSError) as error:
        return None, f"no sandbox here ({error}): this run is NOT sandboxed"
    net = "network on" if network else "no network"
    return sandbox, (
        f"sandboxed: changes to {_shown(tree)} stay in a copy-on-write overlay until you "
        f"apply them; the rest is read-only, {net}"
    )


def _shown(tree: Path) -> str:
    home = Path.home()
    try:
        return f"~/{tree.relative_to(home)}" if tree != home else "~"
    except ValueError:
        return str(tree)
