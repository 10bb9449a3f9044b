"""The config as the command line asks for it, for every subcommand and the REPL."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aish.config import LoadedConfig
    from aish.store import Store


def load(
    args: argparse.Namespace,
    *,
    autodetect: bool = True,
    store: Store | None = None,
    check_rules: bool = True,
) -> LoadedConfig:
    """The config; with `store`, also the project's `.aish.toml` for the cwd when trusted."""
    from aish.ui.render.visible_text import visible

    load = loader(args, autodetect=autodetect, store=store, check_rules=check_rules)
    loaded = load(os.getcwd())
    for warning in loaded.warnings:
        # A warning quotes paths and key names a cloned repository chose: shown, never obeyed.
        print(f"aish: {visible(warning)}", file=sys.stderr)
    return loaded


def loader(
    args: argparse.Namespace,
    *,
    autodetect: bool = True,
    store: Store | None = None,
    check_rules: bool = True,
) -> Callable[[str | None], LoadedConfig]:
    """Loads the config as the command line says, for a cwd (the REPL reloads with it); with
    `check_rules`, a permission rule's failing example is one of its warnings."""
    from pathlib import Path

    from aish.agent.permission_rules import checked
    from aish.config import load_config
    from aish.config.validated_cache import validated_cache_dir
    from aish.session.trust import trust_lookup, trust_on_demand

    path = Path(args.config) if getattr(args, "config", None) else None
    lookup = trust_lookup(store) if store is not None else trust_on_demand
    # A start with the same files, variables and trust as a recent one skips validation.
    cache = validated_cache_dir()

    def load(cwd: str | None) -> LoadedConfig:
        loaded = load_config(
            config_path=path,
            autodetect=autodetect,
            cwd=cwd,
            trusted_digest=lookup,
            cache_dir=cache,
        )
        return checked(loaded) if check_rules else loaded

    return load
