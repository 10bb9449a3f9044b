"""A tool result as the model is told it: every content kind, structured content, bounds."""

from __future__ import annotations

import base64
import json
from typing import Any

from aish.mcp.results import MAX_RESULT_BYTES, render_result, size_label


def _text(result: dict[str, Any]) -> str:
    return render_result(result, 0.5).text


def test_text_blocks_are_joined() -> None:
    result = render_result(
        {"content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}, 0.25
    )
    assert (result.text, result.is_error, result.duration_s) == ("one\ntwo", False, 0.25)


def test_is_error_is_kept() -> None:
    result = render_result({"content": [{"type": "text", "text": "bad"}], "isError": True}, 0)
    assert (result.text, result.is_error) == ("bad", True)
    assert render_result({"content": [], "isError": "yes"}, 0).is_error is False


def test_images_and_audio_are_one_line_each() -> None:
    png = base64.b64encode(b"\x89PNG" + b"\0" * 1224).decode()
    content = [
        {"type": "text", "text": "Here:"},
        {"type": "image", "data": png, "mimeType": "image/png"},
        {"type": "audio", "data": base64.b64encode(b"x" * 10).decode(), "mimeType": "audio/wav"},
    ]
    assert _text({"content": content}) == "Here:\n[image/png, 1.2 KB]\n[audio/wav, 10 B]"


def test_resources_and_links() -> None:
    content = [
        {
            "type": "resource",
            "resource": {"uri": "file:///x", "mimeType": "text/plain", "text": "hi"},
        },
        {"type": "resource", "resource": {"uri": "file:///y.pdf", "blob": "AAAA"}},
        {"type": "resource_link", "uri": "demo://r/1", "name": "R1", "mimeType": "text/plain"},
        {"type": "resource_link", "uri": "demo://r/2"},
    ]
    assert _text({"content": content}).splitlines() == [
        "[resource file:///x (text/plain)]",
        "hi",
        "[resource file:///y.pdf (3 B)]",
        "[resource link demo://r/1 (text/plain)] R1",
        "[resource link demo://r/2]",
    ]


def test_a_long_text_resource_is_cut() -> None:
    resource = {"uri": "file:///big", "text": "a" * 10_000 + "END"}
    text = _text({"content": [{"type": "resource", "resource": resource}]})
    assert "bytes omitted" in text and text.endswith("END") and len(text) < 5000


def test_structured_content_is_added_unless_a_text_block_says_it() -> None:
    structured = {"temperature": 22, "sky": "clear"}
    alone = _text({"content": [], "structuredContent": structured})
    assert alone == '{"temperature":22,"sky":"clear"}'
    said = '{\n  "sky": "clear",\n  "temperature": 22\n}'
    both = {"content": [{"type": "text", "text": said}], "structuredContent": structured}
    assert _text(both) == said
    other = {"content": [{"type": "text", "text": "Sunny."}], "structuredContent": structured}
    assert _text(other) == 'Sunny.\n{"temperature":22,"sky":"clear"}'
    # The SDK's servers wrap a plain return value as {"result": value}.
    for value, shown in (("hi", "hi"), (3, "3"), ([1, 2], "[1, 2]")):
        wrapped = {
            "content": [{"type": "text", "text": shown}],
            "structuredContent": {"result": value},
        }
        assert _text(wrapped) == shown
    listed = {"content": [{"type": "text", "text": "hi"}], "structuredContent": ["hi"]}
    assert _text(listed) == 'hi\n["hi"]'


def test_odd_content_never_raises() -> None:
    content: list[Any] = [7, {"type": "video"}, {"type": "text", "text": 3}, {"type": "resource"}]
    assert _text({"content": content}) == (
        "[content block that is not an object]\n[video content]\n[resource]"
    )
    assert _text({}) == "(the tool returned no content)"
    assert _text({"content": "nope"}) == "(the tool returned no content)"


def test_long_results_keep_head_and_tail() -> None:
    text = "HEAD" + "é" * MAX_RESULT_BYTES + "TAIL"
    shown = _text({"content": [{"type": "text", "text": text}]})
    notice, _, kept = shown.partition("\n")
    assert notice == "[result cut: 32.0 KB, 16.0 KB kept (max_result_bytes)]"
    assert kept.startswith("HEAD") and kept.endswith("TAIL")
    assert "bytes omitted] …" in kept
    assert len(kept.encode()) <= MAX_RESULT_BYTES + 100


def test_the_limit_and_the_key_named_are_the_callers() -> None:
    result = {"content": [{"type": "text", "text": "x" * 3000}]}
    shown = render_result(result, 0.1, limit=1024, limit_key="mcp.servers.big.max_result_bytes")
    assert shown.text.startswith(
        "[result cut: 2.9 KB, 1.0 KB kept (mcp.servers.big.max_result_bytes)]\n"
    )
    assert render_result(result, 0.1, limit=3000).text == "x" * 3000


def test_size_labels() -> None:
    assert [size_label(n) for n in (0, 1023, 1024, 1536, 5 * 1024 * 1024)] == [
        "0 B",
        "1023 B",
        "1.0 KB",
        "1.5 KB",
        "5.0 MB",
    ]


def test_lone_surrogates_from_json_become_question_marks() -> None:
    result = json.loads('{"content": [{"type": "text", "text": "a\\ud800b"}]}')
    assert _text(result) == "a?b"
