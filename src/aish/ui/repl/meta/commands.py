"""Meta commands: `:help`, `:model`, `:history`, `:save` … — the REPL's own verbs.

Each command has one entry here: its usage, one line of help, and its handler. An unknown
meta command gets a suggestion and runs nothing — never a shell or model call.
"""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aish.ui.render.visible_text import visible
from aish.ui.repl.meta.context import (
    AttachesContext,
    ChoosesModels,
    HasMcp,
    KnowsSafetyRules,
    PagesListings,
    ReplContext,
    ReviewsSandbox,
    RunsGoals,
)
from aish.ui.repl.meta.cost import cost, secrets
from aish.ui.repl.meta.export import export
from aish.ui.repl.meta.jobs import jobs
from aish.ui.repl.meta.memory import memory, remember
from aish.ui.repl.meta.trust import config_command, trust
from aish.ui.repl.meta.undo import undo

if TYPE_CHECKING:
    from aish.mcp import McpTool, ServerStatus


Handler = Callable[[ReplContext, str], Awaitable[None]]

NO_PRESETS = (
    "no model presets: `aish init` writes an example config (then `:config reload`), "
    "or add a [models.<name>] table to the config file"
)


@dataclass(frozen=True)
class MetaCommand:
    name: str
    usage: str
    help: str
    handler: Handler
    details: str = ""  # what `:help <name>` adds below the usage line
    paged: bool = False  # a listing: through the pager when taller than the screen


async def _help(repl: ReplContext, args: str) -> None:
    name = args.strip().lstrip(":")
    if name:
        command = COMMANDS.get(name)
        if command is None:
            repl.say(_unknown(name))
            return
        repl.say(
            f":{command.usage}  {command.help}"
            + (f"\n{command.details}" if command.details else "")
        )
        return
    lines = ["Lines starting with ':' are aish commands; '!' forces the shell, '?' the model."]
    for command in COMMANDS.values():
        usage = f":{command.usage}"
        # A long usage gets its own line: the help column stays one column.
        lead = f"  {usage:<23} " if len(usage) <= 23 else f"  {usage}\n  {'':<23} "
        lines.append(lead + command.help)
    lines.append("Keys: C-c stops a reply, C-x C-c cancels it, C-n toggles Norris mode.")
    repl.say("\n".join(lines))


async def _quit(repl: ReplContext, args: str) -> None:
    repl.quit()


async def _model(repl: ReplContext, args: str) -> None:
    name = args.strip()
    if not name:
        repl.say(repl.model_line(repl.model_name))
        return
    problem = repl.switch_model(name)
    repl.say(problem or f"model: {repl.model_line(name)} (it reads the conversation so far)")


async def _models(repl: ReplContext, args: str) -> None:
    if not repl.model_names():
        repl.say(NO_PRESETS)
        return
    for name in repl.model_names():
        mark = "*" if name == repl.model_name else " "
        repl.say(f"{mark} {repl.model_line(name)}")


async def _reset(repl: ReplContext, args: str) -> None:
    repl.reset_conversation()
    repl.say("conversation cleared")


async def _history(repl: ReplContext, args: str) -> None:
    messages = repl.conversation.as_seen_by_model(cwd=repl.shell_cwd())
    for message in messages:
        role = message.role + (f" ({message.tool_call_id})" if message.tool_call_id else "")
        repl.say(f"── {role} " + "─" * max(0, 60 - len(role)))
        if message.content:
            repl.say(visible(message.content))
        for call in message.tool_calls:  # what the model asked of a tool, as it asked it
            repl.say(visible(f"[tool call {call.id}] {call.name} {call.arguments}"))
    if len(messages) == 1:
        repl.say("(nothing asked yet)")


async def _save(repl: ReplContext, args: str) -> None:
    repl.say(repl.save_session(args.strip()) if args.strip() else "usage: :save <name>")


async def _load(repl: ReplContext, args: str) -> None:
    repl.say(repl.load_session(args.strip()) if args.strip() else "usage: :load <name>")


async def _sessions(repl: ReplContext, args: str) -> None:
    lines = repl.session_lines()
    repl.say("\n".join(lines) if lines else "no sessions yet")


async def _ask(repl: ReplContext, args: str) -> None:
    repl.say("usage: :ask <text>")  # with text, the router sends the line to the model


_ROUTE_USAGE = "usage: :route on|off|classes|check <text>"


async def _route(repl: ReplContext, args: str) -> None:
    verb, _, text = args.strip().partition(" ")
    models = repl.models if isinstance(repl, ChoosesModels) else None
    if verb == "check" and text.strip():
        line = repl.explain_route(text.strip())
        if models is not None and line.startswith("model"):
            line += f"\n{models.class_line(text.strip())}"
        repl.say(line)
    elif models is not None and not text.strip():
        repl.say(models.route_command(verb))
    else:
        repl.say(_ROUTE_USAGE if models is not None else "usage: :route check <text>")


async def _context(repl: ReplContext, args: str) -> None:
    if isinstance(repl, AttachesContext):
        repl.say(await repl.attach_project_context())
    else:
        repl.say("project context is not available here")


async def _fallback(repl: ReplContext, args: str) -> None:
    if isinstance(repl, ChoosesModels):
        repl.say(repl.models.fallback_command(args.strip()))
    else:
        repl.say("the cloud fallback is not available here")


async def _tokens(repl: ReplContext, args: str) -> None:
    if isinstance(repl, ChoosesModels):
        repl.say(await repl.tokens_line())
    else:
        repl.say("token counts are not available here")


_SAFETY_USAGE = "usage: :safety check <command>, :safety why <command>  or  :safety rules"


async def _safety(repl: ReplContext, args: str) -> None:
    # Imported here: the classifier's tables are not needed before the first `:safety`.
    from aish.safety.classifier import classify, describe_rules

    verb, _, text = args.strip().partition(" ")
    rules = repl.safety_rules() if isinstance(repl, KnowsSafetyRules) else None
    if verb == "check" and text.strip():
        verdict = classify(text.strip(), rules)
        lines = [f"{verdict.level} (nothing was run)"]
        lines += [f"  - {visible(reason)}" for reason in verdict.reasons]
        repl.say("\n".join(lines))
    elif verb == "why" and text.strip():
        from aish.safety.rules.policy import rule_on

        ruling = rule_on(text.strip(), rules)
        lines = [
            f"{ruling.decision} in Norris, decided by {ruling.rule} (nothing was run)",
            f"  verdict: {ruling.verdict.level}",
        ]
        lines += [f"  - {reason}" for reason in ((ruling.why,) if ruling.why else ())]
        lines += [f"  - {reason}" for reason in ruling.verdict.reasons]
        repl.say("\n".join(visible(line) for line in lines))
    elif verb == "rules" and not text.strip():
        repl.say("\n".join(visible(line) for line in describe_rules(rules)) or "no rules")
    else:
        repl.say(_SAFETY_USAGE)


async def _explain(repl: ReplContext, args: str) -> None:
    import asyncio

    from aish.explain import explain_line, explanation_lines

    line = args.strip()
    if not line:
        repl.say("usage: :explain <command>")
        return
    rules = repl.safety_rules() if isinstance(repl, KnowsSafetyRules) else None
    # `man` and `--help` take a moment; the prompt's redraws go on meanwhile.
    explanation = await asyncio.to_thread(explain_line, line, rules)
    repl.say("\n".join(visible(text) for text in explanation_lines(explanation)))


NORRIS_HELP = """\
Norris mode: the model pursues a goal on its own, one step at a time. Each step is one reply;
the commands it proposes (CMD: lines) run in a shell of the agent's own, started in your cwd
(your shell and your history file are untouched), and their output goes back to the model.
Commands proven read-only run unattended; anything else asks a second-opinion model or you,
and anything destructive stops with a red HALT: [p]roceed / [s]kip / [a]bort.
Where the kernel allows it ([norris] sandbox = "auto"), the agent's shell works in a
copy-on-write sandbox over your project: at the end you review what it changed and apply all,
pick files or discard.
It ends when the model says GOAL: complete or GOAL: blocked, or a bound stops it (steps,
time, cost, skips; config [norris]). Ctrl-C aborts; the conversation stays (:history).
  :norris <goal>       run one goal        C-n with a line typed: that line is the goal
  :norris on|off, C-n  Norris mode: every line for the model is a goal (the prompt shows ⚡)
  :norris review       the sandbox's change set again: apply, pick or discard
From a script: aish goal "<goal>" [--yes-safe] [--sandbox [--apply]] [--json].
More: docs/norris.md."""

_NORRIS_USAGE = "usage: :norris <goal>, :norris on, :norris off or :norris review"


def norris_mode_line(on: bool) -> str:
    """What the user is told when Norris mode changes."""
    if on:
        return "Norris mode on: type a goal; each line for the model is one (C-n or :norris off)"
    return "Norris mode off"


async def _norris(repl: ReplContext, args: str) -> None:
    text = args.strip()
    if not isinstance(repl, RunsGoals):
        repl.say("Norris mode is not available here")
    elif text == "off":
        if repl.norris_on:
            repl.norris_mode(False)
            repl.say(norris_mode_line(False))
        else:
            repl.say("Norris mode is not on")
    elif text in ("", "on"):
        repl.norris_mode(True)
        repl.say(norris_mode_line(True))
    elif text == "review":
        if isinstance(repl, ReviewsSandbox):
            await repl.norris_review()
        else:
            repl.say("there is no sandbox here")
    else:
        await repl.run_goal(text)


_SUMMARY_MAX = 60
_MCP_USAGE = "usage: :mcp, :mcp tools [server] or :mcp restart <server>"


async def _mcp(repl: ReplContext, args: str) -> None:
    verb, _, rest = args.strip().partition(" ")
    rest = rest.strip()
    if not isinstance(repl, HasMcp):
        repl.say("MCP is not available here")
    elif not verb:
        repl.say("\n".join(mcp_status_lines(repl.mcp_statuses())))
    elif verb == "tools":
        repl.say("\n".join(mcp_tool_lines(repl.mcp_tools(), rest or None)))
    elif verb == "restart" and rest:
        repl.say(await repl.mcp_restart(rest))
    else:
        repl.say(_MCP_USAGE)


def mcp_status_lines(statuses: list[ServerStatus]) -> list[str]:
    """`:mcp` — one line per server: name, state, tools, transport, last error."""
    if not statuses:
        return ["no MCP servers configured ([mcp.servers.<name>] or mcp.import in the config)"]
    width = max(len(s.name) for s in statuses)
    lines = []
    for status in statuses:
        tools = f"{status.tools} tool{'s' if status.tools != 1 else ''}"
        line = f"  {status.name:<{width}}  {status.state:<8}  {tools:<9}  {status.transport}"
        if status.error:
            line += f"  {visible(status.error)}"
        lines.append(line)
    return lines


def mcp_tool_lines(tools: list[McpTool], server: str | None) -> list[str]:
    """`:mcp tools [server]` — the names the model calls, with their first line of help."""
    chosen = [t for t in tools if server is None or t.server == server]
    if not chosen:
        return [f"no tools from '{server}'" if server else "no MCP tools (yet)"]
    lines = []
    for tool in chosen:
        summary = visible(tool.description.strip().splitlines()[0]) if tool.description else ""
        if len(summary) > _SUMMARY_MAX:  # one line per tool; `:mcp tools` is for scanning
            summary = summary[: _SUMMARY_MAX - 1].rstrip() + "…"
        hints = tool.annotations or {}
        # An untrusted server's hints count for nothing at the gate: not shown as facts either.
        mark = " [read-only]" if tool.trusted and hints.get("readOnlyHint") else ""
        lines.append(f"  {tool.qualified}{mark}  {summary}".rstrip())
    return lines


COMMANDS: dict[str, MetaCommand] = {
    c.name: c
    for c in (
        MetaCommand("help", "help [command]", "list commands, or explain one", _help, paged=True),
        MetaCommand("quit", "quit", "leave aish (so does `exit`)", _quit),
        MetaCommand("model", "model [name]", "show or switch the active model", _model),
        MetaCommand("models", "models", "list the model presets", _models, paged=True),
        MetaCommand("reset", "reset", "start a fresh conversation", _reset),
        MetaCommand(
            "history", "history", "the conversation as the model sees it", _history, paged=True
        ),
        MetaCommand("save", "save <name>", "name this session", _save),
        MetaCommand("load", "load <name>", "continue a named session", _load),
        MetaCommand("sessions", "sessions", "list recent sessions", _sessions, paged=True),
        MetaCommand(
            "export",
            "export md|html [FILE]",
            "write this session to a Markdown or HTML file (secrets as placeholders)",
            export,
            "Without FILE: aish-<session>-<date>.md|html in the shell's cwd. An existing file is "
            "never replaced. From outside: aish export [--session NAME] --format md|html.",
        ),
        MetaCommand(
            "ask", "ask <text>", "send the text to the model, whatever it looks like", _ask
        ),
        MetaCommand("remember", "remember <text>", "remember a fact across sessions", remember),
        MetaCommand(
            "memory",
            "memory list|add|forget|clear|inject|summarize",
            "what aish remembers across sessions",
            memory,
        ),
        MetaCommand(
            "route",
            "route on|off|classes|check <text>",
            "auto-routing by task type; say where a line would go, and why",
            _route,
        ),
        MetaCommand(
            "fallback",
            "fallback on|off",
            "retry a failed request on routing.fallback_model",
            _fallback,
        ),
        MetaCommand("tokens", "tokens", "the next request's tokens against the budget", _tokens),
        MetaCommand(
            "cost",
            "cost [detail|limit <usd>]",
            "what this session's model calls cost",
            cost,
            paged=True,
        ),
        MetaCommand("secrets", "secrets", "the secret placeholders in use (never values)", secrets),
        MetaCommand(
            "context",
            "context",
            "attach a project summary (git, files, manifests) to the next question",
            _context,
        ),
        MetaCommand(
            "trust",
            "trust [--revoke [path]]",
            "trust this project's .aish.toml, or take it back",
            trust,
        ),
        MetaCommand(
            "config",
            "config [prefix]|reload",
            "every config value and where it came from; reload reads the config file again",
            config_command,
            paged=True,
        ),
        MetaCommand(
            "mcp",
            "mcp [tools [server]|restart <server>]",
            "MCP servers and their tools",
            _mcp,
            paged=True,
        ),
        MetaCommand(
            "norris",
            "norris <goal>|on|off|review",
            "pursue a goal autonomously (safe steps run, others HALT); review: its sandbox",
            _norris,
            NORRIS_HELP,
        ),
        MetaCommand(
            "safety",
            "safety check|why|rules",
            "judge a command without running it, or list the rules",
            _safety,
            paged=True,
        ),
        MetaCommand(
            "explain",
            "explain <command>",
            "each program and option of a command from the local man pages (offline)",
            _explain,
            paged=True,
        ),
        MetaCommand(
            "undo", "undo [list|<n>]", "put back what the last approved command changed", undo
        ),
        MetaCommand(
            "jobs",
            "jobs [<n>]",
            "background jobs started from CMD&: lines; with a number, its output",
            jobs,
            paged=True,
        ),
    )
}


async def run_meta(repl: ReplContext, line: str) -> None:
    """Run `:name args`. `:ask` never arrives here: the router sends it to the model."""
    name, _, args = line.lstrip(":").partition(" ")
    command = COMMANDS.get(name)
    if command is None:
        repl.say(_unknown(name))
        return
    paging = command.paged and isinstance(repl, PagesListings)
    with repl.paged() if paging else nullcontext():  # type: ignore[attr-defined]
        await command.handler(repl, args)


def _unknown(name: str) -> str:
    close = difflib.get_close_matches(name, list(COMMANDS), n=1, cutoff=0.5)
    hint = f"; did you mean :{close[0]}?" if close else "; :help lists them"
    return f"unknown command :{name}{hint}"
