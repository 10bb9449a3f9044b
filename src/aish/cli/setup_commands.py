"""Setting aish up: `aish init` (an example config), `aish doctor` (what is configured and
whether each model answers), `aish completion` (the shell's completion script)."""

from __future__ import annotations

import argparse
import sys

from aish import __version__
from aish.cli.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from aish.cli.loading import load


def run_init(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from aish.config.example import write_example
    from aish.config.paths import config_file

    path = Path(args.config) if args.config else config_file()
    try:
        written = write_example(path, force=args.force)
    except FileExistsError:
        print(f"aish: {path} exists; use --force to overwrite it", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"aish: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {written}")
    if os.environ.get("AISH") == "1":  # typed inside aish: the running session can take it up
        print("in this aish session, `:config reload` starts using it")
    return EXIT_OK


def run_doctor(args: argparse.Namespace) -> int:
    import asyncio
    import os

    from aish.endpoints import shown_endpoint
    from aish.errors import ConfigError
    from aish.llm.probe import check_endpoint
    from aish.session import resolve_target
    from aish.ui.render.visible_text import visible

    loaded = load(args)
    config = loaded.config
    print(f"aish {__version__}")
    print(f"config file: {loaded.user_file or 'none'}")
    print("config sources, lowest first:")
    for source, keys in _keys_by_source(loaded.sources).items():
        shown = ", ".join(keys[:3]) + (f", … ({len(keys)} keys)" if len(keys) > 3 else "")
        print(f"  {source}: {shown}")
    if not config.models:
        print("no model presets")
        return EXIT_FAILED
    print(f"presets (default: {config.default_model or next(iter(config.models))}):")
    healthy = True
    for name in config.models:
        try:
            target = resolve_target(config, name, os.environ)
        except ConfigError as error:
            print(f"  [bad] {visible(str(error))}")
            healthy = False
            continue
        ok, detail = asyncio.run(check_endpoint(target, min(target.connect_timeout_s, 3.0)))
        healthy = healthy and ok
        mark = "ok " if ok else "bad"
        # The detail can quote what the server sent.
        endpoint = shown_endpoint(target.endpoint)
        line = f"  [{mark}] {name}: {target.model} via {target.api} at {endpoint}: {detail}"
        print(visible(line))
    return EXIT_OK if healthy else EXIT_FAILED


def _keys_by_source(sources: dict[str, str]) -> dict[str, list[str]]:
    """Group `key → source` as `source → keys`, in layer precedence order."""
    grouped: dict[str, list[str]] = {}
    for key, source in sources.items():
        grouped.setdefault(source, []).append(key)

    def rank(source: str) -> int:
        prefixes = ("default", "autodetect", "", "env ", "flag ")
        return next((i for i, p in enumerate(prefixes) if p and source.startswith(p)), 2)

    return {source: sorted(grouped[source]) for source in sorted(grouped, key=rank)}


def run_completion(args: argparse.Namespace) -> int:
    from aish.cli.parser import build_parser
    from aish.completion_script import completion_script

    sys.stdout.write(completion_script(args.shell, build_parser()))
    return EXIT_OK
