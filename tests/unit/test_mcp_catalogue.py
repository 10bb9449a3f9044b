"""Exposed tool names (sanitising, length, collisions) and deterministic tool specs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from aish.mcp.catalogue import ServerTools, build_catalogue, tool_specs
from aish.mcp.naming import qualified_names, sanitise

_ALLOWED = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}, **extra}


def test_plain_names_are_server_and_tool() -> None:
    names = qualified_names([("time", "get_current_time"), ("everything", "get-sum")])
    assert names == {
        ("time", "get_current_time"): "time__get_current_time",
        ("everything", "get-sum"): "everything__get-sum",
    }


def test_other_characters_become_underscores() -> None:
    assert sanitise("files.read/v2 ü") == "files_read_v2__"
    assert sanitise("") == "_"
    assert qualified_names([("my.server", "read.file")]) == {
        ("my.server", "read.file"): "my_server__read_file"
    }


def test_long_names_are_cut_with_a_hash_of_the_real_names() -> None:
    long_tool = "x" * 100
    names = qualified_names([("srv", long_tool), ("srv", long_tool + "y")])
    first, second = names[("srv", long_tool)], names[("srv", long_tool + "y")]
    assert len(first) == len(second) == 64 and first != second
    assert first.startswith("srv__xxx") and re.fullmatch(r".*_[0-9a-f]{8}", first)
    # The same tool gets the same name whatever else is listed.
    assert qualified_names([("srv", long_tool)])[("srv", long_tool)] == first


def test_colliding_names_all_get_a_hash() -> None:
    pairs = [("a.b", "c"), ("a_b", "c"), ("a", "b__c"), ("a__b", "c"), ("z", "c")]
    names = qualified_names(pairs)
    assert len(set(names.values())) == len(pairs)
    assert names[("z", "c")] == "z__c"
    for pair in pairs[:2]:  # both sanitise to a_b__c
        assert re.fullmatch(r"a_b__c_[0-9a-f]{8}", names[pair]), names[pair]
    for pair in pairs[2:4]:  # both are a__b__c as they stand
        assert re.fullmatch(r"a__b__c_[0-9a-f]{8}", names[pair]), names[pair]


def test_names_from_json_with_lone_surrogates_still_work() -> None:
    name = json.loads('"bad\\ud800" ')
    names = qualified_names([("s", name), ("s", "bad_")])
    assert len(set(names.values())) == 2 and all(_ALLOWED.fullmatch(n) for n in names.values())


_ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=140)  # lone surrogates too


@given(st.lists(st.tuples(_ANY_TEXT, _ANY_TEXT), max_size=12))
def test_names_are_always_allowed_and_unique(pairs: list[tuple[str, str]]) -> None:
    names = qualified_names(pairs)
    assert set(names) == set(pairs)
    assert all(_ALLOWED.fullmatch(name) for name in names.values())
    assert len(set(names.values())) == len(names)


def test_catalogue_is_sorted_and_keeps_what_the_server_said() -> None:
    readonly = {"readOnlyHint": True, "destructiveHint": False}
    catalogue = build_catalogue(
        [
            ServerTools("zeta", True, (_tool("b", description=" B tool "), _tool("a"))),
            ServerTools("alpha", False, (_tool("x", annotations=readonly, title="X"),)),
        ]
    )
    assert [tool.qualified for tool in catalogue] == ["alpha__x", "zeta__a", "zeta__b"]
    x, a, b = catalogue
    assert (x.server, x.name, x.trusted, x.annotations) == ("alpha", "x", False, readonly)
    assert x.description == "X"  # the title when there is no description
    assert (a.trusted, a.annotations, a.description) == (True, None, "")
    assert b.description == "B tool"


def test_catalogue_drops_nameless_and_repeated_tools() -> None:
    listed = (_tool("a", description="first"), _tool("a", description="second"), {"x": 1})
    catalogue = build_catalogue([ServerTools("s", False, listed)])
    assert [(tool.name, tool.description) for tool in catalogue] == [("a", "first")]


def test_missing_or_odd_schemas_become_object_schemas() -> None:
    listed = ({"name": "none"}, {"name": "bare", "inputSchema": {"properties": {}}})
    by_name = {t.name: t for t in build_catalogue([ServerTools("s", False, listed)])}
    assert by_name["none"].input_schema == {"type": "object", "properties": {}}
    assert by_name["bare"].input_schema == {"properties": {}, "type": "object"}


def test_tool_specs_are_deterministic_bytes() -> None:
    schema_one = {"type": "object", "required": ["b", "a"], "properties": {"b": {}, "a": {}}}
    schema_two = {"properties": {"a": {}, "b": {}}, "required": ["b", "a"], "type": "object"}
    first = build_catalogue([ServerTools("s", False, (_tool("t", inputSchema=schema_one),))])
    second = build_catalogue([ServerTools("s", False, (_tool("t", inputSchema=schema_two),))])

    def wire(specs: list[Any]) -> str:
        return json.dumps([vars(spec) for spec in specs])

    assert wire(tool_specs(first)) == wire(tool_specs(second))
    specs = tool_specs(first)
    assert list(specs[0].parameters) == ["properties", "required", "type"]
    assert specs[0].parameters["required"] == ["b", "a"]  # lists keep their order
    # A deep copy: changing the spec never changes the catalogue.
    specs[0].parameters["properties"]["a"]["type"] = "string"
    assert first[0].input_schema["properties"]["a"] == {}


def test_lone_surrogates_never_reach_a_request() -> None:
    listed = json.loads(
        '[{"name": "t", "description": "x\\udc80", "inputSchema": {"title": "\\ud800"}}]'
    )
    [spec] = tool_specs(build_catalogue([ServerTools("s", False, tuple(listed))]))
    json.dumps(vars(spec), ensure_ascii=False).encode("utf-8")  # would raise on a surrogate
    assert spec.description == "x?" and spec.parameters["title"] == "?"


def test_tool_specs_sort_by_exposed_name() -> None:
    listed = [ServerTools("b", False, (_tool("z"),)), ServerTools("a", False, (_tool("y"),))]
    catalogue = build_catalogue(listed)
    assert [s.name for s in tool_specs(list(reversed(catalogue)))] == ["a__y", "b__z"]


def test_importing_the_mcp_room_does_not_load_the_sdk() -> None:
    code = (
        "import sys, aish.mcp; from aish.mcp import McpServers, McpTool, ToolResult, tool_specs; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'httpx2'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
