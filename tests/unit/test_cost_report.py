"""`:cost`, `:cost detail` and `aish cost`'s pieces: dollars, lines, tables and `--since`."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from io import StringIO

import pytest

from aish.store import UsageTotals
from aish.ui.cost_report import (
    cost_detail_table,
    cost_line,
    dollars,
    money,
    parse_since,
    print_report,
    report_heading,
)

NOW = 1_800_000_000.0


def _totals(
    key: tuple[str, ...] = (),
    by: tuple[str, ...] = (),
    *,
    calls: int = 3,
    cost: float = 0.0123,
    unknown: int = 0,
    estimated: int = 0,
    local: int = 0,
) -> UsageTotals:
    return UsageTotals(
        by=by,
        key=key,
        calls=calls,
        prompt_tokens=12_345,
        completion_tokens=678,
        cached_tokens=1_000,
        cost_usd=cost,
        unknown_calls=unknown,
        estimated_calls=estimated,
        local_calls=local,
    )


@pytest.mark.parametrize(
    ("text", "back"),
    [("30m", 1800), ("24h", 86400), ("7d", 7 * 86400), ("2w", 14 * 86400), (" 1.5H ", 5400)],
)
def test_since_spans_count_back_from_now(text: str, back: float) -> None:
    assert parse_since(text, now=NOW) == NOW - back


def test_since_iso_dates_are_local_time() -> None:
    assert parse_since("2026-05-01", now=NOW) == datetime(2026, 5, 1).timestamp()
    assert parse_since("2026-05-01T13:30", now=NOW) == datetime(2026, 5, 1, 13, 30).timestamp()
    assert parse_since("2026-05-01T00:00:00Z", now=NOW) == 1777593600.0


@pytest.mark.parametrize("text", ["", "7", "d", "7y", "-7d", "yesterday", "2026-13-01", "7 days"])
def test_bad_since_values_are_one_line_errors(text: str) -> None:
    with pytest.raises(ValueError, match="bad --since value") as caught:
        parse_since(text, now=NOW)
    assert "\n" not in str(caught.value)


def test_dollars_never_show_an_unknown_cost_as_zero() -> None:
    assert dollars(_totals()) == "$0.0123"
    assert dollars(_totals(unknown=2)) == "$0.0123 + 2 unknown"
    assert dollars(_totals(cost=0.0, unknown=3)) == "3 unknown"
    assert dollars(_totals(cost=0.0, local=3)) == "$0 (local)"
    assert dollars(_totals(cost=0.0, local=1)) == "$0.00"
    assert [money(x) for x in (0, 0.00001, 0.5, 12345.678)] == [
        "$0.00",
        "<$0.0001",
        "$0.5000",
        "$12,345.68",
    ]


def test_cost_line() -> None:
    assert cost_line(_totals(unknown=1, estimated=2)) == (
        "cost: $0.0123 this session · 3 calls, 2 estimated · 12,345 tokens in (1,000 cached), "
        "678 out · cost unknown for 1 of them"
    )
    assert cost_line(_totals(calls=1)) == (
        "cost: $0.0123 this session · 1 call · 12,345 tokens in (1,000 cached), 678 out"
    )
    assert cost_line(_totals(calls=0, cost=0.0)) == "cost: no model calls in this session yet"


def test_cost_detail_table_is_plain_text_with_a_total_and_the_context_line() -> None:
    by = ("model", "category")
    rows = [
        _totals(("gpt-4o", "chat"), by, calls=2, cost=0.02),
        _totals(("gpt-4o-mini", "safety"), by, calls=1, cost=0.0, unknown=1),
    ]
    text = cost_detail_table(rows, "context: ~3,200 of 8,192 tokens", width=100)
    lines = text.splitlines()
    assert "\x1b" not in text
    assert lines[0].split() == [
        "model",
        "category",
        "calls",
        "tokens",
        "in",
        "out",
        "cached",
        "dollars",
    ]
    assert lines[2].split() == ["gpt-4o", "chat", "2", "12,345", "678", "1,000", "$0.0200"]
    assert lines[3].split() == [
        "gpt-4o-mini",
        "safety",
        "1",
        "12,345",
        "678",
        "1,000",
        "1",
        "unknown",
    ]
    assert "total" in lines[-2] and lines[-2].rstrip().endswith("$0.0200 + 1 unknown")
    assert lines[-2].split()[1:5] == ["3", "24,690", "1,356", "2,000"]
    assert lines[-1] == "context: ~3,200 of 8,192 tokens"
    assert all(len(line) <= 100 for line in lines)
    empty = cost_detail_table([], "context: ~0 of 8,192 tokens")
    assert empty == "no model calls in this session yet\ncontext: ~0 of 8,192 tokens\n"


def test_print_report_and_heading() -> None:
    out = StringIO()
    rows = [_totals(("2026-05-11",), ("day",))]
    print_report(rows, _totals(), report_heading("day", None, None), out)
    text = out.getvalue()
    assert text.splitlines()[0] == "Model calls, all recorded, by day"
    assert "2026-05-11" in text and "total" in text
    empty = StringIO()
    print_report([], _totals(calls=0, cost=0.0), "heading", empty)
    assert empty.getvalue() == "heading\nno model calls recorded\n"
    since = datetime(2026, 5, 4, 9, 30).timestamp()
    assert (
        report_heading("model", "7d", since) == "Model calls since 2026-05-04 09:30 (7d), by model"
    )


def test_importing_the_report_does_not_load_rich() -> None:
    code = (
        "import sys, aish.ui.cost_report; print([m for m in sys.modules if m.startswith('rich')])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"
