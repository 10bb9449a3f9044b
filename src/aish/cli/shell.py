"""`aish` with no subcommand: the interactive shell, with its store and session."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from aish.cli.exit_codes import EXIT_FAILED, EXIT_USAGE
from aish.cli.loading import load, loader

if TYPE_CHECKING:
    from aish.config import LoadedConfig
    from aish.store import SessionInfo, Store


def run_shell(args: argparse.Namespace) -> int:
    import asyncio

    from aish.config.targets import preset_name
    from aish.session import Session
    from aish.store import Store, StoreError
    from aish.ui.repl.loop import Repl

    store: Store | None
    try:
        store = Store.open()
    except StoreError as error:
        store = _temporary_store(error)
    if store is None:
        load(args)  # its warnings still say what is wrong with the config
        return EXIT_FAILED
    try:
        loaded = load(args, store=store)
        session = _session_to_use(store, args, loaded)
        if session is None:
            print(f"aish: no session named '{args.resume}'", file=sys.stderr)
            return EXIT_USAGE
        model = args.model or preset_name(loaded.config) or "none"
        interactive = Session(
            loaded,
            model=model,
            store=store,
            info=session,
            reload=loader(args, store=store),
            loaded_for=os.getcwd(),
        )
        # One question after another to the same server: its connection stays open (the
        # REPL closes it as it ends).
        interactive.outbound.keep_connections = True
        repl = Repl(interactive)
        if args.resume is not None:
            print(repl.resume(model_given=args.model is not None))
        return asyncio.run(repl.run())
    finally:
        store.close()


def _temporary_store(error: Exception) -> Store | None:
    """When the data dir cannot hold the store (read-only, full, broken), the shell still
    runs: with a store in a temporary directory, gone when aish exits — said in one line."""
    import atexit
    import shutil
    import tempfile
    from pathlib import Path

    from aish.store import Store, StoreError

    print(f"aish: {error}", file=sys.stderr)
    try:
        folder = tempfile.mkdtemp(prefix="aish-store-")
        store = Store.open(Path(folder) / "aish.db")
    except (OSError, StoreError):
        return None
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    print("aish: this session is not saved (its log lives in a temporary file)", file=sys.stderr)
    return store


def _session_to_use(
    store: Store, args: argparse.Namespace, loaded: LoadedConfig
) -> SessionInfo | None:
    import os

    from aish.config.targets import preset_name

    model = args.model or preset_name(loaded.config) or ""
    if args.resume is None:
        return store.start_session(cwd=os.getcwd(), model=model)
    if args.resume:
        return store.find_session(args.resume)
    return store.last_session() or store.start_session(cwd=os.getcwd(), model=model)
