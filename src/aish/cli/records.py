"""Subcommands over what the store keeps: `aish memory`, `aish cost`, `aish export`."""

from __future__ import annotations

import argparse
import os
import sys

from aish.cli.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from aish.cli.loading import loader


def run_memory(args: argparse.Namespace) -> int:
    from pathlib import Path

    from aish.store import Store, StoreError
    from aish.ui.render.json_lines import escape_raw_controls

    if args.memory_command == "import":
        return _import_memory(args)
    try:
        with Store.open() as store:
            text = "".join(line + "\n" for line in store.export_memory())
    except StoreError as error:
        print(f"aish: {error}", file=sys.stderr)
        return EXIT_FAILED
    if args.file is None:
        sys.stdout.write(escape_raw_controls(text))
        return EXIT_OK
    try:
        Path(args.file).write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"aish: cannot write {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _import_memory(args: argparse.Namespace) -> int:
    """Show what the file adds, ask (unless --yes), then add it in one transaction."""
    from pathlib import Path

    from aish.store import Store, StoreError
    from aish.ui import memory_import

    if not args.yes and (args.file == "-" or not sys.stdin.isatty()):
        print(memory_import.NEEDS_YES, file=sys.stderr)
        return EXIT_USAGE
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        print(f"aish: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        with Store.open() as store:
            plan = store.plan_memory_import(data.split(b"\n"))
        memory_import.print_listing(plan, sys.stdout)
        if not plan.new:
            print("nothing to import")
        elif args.yes or memory_import.confirmed(plan, input):
            with Store.open() as store:
                print(memory_import.report_line(store.import_memory(plan)))
        else:
            print("nothing imported")
    except StoreError as error:
        print(f"aish: {error}", file=sys.stderr)
        return EXIT_FAILED
    if plan.refused:
        lines = "line" if len(plan.refused) == 1 else "lines"
        print(f"aish: skipped {len(plan.refused)} {lines}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def run_cost(args: argparse.Namespace) -> int:
    from aish.store import Store, StoreError
    from aish.ui import cost_report

    since_ts: float | None = None
    if args.since is not None:
        try:
            since_ts = cost_report.parse_since(args.since)
        except ValueError as error:
            print(f"aish cost: {error}", file=sys.stderr)
            return EXIT_USAGE
    try:
        with Store.open() as store:
            rows = store.usage_totals(since_ts=since_ts, by=(args.by,))
            (total,) = store.usage_totals(since_ts=since_ts, by=())
    except StoreError as error:
        print(f"aish: {error}", file=sys.stderr)
        return EXIT_FAILED
    heading = cost_report.report_heading(args.by, args.since, since_ts)
    cost_report.print_report(rows, total, heading, sys.stdout)
    return EXIT_OK


def run_export(args: argparse.Namespace) -> int:
    from aish.store import Store, StoreError
    from aish.ui.export import run_export_command

    try:
        with Store.open() as store:
            # Only to know which presets scrub: its warnings are not this command's business.
            load = loader(args, autodetect=False, store=store, check_rules=False)
            return run_export_command(
                store,
                load(os.getcwd()).config,
                session=args.session,
                fmt=args.format,
                file=args.file,
                out=sys.stdout,
                err=sys.stderr,
            )
    except StoreError as error:
        print(f"aish: {error}", file=sys.stderr)
        return EXIT_FAILED
