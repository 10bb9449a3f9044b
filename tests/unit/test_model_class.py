"""Auto-routing by task type: the model-class corpus (`shared/corpus/model_class.tsv`) row by
row, and the edges of each rule.

The corpus lives outside the repository (see `tests/corpus_files.py`); its rows are skipped only
when it is missing. Every row is asserted, `ambiguous` ones included: for those the label is the
reading this project chose. A held-out corpus judges the same rule, so the edge cases below test
the rule as stated, not the rows.
"""

from __future__ import annotations

from typing import Any, get_args

import pytest

from aish.agent.model_class import ModelChoice, ModelClass, classify_model, classify_text
from aish.config.schema import RouteClass, RoutingConfig

from ..corpus_files import corpus_file


def _corpus_rows() -> list[Any]:
    path = corpus_file("model_class.tsv")
    if path is None:
        return [pytest.param("", "", "", marks=pytest.mark.skip(reason="corpus not found"))]
    rows = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip() or raw.startswith("#") or raw.startswith("label\t"):
            continue
        label, text, note = [*raw.split("\t"), "", ""][:3]
        rows.append(pytest.param(label, text.replace("\\n", "\n"), note, id=f"L{number}"))
    return rows


@pytest.mark.parametrize(("label", "text", "note"), _corpus_rows())
def test_corpus_row(label: str, text: str, note: str) -> None:
    got, reason = classify_text(text)
    assert got == label, f"{text!r} ({note}): got {got} because {reason}"


def test_model_class_is_the_configs_route_class() -> None:
    assert get_args(ModelClass) == get_args(RouteClass)


@pytest.mark.parametrize(
    ("text", "want", "reason"),
    [
        ("```\nls\n```", "code", "code fence"),
        ("why is there a ``` in my README", "code", "code fence"),
        ("what does this TRACEBACK mean", "code", "traceback"),
        ("where is the Stack Trace written", "code", "stack trace"),
        ("print a stack-trace on SIGQUIT", "code", "stack trace"),
        ("ValueError: invalid literal for int()", "code", "'error:' near the start"),
        ("RuntimeException: boom", "code", "'exception:' near the start"),
        ("nothing special here", "default", "no trigger"),
    ],
)
def test_code_triggers(text: str, want: str, reason: str) -> None:
    assert classify_text(text) == (want, reason)


def test_error_counts_only_within_the_first_40_characters() -> None:
    inside = "x" * 34 + "error: disk full"  # "error:" ends at character 40
    outside = "x" * 35 + "error: disk full"  # ... and here at 41
    assert classify_text(inside) == ("code", "'error:' near the start")
    assert classify_text(outside) == ("default", "no trigger")
    assert classify_text(" " * 30 + "Exception: x")[0] == "code"
    assert classify_text(" " * 31 + "Exception: x")[0] == "default"


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("look at ./app.py", "./app.py"),
        ("look at ../lib/x.lua please", "../lib/x.lua"),
        ("segfault in /opt/x/main.c", "/opt/x/main.c"),
        ("~/bin/tool.rs does not build", "~/bin/tool.rs"),
        ("at f (/srv/app/index.js:10:5)", "/srv/app/index.js"),
        ('File "/usr/lib/python3/x.py", line 2', "/usr/lib/python3/x.py"),
        ("see ./cmd/main.go.", "./cmd/main.go"),
        ("run --file=./job.py now", "./job.py"),
        ("fix src/app.py", "src/app.py"),
        ("my .config/nvim/init.lua is slow", ".config/nvim/init.lua"),
    ],
)
def test_source_paths(text: str, path: str) -> None:
    assert classify_text(text) == ("code", f"source path {path}")


@pytest.mark.parametrize(
    "text",
    [
        "edit main.go to add a flag",  # a bare file name is not a path
        "update ./scripts/deploy.sh",  # not a source extension
        "is ./x.cpp any good",  # .c must end the name
        "restore ./x.py.bak",
        "the ./x.pyc file",
        "load https://cdn.example.net/npm/vue/dist/vue.js",  # a path inside a URL
        "go get github.com/acme/tool/main.go",  # a URL without its scheme
        "copy file:///tmp/x.py",
    ],
)
def test_not_source_paths(text: str) -> None:
    assert classify_text(text) == ("default", "no trigger")


def test_more_than_four_lines_with_an_indented_one_is_code() -> None:
    four = "a:\n  b\nc\nd"
    assert classify_text(four) == ("default", "no trigger")
    assert classify_text(four + "\ne") == ("code", "indented paste of 5 lines")
    assert classify_text("a\n\tb\nc\nd\ne")[0] == "code"  # a tab indents too


def test_many_lines_without_indentation_or_with_blank_indented_lines_are_not_code() -> None:
    assert classify_text("a\nb\nc\nd\ne\nf")[0] == "default"
    assert classify_text("a\n   \nc\nd\ne\nf")[0] == "default"  # whitespace only: not indented


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("EXPLAIN ANALYZE output please", "'explain'"),
        ("she explained it", "'explain'"),
        ("anyway why not", "'why'"),
        ("so how does it scale", "'how does'"),
        ("Compare a and b", "'compare'"),
        ("compared to last week it is slow", "'compare'"),
    ],
)
def test_reasoning_words_are_substrings(text: str, reason: str) -> None:
    assert classify_text(text) == ("reasoning", reason)


@pytest.mark.parametrize(
    "text", ["an explanation please", "a comparison table", "how do I quit", "how it does that"]
)
def test_near_misses_are_default(text: str) -> None:
    assert classify_text(text)[0] == "default"


def test_a_question_counts_only_past_100_characters() -> None:
    exactly = "q" * 99 + "?"
    assert len(exactly) == 100
    assert classify_text(exactly) == ("default", "no trigger")
    assert classify_text("q" + exactly) == ("reasoning", "question longer than 100 characters")
    assert classify_text("q" * 120)[0] == "default"  # long, but no question mark


def test_code_beats_reasoning() -> None:
    assert classify_text("why does ./x.py fail")[0] == "code"
    assert classify_text("explain this traceback")[0] == "code"


def test_presets_come_from_routing_classes() -> None:
    routing = RoutingConfig(classes={"code": "deep", "default": "fast"})
    assert classify_model("```x```", routing) == ModelChoice("code", "deep", "code fence")
    assert classify_model("hi", routing) == ModelChoice("default", "fast", "no trigger")
    # An unmapped class stays on the user's model.
    assert classify_model("why", routing) == ModelChoice("reasoning", None, "'why'")
    assert classify_model("why", RoutingConfig()).preset is None
