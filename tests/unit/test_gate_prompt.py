"""How the confirm prompt shows the gate's verdict: level, reasons, destructive in red."""

from __future__ import annotations

import io

import pytest

from aish.safety.verdict import Verdict
from aish.ui.chat_view import ChatView, verdict_line


def test_the_verdict_line_names_the_level_and_every_reason() -> None:
    assert verdict_line(Verdict("safe")) == "  [safe] read-only"
    unknown = Verdict("unknown", ("make is not known to be read-only", "second opinion: NO"))
    assert verdict_line(unknown) == (
        "  [unknown] make is not known to be read-only; second opinion: NO"
    )
    # Reasons can quote the model (an unparsable second opinion): never raw control bytes.
    odd = Verdict("destructive", ("second opinion failed: unparsable answer '\x1b[2Jok'",))
    assert "\x1b" not in verdict_line(odd) and "^[[2Jok" in verdict_line(odd)


@pytest.mark.parametrize(
    ("level", "colour"), [("destructive", "\x1b[1;31m"), ("unknown", "\x1b[33m")]
)
def test_destructive_is_red(monkeypatch: pytest.MonkeyPatch, level: str, colour: str) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich colours a StringIO only when told to
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = io.StringIO()
    view = ChatView(out, color=True)
    verdict = Verdict(level, ("why",))  # type: ignore[arg-type]
    view.show_verdict(verdict)
    assert out.getvalue().startswith(colour) and f"[{level}] why" in out.getvalue()
