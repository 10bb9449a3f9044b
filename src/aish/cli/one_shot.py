"""`aish ask` and `aish goal`: one question, or one goal pursued, then exit."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from aish.cli.exit_codes import (
    EXIT_FAILED,
    EXIT_HALTED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
)
from aish.cli.loading import load, loader

if TYPE_CHECKING:
    from aish.agent.events import UsageRecorded
    from aish.conversation.system_prompt import PromptFacts
    from aish.llm.types import ModelTarget
    from aish.session import Session


def say_on_stderr(text: str) -> None:
    print(f"aish: {text}", file=sys.stderr)


def session_target(session: Session, name: str | None) -> ModelTarget | None:
    """The target of preset `name` (None: the default) for `aish ask` and `aish goal`; what
    is wrong with it is said on stderr, unless the config's warnings said it already."""
    target = session.resolve(name)
    if isinstance(target, str):
        if target not in session.loaded.warnings:  # "no model configured" was already said
            say_on_stderr(target)
        return None
    return target


def run_ask(args: argparse.Namespace) -> int:
    import asyncio
    import os

    from aish.agent.events import Status
    from aish.agent.oneshot import AskOutcome, ask_once, build_ask_messages, read_piped
    from aish.agent.outbound import SpendingStopped
    from aish.errors import ConfigError
    from aish.session import Session
    from aish.ui.ask_printer import AskPrinter

    question = " ".join(args.question).strip()
    if not question and sys.stdin.isatty():
        print('aish: nothing to ask: aish ask "<question>"', file=sys.stderr)
        return EXIT_USAGE
    loaded = load(args)
    piped = None
    if not sys.stdin.isatty():
        context = loaded.config.context
        piped = read_piped(
            sys.stdin.buffer, max_lines=context.output_max_lines, max_bytes=context.output_max_bytes
        )
    if not question and piped is None:
        print('aish: nothing to ask: aish ask "<question>"', file=sys.stderr)
        return EXIT_USAGE
    if not question:
        question = "What does this show? Point out anything wrong."

    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR") and not args.json
    printer = AskPrinter(
        sys.stdout,
        sys.stderr,
        json_mode=args.json,
        color=color,
        show_reasoning=loaded.config.ui.show_reasoning != "hide",
        terminal=sys.stdout.isatty() and not args.json,
        err_terminal=sys.stderr.isatty(),
        raw=args.raw,
    )
    session = Session(loaded, model=args.model or "", say=lambda text: printer.render(Status(text)))
    target = session_target(session, args.model)
    if target is None:
        return EXIT_USAGE
    target, fallback = session.ask_targets(question, target, route=args.model is None)
    messages = build_ask_messages(question, piped, prompt_facts())
    outcome = AskOutcome()
    calls: list[UsageRecorded] = []
    printer.on_usage = calls.append
    try:
        asyncio.run(
            ask_once(
                target, messages, printer, outcome, fallback=fallback, outbound=session.outbound
            )
        )
    except KeyboardInterrupt:
        printer.close()
        session.record_usage(calls, say_on_stderr)
        return EXIT_INTERRUPTED
    printer.close()
    session.record_usage(calls, say_on_stderr)
    if outcome.error is not None:
        import logging

        logging.getLogger("aish.ask").warning(
            "request failed: %s", outcome.error, exc_info=outcome.error
        )
        refused = isinstance(outcome.error, ConfigError | SpendingStopped)
        return EXIT_USAGE if refused else EXIT_FAILED
    return EXIT_OK


_GOAL_EXITS = {"done": EXIT_OK, "tasks_complete": EXIT_OK, "halted": EXIT_HALTED}


def run_goal(args: argparse.Namespace) -> int:
    import asyncio
    import os

    from aish.session import Session
    from aish.ui.goal_printer import GoalPrinter
    from aish.ui.goal_run import GoalOptions, run_goal

    goal = " ".join(args.goal).strip()
    if not goal:
        print('aish: no goal: aish goal "<goal>"', file=sys.stderr)
        return EXIT_USAGE
    loaded = load(args)
    # The config of each directory the run's shell visits: its gate follows the shell.
    session = Session(loaded, model=args.model or "", reload=loader(args))
    target = session_target(session, args.model)
    if target is None:
        return EXIT_USAGE
    session.model = target.name
    no_color = bool(os.environ.get("NO_COLOR"))
    printer = GoalPrinter(
        sys.stdout,
        sys.stderr,
        json_mode=args.json,
        color=sys.stdout.isatty() and not no_color,
        err_color=sys.stderr.isatty() and not no_color,
        show_reasoning=loaded.config.ui.show_reasoning != "hide",
        terminal=sys.stdout.isatty(),
        err_terminal=sys.stderr.isatty(),
        raw=args.raw,
        yes_safe=args.yes_safe,
        sandboxed=args.sandbox,
    )
    if args.apply and not args.sandbox:
        print("aish: --apply needs --sandbox (it applies the sandbox's changes)", file=sys.stderr)
        return EXIT_USAGE
    options = GoalOptions(
        goal,
        yes_safe=args.yes_safe,
        max_steps=args.max_steps,
        model_given=bool(args.model),
        sandbox=args.sandbox,
        apply=args.apply,
    )
    try:
        # Ctrl-C cancels the run: it reports `aborted`, stops its command, closes its shell.
        result = asyncio.run(run_goal(options, session, target, printer))
    except KeyboardInterrupt:
        printer.close()
        return EXIT_INTERRUPTED
    printer.close()
    return _GOAL_EXITS.get(result.status, EXIT_FAILED)


def prompt_facts() -> PromptFacts:
    import os

    from aish.conversation.system_prompt import PromptFacts

    shell = os.path.basename(os.environ.get("SHELL") or "bash")
    return PromptFacts(os_name=os.uname().sysname or "Unix", shell=shell)
