"""No path around the gate: a scan of `src/aish` for code that runs things.

Whatever runs a process (the shell session's `run`, subprocess, exec, spawn), types into the
shell (the session's `send`/`send_nowait`: bytes typed at a shell prompt run as a command) or
calls an MCP tool (a `ToolBox`'s or `McpServers`' `call(tool, arguments)`, the SDK's
`call_tool`) is an executor. Executors live in `aish.run` only (besides the reviewed read-only
runners below), and every executor must be reached only from the user's own typed line or from a
function that redeems the gate's `Authorization` first — through the one redeem check,
`run/authorized.py:redeem`, the only caller of `gate.redeem`. Only the gate makes
authorizations. A new executor or a new caller makes this test fail until it is reviewed and
listed below.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "aish"
GATE = SRC / "agent" / "gate.py"
# The one redeem check every executor starts with: `gate.redeem`, then the action's kind.
REDEEM = "run/authorized.py:redeem"
# The home of execution: every executor (but the reviewed read-only runners) is in here.
RUN = "run/"

# The shell room implements running commands and the mcp room calling tools; everything above
# them must go through these doors.
IMPLEMENTS_EXECUTION = (SRC / "shell", SRC / "mcp")
# The sandbox's launcher starts the program the shell room spawns through it (the agent's
# shell), inside the sandbox; it is handed its command line by `shell/process.py`.
STARTS_THE_SHELL = (SRC / "run" / "sandbox" / "launcher.py",)

# Doors that run what the user typed themselves, never a model's proposal, each with the only
# places it may be called from: in the end, the routed line the user typed.
USER_LINE_DOORS = {
    "run/user_shell.py:UserShell.run_users_line": {"ui/repl/loop.py:Repl.run_command"},
    "ui/repl/loop.py:Repl.run_command": {"ui/repl/loop.py:Repl._handle"},
}

# The user's own keys, typed into a step the gate already let run (`[t]ake over`, while it waits
# for terminal input): each door with the only places it may be called from, ending in the agent
# shell's executor (which redeems first, as every executor's callers must).
USERS_KEYS_DOORS = {
    "run/take_over.py:take_over.on_key": {"run/take_over.py:take_over"},
    "run/take_over.py:take_over": {"run/agent_shell.py:AgentShell._supervise"},
    "run/agent_shell.py:AgentShell._supervise": {"run/agent_shell.py:AgentShell._execute"},
}

# aish's own look at the project, never a model's proposal: git or patch with fixed, read-only
# arguments (status, ls-files, config listing, `apply --check`, `patch --dry-run`), the
# repository's programs (fsmonitor, hooks, filters) neutralised. Reviewed; a new one must be too.
OWN_READ_ONLY_RUNNERS = {
    "agent/project/summary.py:_git": "`:context`: git status / ls-files / rev-parse / config",
    "run/diff_apply.py:check_diff": "`git apply --check` or `patch --dry-run` of a reviewed diff",
    "run/diff_apply.py:_run_quiet": "git rev-parse / config listing for check_diff",
    "run/diff_apply.py:_in_git_work_tree": "git rev-parse: which apply command to propose",
    "agent/shell_facts.py:_run": "the gate's `git config --list` / `rev-parse --git-path` of "
    "the shell's cwd: the configuration git would read (listing it runs nothing it names)",
    "run/sandbox/overlay.py:project_root": "git rev-parse --show-toplevel: the tree a sandbox "
    "covers",
    "run/sandbox/namespaces.py:sandbox_support": "the sandbox launcher's probe over a scratch "
    "tree (it checks the mounts from inside and runs no program)",
    "run/undo/probes.py:probe": "the blast radius's dry runs before a confirmation: `find` with "
    "its deleting actions turned into -print0 (any other action that runs or writes makes the "
    "radius unpredictable instead), `git clean -n`, `git diff --name-only`, `git rev-parse`",
    "ui/pager.py:page": "the user's own $PAGER (or less) showing aish's own long listing on "
    "its standard input; nothing of a model's reaches its command line",
    "explain/docs/bounded_run.py:run_bounded": "`aish explain`, `:explain`, `[d]escribe`: "
    "`man -P cat -- NAME` and bash's `help -- NAME` (NAME a plain program name, never a path "
    "or an option), and `NAME --help` only for a root-owned program in a system directory (the "
    "gate itself judges any `X --help` read-only); no input, no terminal, an empty cwd, an "
    "environment of its own, a deadline, capped output, its process group killed after",
}

_PROCESS_CALLS = {
    ("subprocess", "run"),
    ("subprocess", "Popen"),
    ("subprocess", "call"),
    ("subprocess", "check_call"),
    ("subprocess", "check_output"),
    ("os", "system"),
    ("os", "popen"),
    ("os", "execv"),
    ("os", "execvp"),
    ("os", "execvpe"),
    ("os", "spawnv"),
    ("os", "posix_spawn"),
    ("pty", "spawn"),
    ("asyncio", "create_subprocess_exec"),
    ("asyncio", "create_subprocess_shell"),
}


@dataclass(frozen=True)
class Function:
    key: str  # "run/user_shell.py:UserShell._execute"
    name: str  # "_execute"
    node: ast.FunctionDef | ast.AsyncFunctionDef


def modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        if path in STARTS_THE_SHELL or any(room in path.parents for room in IMPLEMENTS_EXECUTION):
            continue
        yield str(path.relative_to(SRC)), ast.parse(path.read_text(), str(path))


def functions() -> list[Function]:
    found: list[Function] = []
    for module, tree in modules():
        stack: list[tuple[ast.AST, str]] = [(tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    stack.append((child, f"{prefix}{child.name}."))
                elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    qualified = f"{prefix}{child.name}"
                    found.append(Function(f"{module}:{qualified}", child.name, child))
                    stack.append((child, f"{qualified}."))
                else:
                    stack.append((child, prefix))
    return found


def calls(function: Function) -> list[ast.Call]:
    return [n for n in ast.walk(function.node) if isinstance(n, ast.Call)]


def callee(call: ast.Call) -> tuple[str, str]:
    """(receiver, name): `shell.run(…)` → ("shell", "run"); `redeem(…)` → ("", "redeem")."""
    func = call.func
    if isinstance(func, ast.Attribute):
        receiver = func.value
        if isinstance(receiver, ast.Name):
            return receiver.id, func.attr
        if isinstance(receiver, ast.Attribute):
            return receiver.attr, func.attr
        return "?", func.attr
    if isinstance(func, ast.Name):
        return "", func.id
    return "?", "?"


def runs_a_process(call: ast.Call) -> bool:
    receiver, name = callee(call)
    if (receiver, name) in _PROCESS_CALLS:
        return True
    if receiver == "" or not call.args:
        return False
    # A shell session's `run(command, …)`; `asyncio.run(coroutine)` is not one. Its
    # `send(data)`/`send_nowait(data)` type bytes into the shell: `rm -rf x\r` runs too.
    # A toolbox's `call(tool, arguments)` (and the SDK's `call_tool`) runs a tool.
    return (name == "run" and receiver != "asyncio") or name in (
        "send",
        "send_nowait",
        "call",
        "call_tool",
    )


def executors(all_functions: list[Function]) -> set[str]:
    return {f.key for f in all_functions if any(runs_a_process(c) for c in calls(f))}


def callers(all_functions: list[Function], key: str) -> dict[str, list[ast.Call]]:
    """Functions using the function `key` by its name (as a call, or handing it on as a value,
    e.g. a runner): any function of that name counts, wherever it is defined."""
    name = key.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
    found: dict[str, list[ast.Call]] = {}
    for function in all_functions:
        for node in ast.walk(function.node):
            hit = (isinstance(node, ast.Attribute) and node.attr == name) or (
                isinstance(node, ast.Name) and node.id == name
            )
            if hit and function.key != key:
                found.setdefault(function.key, [])
                found[function.key] += [c for c in calls(function) if callee(c)[1] == name]
    return found


def redeems_before(function: Function, target: str) -> bool:
    """`gate.redeem(…)` (or `redeem(…)`) is called before the first call of `target`."""
    redeemed = [c.lineno for c in calls(function) if callee(c)[1] == "redeem"]
    used = [c.lineno for c in calls(function) if callee(c)[1] == target]
    return bool(redeemed) and bool(used) and min(redeemed) < min(used)


def test_the_scan_sees_the_repl_executor() -> None:
    # If this fails, the scan lost sight of the shell: fix the scan before trusting the rest.
    assert executors(functions()) == {
        "run/user_shell.py:UserShell._execute",
        "run/agent_shell.py:AgentShell._execute",
        "run/tool_calls.py:ToolRunner._call_tool",
        # `CMD&:`: types the wrapped line that starts a background job; reached from
        # `UserShell.start_job` and `AgentShell.start_job`, which redeem first.
        "run/jobs/launch.py:launch_job",
        # (the relay, and the function defining it: a scan of it sees the nested one's call)
        "run/take_over.py:take_over",
        "run/take_over.py:take_over.on_key",
        *OWN_READ_ONLY_RUNNERS,
    }


def test_executors_live_only_in_run() -> None:
    # What runs a model's proposal (or the user's line) has one home below ui; only aish's own
    # reviewed read-only looks may live elsewhere.
    elsewhere = {
        key
        for key in executors(functions()) - set(OWN_READ_ONLY_RUNNERS)
        if not key.startswith(RUN)
    }
    assert not elsewhere, f"executors outside {RUN}: {sorted(elsewhere)}"


def _is_gate_redeem(call: ast.Call) -> bool:
    return callee(call) == ("gate", "redeem")


def test_the_redeem_check_is_written_once() -> None:
    all_functions = functions()
    by_key = {f.key: f for f in all_functions}
    # Only the one check calls the gate's `redeem`, and nothing else is named `redeem`: a
    # caller that "redeems first" (below) goes through it.
    spenders = {f.key for f in all_functions if any(_is_gate_redeem(c) for c in calls(f))}
    assert spenders == {REDEEM}, f"gate.redeem is called outside {REDEEM}: {sorted(spenders)}"
    namesakes = {f.key for f in all_functions if f.name == "redeem" and f.key != REDEEM}
    assert not namesakes - {f"{GATE.relative_to(SRC)}:redeem"}, sorted(namesakes)
    for module, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "aish.agent.gate":
                assert "redeem" not in [a.name for a in node.names], (
                    f"{module}:{node.lineno} imports the gate's redeem by name"
                )
    # The check spends the authorization before it looks at anything else, and returns it.
    made = calls(by_key[REDEEM])
    assert made and _is_gate_redeem(min(made, key=lambda c: (c.lineno, c.col_offset)))
    assert any(isinstance(n, ast.Return) for n in ast.walk(by_key[REDEEM].node))


def _scanned(source: str) -> list[bool]:
    tree = ast.parse(source)
    return [runs_a_process(node) for node in ast.walk(tree) if isinstance(node, ast.Call)]


def test_typing_into_the_shell_counts_as_running() -> None:
    assert _scanned("shell.send(b'rm -rf x\\r')") == [True]
    assert _scanned("self._shell.send_nowait(data)") == [True]
    assert _scanned("session.run('ls', terminal=t)") == [True]
    assert _scanned("subprocess.run(['ls'])") == [True]
    assert _scanned("asyncio.run(main())") == [False, False]
    assert _scanned("run(x)") == [False]


def test_calling_a_tool_counts_as_running() -> None:
    assert _scanned("await self._toolbox.call(tool, arguments)") == [True]
    assert _scanned("await servers.call(tool, {'path': '/'})") == [True]
    assert _scanned("await session.call_tool('rm', {})") == [True]


def test_a_tool_called_without_redeeming_is_caught() -> None:
    # The scan must see a frontend that calls the toolbox straight from the model's request.
    tree = ast.parse(
        "class Sneaky:\n"
        "    async def on_call(self, call):\n"
        "        return await self._call_tool(call.name, call.arguments)\n"
        "    async def _call_tool(self, tool, arguments):\n"
        "        return await self.toolbox.call(tool, arguments)\n"
    )
    found: list[Function] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for child in node.body:
                assert isinstance(child, ast.AsyncFunctionDef)
                found.append(Function(f"x.py:Sneaky.{child.name}", child.name, child))
    assert executors(found) == {"x.py:Sneaky._call_tool"}
    assert not redeems_before(found[0], "_call_tool")


def test_every_executor_is_reached_only_through_the_gate_or_the_users_own_line() -> None:
    all_functions = functions()
    by_key = {f.key: f for f in all_functions}
    for executor in executors(all_functions) - set(OWN_READ_ONLY_RUNNERS) - set(USERS_KEYS_DOORS):
        name = by_key[executor].name
        for caller_key in callers(all_functions, executor):
            if caller_key in USER_LINE_DOORS:
                continue
            assert redeems_before(by_key[caller_key], name), (
                f"{caller_key} reaches {executor} without redeeming a gate Authorization first"
            )


def test_the_users_keys_reach_only_a_step_the_gate_let_run() -> None:
    all_functions = functions()
    executor = "run/agent_shell.py:AgentShell._execute"
    assert executor in executors(all_functions)  # whose callers redeem first (test above)
    for door, allowed in USERS_KEYS_DOORS.items():
        uses = callers(all_functions, door)
        assert uses, f"{door} is not used: drop it from USERS_KEYS_DOORS"
        assert set(uses) <= allowed, f"{door} is reached from {sorted(set(uses) - allowed)}"


def test_user_line_doors_only_take_the_users_line() -> None:
    all_functions = functions()
    by_key = {f.key: f for f in all_functions}
    entries = executors(all_functions) | set(USER_LINE_DOORS)
    for door, allowed in USER_LINE_DOORS.items():
        name = by_key[door].name
        uses = callers(all_functions, door)
        assert set(uses) <= allowed, (
            f"{door} runs commands unchecked; only the user's typed line may reach it, "
            f"but {sorted(set(uses) - allowed)} use it"
        )
        for caller_key in uses:
            # Called directly (never handed on as a runner), with the routed text.
            assert uses[caller_key], f"{caller_key} hands {name} on as a value"
        # A door runs the user's line through the next door or an executor, nothing else.
        reached = {
            key
            for key in entries
            if any(callee(call)[1] == by_key[key].name for call in calls(by_key[door]))
        }
        assert reached, f"{door} reaches no executor"
        if reached & executors(all_functions):
            # It runs the line itself: as the user, never as the model.
            literals = {
                c.value
                for call in calls(by_key[door])
                for c in call.args
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            }
            assert "model" not in literals and "user" in literals


def test_only_the_gate_issues_authorizations() -> None:
    private = {"_STAMP", "_ISSUED", "_issue"}
    for module, tree in modules():
        if SRC / module == GATE:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and callee(node)[1] == "Authorization":
                raise AssertionError(f"{module}:{node.lineno} constructs an Authorization")
            named = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
            where = getattr(node, "lineno", "?")
            assert named not in private, f"{module}:{where} uses the gate's {named}"


def test_nothing_passes_model_as_a_run_source_outside_the_gate() -> None:
    # The source of a run comes from the redeemed authorization; a literal "model" would be a
    # model-proposed run that skipped the gate. (Reading it back from the session log is fine.)
    allowed = {"conversation/context.py"}
    for module, tree in modules():
        if module in allowed or SRC / module == GATE:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            values = [*node.args, *(k.value for k in node.keywords if k.arg == "source")]
            runs = callee(node)[1] in ("_execute", "CommandRun", "_command_run")
            for value in values if runs else [k.value for k in node.keywords if k.arg == "source"]:
                assert not (isinstance(value, ast.Constant) and value.value == "model"), (
                    f"{module}:{node.lineno} runs something as the model's without the gate"
                )


def test_the_agent_runs_nothing_itself() -> None:
    # The agent proposes and asks the gate; executors live in `aish.run` and redeem.
    for module, tree in modules():
        if not module.startswith("agent/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names]
                where = node.module if isinstance(node, ast.ImportFrom) else ""
                for name in [where or "", *names]:
                    assert not name.startswith(("subprocess", "pty", "aish.shell.session")), (
                        f"{module}:{node.lineno} imports {name}"
                    )
                # Tools are called by the frontend's executor: the agent knows the catalogue's
                # schemas (`tool_specs`), never a connection to a server.
                assert where not in ("mcp",) and not where.startswith("mcp."), (
                    f"{module}:{node.lineno} imports the MCP SDK"
                )
                if where.startswith("aish.mcp"):
                    assert where == "aish.mcp" and names == ["tool_specs"], (
                        f"{module}:{node.lineno} imports {where}: {names}"
                    )
