"""One readable line from whatever a server sends back with an error status."""

from __future__ import annotations

from aish.llm.http_errors import describe_body, parse_retry_after


def test_json_error_shapes() -> None:
    assert describe_body(b'{"error": {"message": "bad key", "code": 401}}', "application/json") == (
        "bad key (code 401)"
    )
    assert describe_body(b'{"type":"error","error":{"type":"x","message":"Overloaded"}}', "") == (
        "Overloaded"
    )
    assert describe_body(b'{"error": "model not found"}', "application/json") == "model not found"


def test_html_page_gives_its_title() -> None:
    page = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    assert describe_body(page, "text/html") == "HTML page: 502 Bad Gateway"


def test_plain_text_is_clipped_to_one_line() -> None:
    out = describe_body(b"line one\nline two " + b"z" * 500, "text/plain")
    assert "\n" not in out and len(out) <= 200


def test_retry_after_seconds_and_dates() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
