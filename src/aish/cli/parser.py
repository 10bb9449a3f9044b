"""The `aish` command line: every option and subcommand, their help and examples.

Kept apart from the subcommands themselves (`cli`) and cheap to build: `aish --version` and
shell completion (`aish completion bash`) read it without importing anything heavy.
"""

from __future__ import annotations

import argparse

from aish import __version__

_EXAMPLES = """\
examples:
  aish                                  start the shell (`:help` lists its commands)
  aish --resume                         continue the last session
  aish ask "why is the disk full?"      one question, answer on stdout
  df -h | aish ask "anything wrong?"    piped output is context for the question
  aish goal "make the tests pass" --yes-safe
                                        pursue a goal unattended (safe steps only)
  aish cost --since 7d --by model       what model calls cost this week
  aish explain 'tar -xzf a.tgz -C /tmp'
                                        each option, from the local man page (offline)
  aish init                             write a commented config to start from
  source <(aish completion bash)        tab completion for aish in bash
"""


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: options, subcommands, their help and examples."""
    parser = argparse.ArgumentParser(
        prog="aish",
        description="An AI-augmented conversational shell. Without a COMMAND it starts the "
        "interactive shell: commands run in your real shell, anything else is a question.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"aish {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    # A subcommand's own default would overwrite `aish --config X ask`'s X: leave it unset.
    _add_common_options(common, default=argparse.SUPPRESS)
    _add_common_options(parser)
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="NAME",
        help="continue the last session, or the one saved as NAME",
    )
    subs = parser.add_subparsers(dest="command", metavar="COMMAND")

    ask = subs.add_parser(
        "ask",
        parents=[common],
        help="ask one question; piped stdin is context",
        description="Ask one question. Piped standard input is attached as context. "
        "Proposed CMD: lines are printed at the end and never run.",
    )
    ask.add_argument("question", nargs="*", help="the question")
    ask.add_argument("--json", action="store_true", help="print events as JSON lines")
    _add_raw_option(ask)

    init = subs.add_parser("init", help="write a commented example config file")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    init.add_argument("--config", metavar="PATH", help="where to write it")

    subs.add_parser(
        "doctor", parents=[common], help="show config sources, presets and whether they answer"
    )
    _add_goal(subs, common)
    _add_route(subs)
    _add_safety(subs)
    _add_explain(subs)
    _add_secrets(subs)
    _add_memory(subs)
    _add_cost(subs)
    _add_export(subs)
    completion = subs.add_parser(
        "completion",
        help="print a shell completion script for aish",
        description="Print a completion script for aish's subcommands and options. "
        "bash: `source <(aish completion bash)` (or put it in ~/.bashrc); "
        "zsh: `source <(aish completion zsh)` in ~/.zshrc.",
    )
    completion.add_argument("shell", choices=("bash", "zsh"), help="the shell to complete in")
    return parser


def _add_goal(
    subs: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    goal = subs.add_parser(
        "goal",
        parents=[common],
        help="pursue a goal autonomously (Norris) without a terminal",
        description="Pursue a goal step by step in a shell of its own, as :norris does, with "
        "nobody to ask. Without --yes-safe nothing runs: the first action halts. An action "
        "that needs a person (anything that may change or delete something) is never run: the "
        "run halts with it pending. Exit status: 0 done, 3 halted, 1 any other end, "
        "2 usage or configuration error, 130 interrupted.",
    )
    goal.add_argument("goal", nargs="*", help="the goal")
    goal.add_argument(
        "--yes-safe",
        action="store_true",
        help="run read-only (safe) actions, and unknown ones an independent second opinion clears",
    )
    goal.add_argument(
        "--max-steps",
        type=_positive_int,
        metavar="N",
        help="at most N steps (default: norris.max_norris_steps)",
    )
    goal.add_argument(
        "--sandbox",
        action="store_true",
        help="run in a copy-on-write sandbox over the project (Linux namespaces + overlay, "
        "no network): safe and unknown steps run there unasked, destructive ones halt unless "
        'norris.sandbox_destructive = "run"; the change set is printed at the end',
    )
    goal.add_argument(
        "--apply",
        action="store_true",
        help="with --sandbox: apply the change set to the real tree when the goal is "
        "completed (files changed there meanwhile are refused); without it nothing is applied",
    )
    goal.add_argument("--json", action="store_true", help="print events as JSON lines")
    _add_raw_option(goal)


def _add_raw_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--raw",
        action="store_true",
        help="write the model's text to a pipe or file exactly as sent, escape sequences "
        "included (by default they are taken out; a terminal always sees them as ^[)",
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def _add_route(subs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    route = subs.add_parser(
        "route",
        help="say where a line would go (shell or model), or which model class a text wants",
        description="Route the given text, or each line of stdin, and print one JSON line each "
        "{line, route, reason}. With --class, say instead which class of model each text wants "
        "(code, reasoning or default) and the preset routing.classes gives it: one JSON line "
        "{text, class, preset, reason} each, preset null when the class has none; there the two "
        "characters \\n stand for a line break. Nothing is run.",
    )
    route.add_argument(
        "--class",
        dest="by_class",
        action="store_true",
        help="classify by model class (code, reasoning, default) instead of routing",
    )
    _add_config_option(route, argparse.SUPPRESS)
    # REMAINDER: `aish route ls -la` routes the line "ls -la" instead of failing on "-la".
    route.add_argument(
        "text", nargs=argparse.REMAINDER, help="the text (default: each line of stdin)"
    )


def _add_safety(subs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    safety = subs.add_parser(
        "safety", help="judge commands with the safety rules", description="The safety gate."
    )
    verbs = safety.add_subparsers(dest="safety_command", metavar="COMMAND", required=True)
    check = verbs.add_parser(
        "check",
        help="print the verdict on commands without running them",
        description="Print one JSON line {command, level, reasons, decision, rule} for the "
        "command given, or "
        "for each line of stdin when there is none (or it is `-`). Quote the command as one "
        'argument to keep its quoting; several quoted commands ("ls -la" "rm x") get one '
        "line each, while unquoted words (rm -rf /tmp/x) are one command. Nothing is run.",
    )
    _add_config_option(check, argparse.SUPPRESS)
    # REMAINDER: `aish safety check rm -rf /` must not read `-rf` as an option of aish's.
    check.add_argument("command_words", nargs=argparse.REMAINDER, metavar="COMMAND")
    test = verbs.add_parser(
        "test",
        help="check every [[safety.rule]]'s match / not_match examples",
        description="Run the examples of every [[safety.rule]] in the config: one line per "
        "rule, one more per failing example. Exit status 1 when an example fails.",
    )
    _add_config_option(test, argparse.SUPPRESS)


def _add_explain(subs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    explain = subs.add_parser(
        "explain",
        help="explain a command's programs and options from the local man pages, offline",
        description="For each program the command runs and each of its options, print what "
        "the local man page says (or, without one, the program's --help, asked only of "
        "programs installed in the system's directories), and the safety gate's verdict. "
        "Quote the command as one argument to keep its quoting. Nothing is sent anywhere and "
        "the command is not run.",
    )
    _add_config_option(explain, argparse.SUPPRESS)
    # REMAINDER: `aish explain tar -xzf a.tgz` must not read `-xzf` as an option of aish's.
    explain.add_argument("command_words", nargs=argparse.REMAINDER, metavar="COMMAND")


def _add_secrets(subs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    secrets = subs.add_parser(
        "secrets",
        help="see what the secrets scrubber would keep from a cloud model",
        description="The secrets scrubber.",
    )
    verbs = secrets.add_subparsers(dest="secrets_command", metavar="COMMAND", required=True)
    check = verbs.add_parser(
        "check",
        help="print what would be scrubbed from stdin before it reaches a cloud model",
        description="Read text on stdin and print one JSON document "
        '{"findings": [{"type", "start", "end"}, ...]}: each secret the scrubber would replace '
        "before the text reaches a cloud model, sorted by start. start and end are character "
        "offsets into the text (end exclusive). The values of sensitive environment variables "
        "and of .env-style lines in the text count as known secrets. Values are shown only "
        "with --show. Nothing leaves the machine.",
    )
    check.add_argument(
        "--show",
        action="store_true",
        help='add each secret\'s text as "value" (careful: this prints the secrets)',
    )


def _add_memory(subs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    memory = subs.add_parser(
        "memory",
        help="export or import remembered items",
        description="Memory as phase-4 JSONL: one item or tombstone a line.",
    )
    verbs = memory.add_subparsers(dest="memory_command", metavar="COMMAND", required=True)
    export = verbs.add_parser(
        "export",
        help="write every item and tombstone as JSONL",
        description="Write the memory (items, and tombstones for forgotten ones) as JSONL.",
    )
    export.add_argument("file", nargs="?", help="where to write it (default: stdout)")
    load = verbs.add_parser(
        "import",
        help="add the items and tombstones of a JSONL file",
        description="Add a JSONL file's items. Every item it would add is shown first, with "
        "counts (new, already known, refused), and you are asked [y/N]. Times in the future "
        "are clamped to now. Into a store that already has items they get new ids, and the "
        "file's tombstones follow them. A bad line is reported and skipped: exit 1.",
    )
    load.add_argument("file", help="the JSONL file (`-`: stdin, which needs --yes)")
    load.add_argument(
        "--yes", "-y", action="store_true", help="add without asking (the listing is still shown)"
    )


def _add_cost(subs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cost = subs.add_parser(
        "cost",
        help="what model calls cost, across sessions",
        description="Calls, tokens and dollars from the usage ledger, across every session. "
        "A cost nothing could price is counted as unknown, never as $0.",
    )
    cost.add_argument(
        "--since", metavar="WHEN", help="only calls since then: 30m, 24h, 7d, 2w or an ISO date"
    )
    cost.add_argument(
        "--by",
        choices=("model", "category", "day"),
        default="model",
        help="one row per model (default), category or day",
    )


def _add_export(subs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = subs.add_parser(
        "export",
        help="write a logged session to a Markdown or HTML file",
        description="Write a session's conversation (questions, replies, commands with their exit "
        "status and bounded output, Norris steps and HALTs, costs) as Markdown or as one "
        "self-contained HTML page. When any preset of the session scrubbed secrets, every secret "
        "is replaced by its placeholder. An existing file is never replaced.",
    )
    export.add_argument(
        "--session", metavar="NAME", help="the session saved as NAME, or #ID (default: the last)"
    )
    export.add_argument("--format", choices=("md", "html"), default="md", help="default: md")
    export.add_argument(
        "file",
        nargs="?",
        help="where to write it (default: aish-<session>-<date>.<format> here; -: stdout)",
    )
    _add_config_option(export, argparse.SUPPRESS)


def _add_common_options(parser: argparse.ArgumentParser, default: object = None) -> None:
    _add_config_option(parser, default)
    parser.add_argument(
        "--model", "-m", metavar="PRESET", default=default, help="model preset to use"
    )


def _add_config_option(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=default,
        help="config file to use instead of the XDG one",
    )
