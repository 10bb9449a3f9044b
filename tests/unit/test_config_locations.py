"""The TOML key locator: every key path tomllib sees is mapped to the line it is written on."""

from __future__ import annotations

import tomllib
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from aish.config.toml_locations import KeyPath, line_of, locate_keys

DOCUMENT = '''\
# comment [not.a.table]
default_model = "fast"          # trailing comment
[models.fast]
endpoint = "http://x"
"quoted.key".x = 1
text = """
[not.a.table]
a = 1 \\""" """"
after = 2
arr = [
  1, # comment
  { a = 1, b = { c = [2, 3] } },
]
inline = { x.y = 1, 'z' = "}" }
literal = \'\'\'
x = 1\'\'\'\'\'

[[servers]]
name = "a"
[[servers]]
name = "b"
[servers.sub]
c = 3
[ models . "deep" ]
k = 'v'
'''


def test_document_parses_and_every_key_has_its_line() -> None:
    data = tomllib.loads(DOCUMENT)
    lines = locate_keys(DOCUMENT)
    assert set(_paths(data)) <= set(lines)
    expected: dict[KeyPath, int] = {
        ("default_model",): 2,
        ("models", "fast"): 3,
        ("models", "fast", "endpoint"): 4,
        ("models", "fast", "quoted.key", "x"): 5,
        ("models", "fast", "text"): 6,
        ("models", "fast", "after"): 9,
        ("models", "fast", "arr", 0): 11,
        ("models", "fast", "arr", 1, "b", "c", 1): 12,
        ("models", "fast", "inline", "x", "y"): 14,
        ("models", "fast", "inline", "z"): 14,
        ("models", "fast", "literal"): 15,
        ("servers",): 18,
        ("servers", 0, "name"): 19,
        ("servers", 1): 20,
        ("servers", 1, "name"): 21,
        ("servers", 1, "sub", "c"): 23,
        ("models", "deep", "k"): 25,
    }
    assert {path: lines[path] for path in expected} == expected


def test_line_of_falls_back_to_the_nearest_table() -> None:
    lines = locate_keys("[models.fast]\nmodel = 'm'\n")
    assert line_of(lines, ("models", "fast", "endpoint")) == 1
    assert line_of(lines, ("models", "fast", "model")) == 2
    assert line_of(lines, ("safety", "allow")) is None


def test_garbage_does_not_hang_or_raise() -> None:
    for text in ("[", "[[", "= = =", '"unterminated', "a = [1, {", "\\", "'''", "a.b.", "\r\n"):
        locate_keys(text)


# ---- property: a generated document's keys are all found on the right lines ----------------

KEYS = st.one_of(
    st.from_regex(r"[a-z][a-z0-9_-]{0,6}", fullmatch=True),
    st.text(alphabet="ab .#=[]'\"", min_size=1, max_size=6),
)
SCALARS = st.one_of(
    st.integers(-5, 5),
    st.booleans(),
    st.text(alphabet='ab #=[]{}"\\\n', max_size=6),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, min_size=1, max_size=3)
    ),
    max_leaves=6,
)
TABLES = st.dictionaries(KEYS, st.dictionaries(KEYS, VALUES, max_size=4), max_size=3)


@given(TABLES, st.booleans())
def test_generated_documents(tables: dict[str, dict[str, Any]], multiline: bool) -> None:
    text, written = _render(tables, multiline)
    assert tomllib.loads(text) == tables
    lines = locate_keys(text)
    for path, line in written.items():
        assert lines.get(path) == line, (path, text)


def _render(tables: dict[str, dict[str, Any]], multiline: bool) -> tuple[str, dict[KeyPath, int]]:
    out: list[str] = []
    written: dict[KeyPath, int] = {}
    for table, entries in tables.items():
        out.append(f"[{_key(table)}]  # table")
        written[(table,)] = len(out)
        for key, value in entries.items():
            written[(table, key)] = len(out) + 1
            out.extend(f"{_key(key)} = {_value(value, multiline)}".split("\n"))
    return "\n".join(out) + "\n", written


def _key(key: str) -> str:
    if key and all(char.isalnum() or char in "_-" for char in key):
        return key
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _value(value: Any, multiline: bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        if multiline and "\n" in value:
            return '"""\n' + escaped + '"""'
        return '"' + escaped.replace("\n", "\\n") + '"'
    if isinstance(value, list):
        sep = ",\n  " if multiline else ", "
        return "[" + sep.join(_value(item, multiline) for item in value) + "]"
    inner = ", ".join(f"{_key(k)} = {_value(v, False)}" for k, v in value.items())
    return "{ " + inner + " }"


def _paths(data: Any, prefix: KeyPath = ()) -> list[KeyPath]:
    found: list[KeyPath] = []
    if isinstance(data, dict):
        for key, value in data.items():
            found.append((*prefix, key))
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.append((*prefix, index))
            found += _paths(value, (*prefix, index))
    return found
