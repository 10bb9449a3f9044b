"""Subcommands that judge text without running it: `aish route`, `aish safety check|test`,
`aish explain`, `aish secrets`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator

from aish.cli.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from aish.cli.loading import load


def run_route(args: argparse.Namespace) -> int:
    from aish.agent.routing import run_class_command, run_route_command

    if not args.by_class:
        return run_route_command(list(args.text), sys.stdin, sys.stdout)
    # As `aish safety check`: a broken config is one line on stderr, and the defaults apply.
    routing = load(args, autodetect=False).config.routing
    return run_class_command(list(args.text), sys.stdin, sys.stdout, routing)


def run_safety(args: argparse.Namespace) -> int:
    import os

    from aish.agent.gate import Policy
    from aish.safety.rules.policy import Ruling, rule_on
    from aish.safety.verdict import Verdict
    from aish.ui.render.json_lines import json_line

    if args.safety_command == "test":
        return run_safety_test(args)
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
    rules = Policy.from_config(load(args, autodetect=False).config, "headless").user_rules
    lines = stdin_lines() if from_stdin else commands_given(raw_words)
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


def run_safety_test(args: argparse.Namespace) -> int:
    """`aish safety test`: every `[[safety.rule]]`'s examples; non-zero when one fails."""
    from aish.agent.permission_rules import example_failures_by_rule
    from aish.ui.render.visible_text import visible

    # Unchecked: the failures are this command's output, not warnings before it.
    safety = load(args, autodetect=False, check_rules=False).config.safety
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


def run_explain(args: argparse.Namespace) -> int:
    """`aish explain '<cmd>'`: the command's programs and options from the local docs."""
    from aish.agent.gate import Policy
    from aish.explain import explain_line, explanation_lines
    from aish.ui.render.visible_text import visible

    words = [os.fsencode(w) for w in args.command_words]
    lines = [w.decode("utf-8", "replace") for w in commands_given(words[words[:1] == [b"--"] :])]
    if not any(line.strip() for line in lines):
        print("aish: nothing to explain: aish explain '<command>'", file=sys.stderr)
        return EXIT_USAGE
    # The gate's reading of the config: the verdict is the one the REPL would give.
    rules = Policy.from_config(load(args, autodetect=False).config, "headless").user_rules
    for index, line in enumerate(line for line in lines if line.strip()):
        shown = explanation_lines(explain_line(line, rules))
        print(("\n" if index else "") + "\n".join(visible(text) for text in shown), flush=True)
    return EXIT_OK


def run_secrets(args: argparse.Namespace) -> int:
    import os

    from aish.safety.secrets.report import findings_report
    from aish.ui.render.json_lines import json_line

    text = sys.stdin.buffer.read().decode("utf-8", "replace")
    report = findings_report(text, os.environ, show=args.show)
    print(json_line(report), flush=True)
    return EXIT_OK


def commands_given(words: list[bytes]) -> list[bytes]:
    """`aish safety check "ls -la" "rm x"`: each quoted argument is a command of its own;
    `aish safety check rm -rf /tmp/x`: unquoted words are one command. Several arguments that
    each hold a space can only have been quoted one command apiece."""
    if len(words) > 1 and all(any(c in w for c in (b" ", b"\t")) for w in words):
        return words
    return [b" ".join(words)]


def stdin_lines() -> Iterator[bytes]:
    """Standard input line by line as it arrives, without the line ending."""
    for raw in sys.stdin.buffer:
        yield raw.rstrip(b"\r\n")
