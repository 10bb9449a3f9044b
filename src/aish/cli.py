"""The `aish` command: argument parsing and the non-interactive subcommands.

Start-up cost matters here more than anywhere: `aish --version` must not import httpx, pydantic
or rich, so every subcommand imports what it needs inside its own function.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, NoReturn

from aish import __version__

if TYPE_CHECKING:
    from aish.agent.events import UsageRecorded
    from aish.config import LoadedConfig
    from aish.conversation.system_prompt import PromptFacts
    from aish.llm.types import ModelTarget
    from aish.session import Session
    from aish.store import SessionInfo, Store

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_HALTED = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    from aish.cli_parser import build_parser

    args = build_parser().parse_args(argv)
    command = getattr(args, "command", None) or "shell"
    try:
        from aish.config.paths import log_file
        from aish.log import configure_logging

        configure_logging(log_file())
        status = int(_COMMANDS[command](args))
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`aish ask … | head`): nothing left to say, and nobody to say it to.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # the last line of defence: one line on screen, details in the log
        import logging

        logging.getLogger("aish").exception("unhandled error in `aish %s`", command)
        print(f"aish: internal error: {exc} (details in the log, AISH_LOG=debug)", file=sys.stderr)
        return EXIT_INTERNAL
    if status == EXIT_INTERRUPTED:
        _exit_at_once(status)
    return status


def _exit_at_once(status: int) -> NoReturn:
    """Ctrl-C ends aish within a moment, however busy the machine: the run has already stopped
    its command and closed its shell, so once what was written is flushed the interpreter's
    teardown (freeing hundreds of modules, well over a second under load) is skipped."""
    import contextlib
    import logging

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that went away, a closed stream
            stream.flush()
    logging.shutdown()
    os._exit(status)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    import contextlib
    import os

    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _load(
    args: argparse.Namespace,
    *,
    autodetect: bool = True,
    store: Store | None = None,
    check_rules: bool = True,
) -> LoadedConfig:
    """The config; with `store`, also the project's `.aish.toml` for the cwd when trusted."""
    from aish.ui.render.visible_text import visible

    load = _loader(args, autodetect=autodetect, store=store, check_rules=check_rules)
    loaded = load(os.getcwd())
    for warning in loaded.warnings:
        # A warning quotes paths and key names a cloned repository chose: shown, never obeyed.
        print(f"aish: {visible(warning)}", file=sys.stderr)
    return loaded


def _loader(
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


def _run_shell(args: argparse.Namespace) -> int:
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
        _load(args)  # its warnings still say what is wrong with the config
        return EXIT_FAILED
    try:
        loaded = _load(args, store=store)
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
            reload=_loader(args, store=store),
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


def _run_route(args: argparse.Namespace) -> int:
    from aish.agent.routing import run_class_command, run_route_command

    if not args.by_class:
        return run_route_command(list(args.text), sys.stdin, sys.stdout)
    # As `aish safety check`: a broken config is one line on stderr, and the defaults apply.
    routing = _load(args, autodetect=False).config.routing
    return run_class_command(list(args.text), sys.stdin, sys.stdout, routing)


def _run_safety(args: argparse.Namespace) -> int:
    import os

    from aish.agent.gate import Policy
    from aish.safety.rules.policy import Ruling, rule_on
    from aish.safety.verdict import Verdict
    from aish.ui.render.json_lines import json_line

    if args.safety_command == "test":
        return _run_safety_test(args)
    # argv arrives with undecodable bytes as surrogates; each word is checked as bytes below.
    raw_words = [os.fsencode(w) for w in args.command_words]
    if raw_words[:1] == [b"--"]:
        raw_words = raw_words[1:]
    words = [w.decode("utf-8", "replace") for w in raw_words]
    from_stdin = not words or words == ["-"]
    if from_stdin and sys.stdin.isatty():
        print(
            'aish: nothing to check: aish safety check "<command>", or commands on stdin',
            file=sys.stderr,
        )
        return EXIT_USAGE
    # The gate's own reading of the config, so the CLI judges with exactly the REPL's rules.
    rules = Policy.from_config(_load(args, autodetect=False).config, "headless").user_rules
    lines = _stdin_lines() if from_stdin else _commands_given(raw_words)
    for raw in lines:
        line = raw.decode("utf-8", "replace")
        if not line.strip():
            continue
        if line.encode("utf-8") != raw:
            # Judging the repaired text would judge a different command than the bytes given.
            reason = "not valid UTF-8: the bytes given cannot be judged"
            ruling = Ruling("ask", f"built-in: {reason}", Verdict("unknown", (reason,)))
        else:
            ruling = rule_on(line, rules)
        verdict = ruling.verdict
        record = {
            "command": line,
            "level": verdict.level,
            "reasons": list(verdict.reasons),
            # What the gate does when the model proposes it in Norris, and what decided.
            "decision": ruling.decision,
            "rule": ruling.rule,
        }
        print(json_line(record), flush=True)
    return EXIT_OK


def _run_safety_test(args: argparse.Namespace) -> int:
    """`aish safety test`: every `[[safety.rule]]`'s examples; non-zero when one fails."""
    from aish.agent.permission_rules import example_failures_by_rule
    from aish.ui.render.visible_text import visible

    # Unchecked: the failures are this command's output, not warnings before it.
    safety = _load(args, autodetect=False, check_rules=False).config.safety
    results = example_failures_by_rule(safety)
    if not results:
        print("no [[safety.rule]] has match / not_match examples")
        return EXIT_OK
    for rule, failures in results:
        examples = len(rule.match) + len(rule.not_match)
        print(visible(f"{'FAIL' if failures else 'ok  '}  {rule.label}: {examples} example(s)"))
        for failure in failures:
            print(visible(f"      {failure}"))
    failed = sum(1 for _, failures in results if failures)
    print(f"{len(results) - failed} rule(s) ok, {failed} failing")
    return EXIT_FAILED if failed else EXIT_OK


def _run_explain(args: argparse.Namespace) -> int:
    """`aish explain '<cmd>'`: the command's programs and options from the local docs."""
    from aish.agent.gate import Policy
    from aish.explain import explain_line, explanation_lines
    from aish.ui.render.visible_text import visible

    words = [os.fsencode(w) for w in args.command_words]
    lines = [w.decode("utf-8", "replace") for w in _commands_given(words[words[:1] == [b"--"] :])]
    if not any(line.strip() for line in lines):
        print("aish: nothing to explain: aish explain '<command>'", file=sys.stderr)
        return EXIT_USAGE
    # The gate's reading of the config: the verdict is the one the REPL would give.
    rules = Policy.from_config(_load(args, autodetect=False).config, "headless").user_rules
    for index, line in enumerate(line for line in lines if line.strip()):
        shown = explanation_lines(explain_line(line, rules))
        print(("\n" if index else "") + "\n".join(visible(text) for text in shown), flush=True)
    return EXIT_OK


def _run_secrets(args: argparse.Namespace) -> int:
    import os

    from aish.safety.secrets.report import findings_report
    from aish.ui.render.json_lines import json_line

    text = sys.stdin.buffer.read().decode("utf-8", "replace")
    report = findings_report(text, os.environ, show=args.show)
    print(json_line(report), flush=True)
    return EXIT_OK


def _commands_given(words: list[bytes]) -> list[bytes]:
    """`aish safety check "ls -la" "rm x"`: each quoted argument is a command of its own;
    `aish safety check rm -rf /tmp/x`: unquoted words are one command. Several arguments that
    each hold a space can only have been quoted one command apiece."""
    if len(words) > 1 and all(any(c in w for c in (b" ", b"\t")) for w in words):
        return words
    return [b" ".join(words)]


def _stdin_lines() -> Iterator[bytes]:
    """Standard input line by line as it arrives, without the line ending."""
    for raw in sys.stdin.buffer:
        yield raw.rstrip(b"\r\n")


def _say_on_stderr(text: str) -> None:
    print(f"aish: {text}", file=sys.stderr)


def _session_target(session: Session, name: str | None) -> ModelTarget | None:
    """The target of preset `name` (None: the default) for `aish ask` and `aish goal`; what
    is wrong with it is said on stderr, unless the config's warnings said it already."""
    target = session.resolve(name)
    if isinstance(target, str):
        if target not in session.loaded.warnings:  # "no model configured" was already said
            _say_on_stderr(target)
        return None
    return target


def _run_ask(args: argparse.Namespace) -> int:
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
    loaded = _load(args)
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
    target = _session_target(session, args.model)
    if target is None:
        return EXIT_USAGE
    target, fallback = session.ask_targets(question, target, route=args.model is None)
    messages = build_ask_messages(question, piped, _prompt_facts())
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
        session.record_usage(calls, _say_on_stderr)
        return EXIT_INTERRUPTED
    printer.close()
    session.record_usage(calls, _say_on_stderr)
    if outcome.error is not None:
        import logging

        logging.getLogger("aish.ask").warning(
            "request failed: %s", outcome.error, exc_info=outcome.error
        )
        refused = isinstance(outcome.error, ConfigError | SpendingStopped)
        return EXIT_USAGE if refused else EXIT_FAILED
    return EXIT_OK


# How each end of a run exits: a halt is 3, so a script can tell "needs a person" apart.
_GOAL_EXITS = {"done": EXIT_OK, "tasks_complete": EXIT_OK, "halted": EXIT_HALTED}


def _run_goal(args: argparse.Namespace) -> int:
    import asyncio
    import os

    from aish.session import Session
    from aish.ui.goal_printer import GoalPrinter
    from aish.ui.goal_run import GoalOptions, run_goal

    goal = " ".join(args.goal).strip()
    if not goal:
        print('aish: no goal: aish goal "<goal>"', file=sys.stderr)
        return EXIT_USAGE
    loaded = _load(args)
    # The config of each directory the run's shell visits: its gate follows the shell.
    session = Session(loaded, model=args.model or "", reload=_loader(args))
    target = _session_target(session, args.model)
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


def _prompt_facts() -> PromptFacts:
    import os
    import platform

    from aish.conversation.system_prompt import PromptFacts

    shell = os.path.basename(os.environ.get("SHELL") or "bash")
    return PromptFacts(os_name=platform.system() or "Unix", shell=shell)


def _run_init(args: argparse.Namespace) -> int:
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


def _run_doctor(args: argparse.Namespace) -> int:
    import asyncio
    import os

    from aish.errors import ConfigError
    from aish.llm.probe import check_endpoint
    from aish.session import resolve_target
    from aish.ui.render.visible_text import visible

    loaded = _load(args)
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
        line = f"  [{mark}] {name}: {target.model} via {target.api} at {target.endpoint}: {detail}"
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


def _run_memory(args: argparse.Namespace) -> int:
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


def _run_cost(args: argparse.Namespace) -> int:
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


def _run_export(args: argparse.Namespace) -> int:
    from aish.store import Store, StoreError
    from aish.ui.export import run_export_command

    try:
        with Store.open() as store:
            # Only to know which presets scrub: its warnings are not this command's business.
            load = _loader(args, autodetect=False, store=store, check_rules=False)
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


def _run_completion(args: argparse.Namespace) -> int:
    from aish.cli_parser import build_parser
    from aish.completion_script import completion_script

    sys.stdout.write(completion_script(args.shell, build_parser()))
    return EXIT_OK


_COMMANDS = {
    "shell": _run_shell,
    "ask": _run_ask,
    "goal": _run_goal,
    "init": _run_init,
    "doctor": _run_doctor,
    "route": _run_route,
    "safety": _run_safety,
    "explain": _run_explain,
    "secrets": _run_secrets,
    "memory": _run_memory,
    "cost": _run_cost,
    "export": _run_export,
    "completion": _run_completion,
}
