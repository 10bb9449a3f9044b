"""Tool-call verdicts: annotations × trust × the tool's name × the commands in its arguments."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.safety.classifier import classify
from aish.safety.rules.user import UserRules
from aish.safety.tool_calls import classify_tool_call
from aish.safety.verdict import Verdict

READ_ONLY = {"readOnlyHint": True}
ADDITIVE = {"readOnlyHint": False, "destructiveHint": False}
DEFAULT = "annotation destructiveHint (default true)"
UNTRUSTED = "untrusted server s: annotations are not trusted; MCP default destructiveHint=true"
TOO_LARGE = "arguments too large to check"
SAFE_CMD = "ls -la"
RM_CMD = "rm -rf /tmp/x"

# (tool, arguments, annotations, trusted) → level, reasons; the server is always `s`.
# `None` as reasons: check the level only (command reasons come from the classifier).
TABLE: list[tuple[str, Any, Any, bool, str, tuple[str, ...] | None]] = [
    # annotations and trust, on a tool whose name says nothing
    ("read_file", {"path": "/x"}, READ_ONLY, True, "safe", ()),
    ("read_file", {"path": "/x"}, READ_ONLY, False, "destructive", (UNTRUSTED,)),
    ("read_file", {"path": "/x"}, None, True, "destructive", (DEFAULT,)),
    ("read_file", {"path": "/x"}, None, False, "destructive", (UNTRUSTED,)),
    ("read_file", {"path": "/x"}, {}, True, "destructive", (DEFAULT,)),
    ("read_file", {}, {"readOnlyHint": False}, True, "destructive", (DEFAULT,)),
    ("read_file", {}, ADDITIVE, True, "unknown",
     ("annotation destructiveHint false (additive updates)",)),
    # an untrusted server's annotations count for nothing, whatever they say or however odd
    ("read_file", {}, {"destructiveHint": False}, False, "destructive", (UNTRUSTED,)),
    ("read_file", {}, ADDITIVE, False, "destructive", (UNTRUSTED,)),
    ("read_file", {}, {"readOnlyHint": True, "destructiveHint": False}, False, "destructive",
     (UNTRUSTED,)),
    ("read_file", {}, {"readOnlyHint": "yes"}, False, "destructive", (UNTRUSTED,)),
    ("read_file", {}, ["readOnlyHint"], False, "destructive", (UNTRUSTED,)),
    ("read_file", {}, {"destructiveHint": True}, True, "destructive",
     ("annotation destructiveHint",)),
    # destructiveHint only means something when the tool is not read-only
    ("read_file", {}, {"readOnlyHint": True, "destructiveHint": True}, True, "safe", ()),
    ("read_file", {}, {"readOnlyHint": "true"}, True, "destructive",
     (DEFAULT, "annotation readOnlyHint is not a boolean; ignored")),
    ("read_file", {}, {"readOnlyHint": 1}, True, "destructive",
     (DEFAULT, "annotation readOnlyHint is not a boolean; ignored")),
    ("read_file", {}, ["readOnlyHint"], True, "destructive",
     (DEFAULT, "annotations are not an object; ignored")),
    ("get_time", [], READ_ONLY, True, "unknown", ("tool arguments are not an object",)),
    # tools that write or delete, whatever their annotations say
    ("write_file", {"path": "/x", "content": "hi"}, READ_ONLY, True, "unknown",
     ("tool s__write_file writes files",)),
    ("write_file", {"path": "/x"}, None, False, "destructive",
     (UNTRUSTED, "tool s__write_file writes files")),
    ("edit_file", {"path": "/x", "edits": []}, ADDITIVE, True, "unknown",
     ("annotation destructiveHint false (additive updates)", "tool s__edit_file edits files")),
    ("writeFile", {"path": "/x"}, READ_ONLY, True, "unknown", ("tool s__writeFile writes files",)),
    ("create_directory", {"path": "/x"}, READ_ONLY, True, "unknown",
     ("tool s__create_directory creates files",)),
    ("move_file", {"source": "/a", "destination": "/b"}, READ_ONLY, True, "unknown",
     ("tool s__move_file moves files",)),
    ("save", {"target": "/etc/hosts"}, READ_ONLY, True, "unknown", ("tool s__save saves files",)),
    ("update_issue", {"number": 3}, READ_ONLY, True, "unknown",
     ("tool s__update_issue updates (by its name)",)),
    ("git_commit", {"message": "m"}, READ_ONLY, True, "unknown",
     ("tool s__git_commit commits (by its name)",)),
    ("delete_file", {"path": "/x"}, READ_ONLY, True, "destructive",
     ("tool s__delete_file deletes files",)),
    ("delete_branch", {"name": "b"}, READ_ONLY, True, "destructive",
     ("tool s__delete_branch deletes (by its name)",)),
    ("kill_processes", {"pid": 1}, ADDITIVE, True, "destructive",
     ("tool s__kill_processes kills (by its name)",
      "annotation destructiveHint false (additive updates)")),
    ("get_deleted", {}, READ_ONLY, True, "safe", ()),
    # a read verb first: the rest of the name is a thing, not an act
    ("get_commit", {"sha": "abc"}, READ_ONLY, True, "safe", ()),
    ("list_updates", {}, READ_ONLY, True, "safe", ()),
    ("undelete_message", {}, READ_ONLY, True, "safe", ()),
    ("run_python", {"code": "print(1)"}, READ_ONLY, True, "unknown",
     ("tool s__run_python runs code",)),
    # shell-like tools: the command is classified; a trusted server's hint gives way to it
    ("run_command", {"command": SAFE_CMD}, None, True, "safe", ()),
    ("run_command", {"command": SAFE_CMD}, {"destructiveHint": True}, True, "safe", ()),
    ("run_command", {"command": SAFE_CMD}, None, False, "destructive", (UNTRUSTED,)),
    ("run_command", {"command": SAFE_CMD}, READ_ONLY, False, "destructive", (UNTRUSTED,)),
    ("run_command", {"command": SAFE_CMD}, ADDITIVE, False, "destructive", (UNTRUSTED,)),
    ("run_command", {"command": RM_CMD}, READ_ONLY, True, "destructive", None),
    ("run_command", {"command": RM_CMD}, None, False, "destructive", None),
    ("shell", {"command": ["rm", "-rf", "/tmp/x"]}, None, True, "destructive", None),
    ("shell", {"command": ["ls", "-la"]}, None, True, "safe", ()),
    ("exec", {"cmd": "ls", "args": ["-la"]}, None, True, "safe", ()),
    ("exec", {"cmd": "rm", "args": ["-rf", "/tmp/x"]}, None, True, "destructive", None),
    ("exec", {"args": ["rm", "-rf", "/tmp/x"]}, None, True, "destructive", None),
    ("bash", {"script": f"{SAFE_CMD}\n{RM_CMD}"}, None, True, "destructive", None),
    ("run_commands", {"commands": [SAFE_CMD, RM_CMD]}, None, True, "destructive", None),
    ("execute", {"language": "bash", "code": RM_CMD}, None, True, "destructive", None),
    ("shell", {"request": {"steps": [{"command": RM_CMD}]}}, None, True, "destructive", None),
    # a trusted shell tool: only the command and inert arguments leave it to the command
    ("run_command", {"command": SAFE_CMD, "cwd": "/", "timeout": 30, "description": "list"},
     None, True, "safe", ()),
    ("shell", {"command": ["ls", "-la"], "workdir": "/tmp", "timeout_ms": 1000.5,
               "justification": "look", "env": None}, None, True, "safe", ()),
    ("bash", {"language": "bash", "code": SAFE_CMD}, None, True, "safe", ()),
    ("run_command", {"command": SAFE_CMD, "cwd": RM_CMD}, None, True, "safe", ()),
    ("run_command", {"command": "ls", "env": {"BASH_ENV": "/tmp/evil"}}, None, True, "unknown",
     ("argument env of a shell tool is not checked",)),
    ("run_command", {"cmd": "ls", "stdin": "rm -rf ~"}, None, True, "unknown",
     ("argument stdin of a shell tool is not checked",)),
    ("run_command", {"command": "ls", "cwd": ["/"]}, None, True, "unknown",
     ("argument cwd of a shell tool is not checked",)),
    ("run_command", {"command": "ls", "timeout": True}, None, True, "unknown",
     ("argument timeout of a shell tool is not checked",)),
    ("run_command", {"command": "ls", "description": {"x": 1}}, None, True, "unknown",
     ("argument description of a shell tool is not checked",)),
    ("run_command", {"command": "ls", "language": "python"}, None, True, "unknown",
     ("argument language of a shell tool is not checked",)),
    ("run_command", {"command": "ls", "code": "import os"}, None, True, "unknown",
     ("argument code of a shell tool is not checked",)),
    ("run_command", {"command": "ls", "run_in_background": True, "sandbox": False},
     None, True, "unknown", ("argument run_in_background of a shell tool is not checked",
                             "argument sandbox of a shell tool is not checked")),
    ("run_command", {"command": "ls", **{f"k{i}": 1 for i in range(10)}}, None, True, "unknown",
     (*(f"argument k{i} of a shell tool is not checked" for i in range(8)),
      "2 more arguments of a shell tool are not checked")),
    ("shell", {"request": {"command": "ls"}}, None, True, "unknown",
     ("argument request of a shell tool is not checked",)),
    ("shell", {"command": {"command": "ls"}}, None, True, "unknown",
     ("argument command of a shell tool is not checked",)),
    ("run_commands", {"commands": [{"command": "ls", "env": {"X": "1"}}]}, None, True, "unknown",
     ("argument env of a shell tool is not checked",)),
    ("run_commands", {"commands": [{"command": "ls", "cwd": "/"}, "pwd"]}, None, True, "safe", ()),
    # args of a shape that is not a list of words
    ("exec", {"cmd": "ls", "args": {"a": "-la"}}, None, True, "unknown",
     ("argument args is not a list of words",)),
    ("exec", {"cmd": "find", "args": {"a": ". -delete"}}, None, True, "unknown",
     ("argument args is not a list of words",)),
    ("exec", {"args": {"a": "ls"}}, READ_ONLY, True, "unknown",
     ("argument args is not a list of words", "tool s__exec runs commands")),
    ("start_process", {"command": "ls", "argv": {"a": 1}}, READ_ONLY, True, "unknown",
     ("tool s__start_process starts (by its name)", "argument argv is not a list of words")),
    # a name that differs only in case or `_`, or a second argv: every reading is checked
    ("run_command", {"command": SAFE_CMD, "Command": RM_CMD}, None, True, "destructive", None),
    ("run_command", {"COMMAND": RM_CMD, "command": SAFE_CMD}, None, True, "destructive", None),
    ("exec", {"cmd": "find", "args": ["."], "argv": [".", "-delete"]}, None, True, "destructive",
     None),
    ("run_command", {"command": None, "args": ["rm", "-rf", "/tmp/x"]}, None, True, "destructive",
     None),
    # what lies beyond the bounds of the walk is not checked
    ("get_x", {"items": list(range(3000))}, READ_ONLY, True, "unknown", (TOO_LARGE,)),
    ("run_command", {"command": ["ls", *["-la"] * 3000]}, READ_ONLY, True, "unknown",
     (TOO_LARGE, "tool s__run_command runs commands")),
    # a shell tool without a command key: any text may be the command
    ("shell", {"input": SAFE_CMD}, None, True, "destructive",
     (DEFAULT, "tool s__shell runs commands")),
    ("shell", {"input": SAFE_CMD}, READ_ONLY, True, "unknown", ("tool s__shell runs commands",)),
    ("terminal", {"input": RM_CMD}, READ_ONLY, True, "destructive", None),
    ("run_command", {"command": 42}, READ_ONLY, True, "unknown",
     ("a command argument is not text", "tool s__run_command runs commands")),
    # a command argument counts on any tool; the hint stays (the name does not say "shell")
    ("start_process", {"command": RM_CMD, "timeout_ms": 5}, READ_ONLY, True, "destructive", None),
    ("deploy", {"command": SAFE_CMD}, None, True, "destructive",
     (DEFAULT, "tool s__deploy deploys (by its name)")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "arguments", "annotations", "trusted", "level", "reasons"),
    TABLE,
    ids=[f"{row[0]}-{i}" for i, row in enumerate(TABLE)],
)
def test_table(
    tool: str,
    arguments: Any,
    annotations: Any,
    trusted: bool,
    level: str,
    reasons: tuple[str, ...] | None,
) -> None:
    verdict = classify_tool_call("s", tool, arguments, annotations, trusted)
    assert verdict.level == level, verdict
    if reasons is not None:
        assert verdict.reasons == reasons
    else:
        assert any(r.startswith("command: ") for r in verdict.reasons), verdict


def test_command_reasons_are_the_classifiers_with_a_prefix() -> None:
    verdict = classify_tool_call("s", "run_command", {"command": RM_CMD}, None, True)
    expected = classify(RM_CMD)
    assert verdict.level == expected.level
    assert verdict.reasons == tuple(f"command: {r}" for r in expected.reasons)


def test_every_reason_is_named_worst_first() -> None:
    verdict = classify_tool_call("fs", "write_file", {"path": "/x"}, {"readOnlyHint": "no"}, True)
    assert verdict.level == "destructive"
    assert verdict.reasons == (
        DEFAULT,
        "annotation readOnlyHint is not a boolean; ignored",
        "tool fs__write_file writes files",
    )
    verdict = classify_tool_call("fs", "write_file", {"path": "/x"}, {"readOnlyHint": "no"}, False)
    assert verdict.reasons == (
        "untrusted server fs: annotations are not trusted; MCP default destructiveHint=true",
        "tool fs__write_file writes files",
    )


def test_user_rules_reach_the_classifier() -> None:
    rules = UserRules(destructive=("make deploy*",))
    verdict = classify_tool_call("s", "shell", {"command": "make deploy"}, None, True, rules)
    assert verdict.level == classify("make deploy", rules).level


def test_trust_means_exactly_true() -> None:
    for trusted in (1, "yes", None):
        verdict = classify_tool_call("s", "read_file", {}, READ_ONLY, trusted)  # type: ignore[arg-type]
        assert verdict == Verdict("destructive", (UNTRUSTED,))


def test_names_in_reasons_are_printable_and_short() -> None:
    verdict = classify_tool_call("s\x1b[2J", "delete\u202e" + "x" * 200, {}, READ_ONLY, True)
    (reason,) = verdict.reasons
    assert "\x1b" not in reason and "\u202e" not in reason
    assert len(reason) < 150


def test_deep_and_wide_arguments_are_bounded() -> None:
    deep: Any = {"command": RM_CMD}
    for _ in range(10_000):
        deep = {"a": [deep]}
    verdict = classify_tool_call("s", "shell", deep, READ_ONLY, True)
    assert verdict == Verdict("unknown", (TOO_LARGE, "tool s__shell runs commands"))
    deep = {"command": SAFE_CMD}
    for _ in range(20):
        deep = {"a": [deep]}
    verdict = classify_tool_call("s", "get_x", {"q": deep}, READ_ONLY, True)
    assert verdict == Verdict("unknown", (TOO_LARGE,))  # the command is out of reach
    wide = {"commands": [SAFE_CMD] * 5000}
    assert classify_tool_call("s", "shell", wide, None, True).level != "safe"


# ---- properties -------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["command", "cmd", "args", "commands", "path", "language", "code"])
            | st.text(max_size=8),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
TOOLS = st.sampled_from(
    ["run_command", "shell", "exec", "write_file", "read_file", "delete_file", "get_x", ""]
) | st.text(max_size=20)
HINTS = (
    st.none()
    | JSON
    | st.dictionaries(
        st.sampled_from(["readOnlyHint", "destructiveHint", "title"]), JSON, max_size=3
    )
)
LEVELS = ("safe", "unknown", "destructive")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=10), TOOLS, JSON, HINTS, st.booleans())
def test_any_json_gives_a_verdict(
    server: str, tool: str, arguments: Any, annotations: Any, trusted: bool
) -> None:
    verdict = classify_tool_call(server, tool, arguments, annotations, trusted)
    assert verdict.level in LEVELS
    assert isinstance(verdict.reasons, tuple)
    assert all(isinstance(r, str) and r for r in verdict.reasons)
    assert (verdict.level == "safe") == (not verdict.reasons)
    if not trusted:
        assert verdict.level == "destructive"  # an untrusted server's hints count for nothing


@settings(max_examples=100, deadline=None)
@given(JSON, HINTS, st.booleans())
def test_deleting_tools_are_always_destructive(
    arguments: Any, annotations: Any, trusted: bool
) -> None:
    verdict = classify_tool_call("s", "delete_file", arguments, annotations, trusted)
    assert verdict.level == "destructive"


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40), HINTS, st.booleans())
def test_never_lower_than_the_command(command: str, annotations: Any, trusted: bool) -> None:
    verdict = classify_tool_call("s", "run_command", {"command": command}, annotations, trusted)
    rank = LEVELS.index
    assert rank(verdict.level) >= rank(classify(command).level)


@settings(max_examples=100, deadline=None)
@given(TOOLS, JSON, HINTS)
def test_an_untrusted_servers_hints_count_for_nothing(
    tool: str, arguments: Any, annotations: Any
) -> None:
    verdict = classify_tool_call("s", tool, arguments, annotations, False)
    assert verdict == classify_tool_call("s", tool, arguments, None, False)
    assert verdict.level == "destructive"
    assert verdict.reasons[0] == UNTRUSTED


# Keys a shell tool may have besides its command without a note (normalised: lower, no `_`).
_COMMAND_OR_INERT = (
    "command cmd commandline cmdline shellcommand bashcommand script shellscript bashscript "
    "commands cmds scripts args argv arguments code source language lang timeout timeoutms "
    "timeoutsec timeoutsecs timeoutseconds description desc title reason justification "
    "explanation purpose comment cwd workdir workingdir workingdirectory directory"
)
COMMAND_OR_INERT = set(_COMMAND_OR_INERT.split())
EXTRA_KEYS = st.sampled_from(["env", "stdin", "input", "shell", "sandbox", "user", "runAs"]) | (
    st.from_regex(r"[a-z]{1,10}", fullmatch=True).filter(lambda k: k not in COMMAND_OR_INERT)
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["run_command", "shell", "exec", "bash", "execute_command"]),
    st.sampled_from(["command", "cmd", "script"]),
    EXTRA_KEYS,
    JSON.filter(lambda v: v is not None),
    HINTS,
)
def test_a_shell_tools_other_arguments_are_never_safe(
    tool: str, key: str, extra: str, value: Any, annotations: Any
) -> None:
    arguments = {key: SAFE_CMD, extra: value}
    verdict = classify_tool_call("s", tool, arguments, annotations, True)
    assert verdict.level != "safe"
    assert f"argument {extra} of a shell tool is not checked" in verdict.reasons


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=5), JSON, max_size=4), HINTS)
def test_args_as_an_object_is_never_safe(args: dict[str, Any], annotations: Any) -> None:
    verdict = classify_tool_call("s", "exec", {"cmd": "ls", "args": args}, annotations, True)
    assert verdict.level != "safe"
    assert "argument args is not a list of words" in verdict.reasons


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 40), st.lists(st.sampled_from(["a", "b", "steps"]), min_size=1, max_size=3))
def test_a_command_at_any_depth_is_never_safe(depth: int, keys: list[str]) -> None:
    nested: Any = {"command": RM_CMD}
    for i in range(depth):
        nested = {keys[i % len(keys)]: [nested]}
    for tool in ("get_x", "shell"):
        verdict = classify_tool_call("s", tool, {"q": nested}, READ_ONLY, True)
        assert verdict.level != "safe"


class _Hostile(dict[str, Any]):
    def items(self) -> Any:
        raise RuntimeError("no")


def test_a_bug_while_reading_arguments_is_destructive() -> None:
    verdict = classify_tool_call("s", "shell", _Hostile(command="ls"), READ_ONLY, True)
    assert verdict == Verdict("destructive", ("tool call: could not be checked",))
