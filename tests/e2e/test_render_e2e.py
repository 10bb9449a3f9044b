"""A long markdown reply streamed into a real aish in a real PTY, read off an emulated screen."""

from __future__ import annotations

import io
from pathlib import Path

import pyte

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

ROWS, COLUMNS = 40, 120


def _section(n: int) -> str:
    return (
        f"## Section {n}: checking the disk\n\n"
        f"Paragraph {n} explains *why* the disk fills up, with **bold advice** and `du` "
        "examples that wrap over more than one line of the terminal because they are long "
        "enough to need it.\n\n"
        f"1. First step of section {n}\n"
        "2. Second step\n\n"
        f"> Quote {n}: measure before you delete.\n\n"
        "| directory | size |\n|---|---|\n"
        f"| /var/log/s{n} | {n} GB |\n\n"
        "```python\n"
        f"def biggest_{n}(path):\n"
        "    return sorted(path.iterdir(), key=size)[-10:]\n"
        "```\n\n"
    )


REPLY = "# Disk report\n\n" + "".join(_section(n) for n in range(1, 9)) + "CMD: du -sh /var\n"


def _screen_text(output: str) -> list[str]:
    """Every row the terminal showed, scrolled-off ones included, as a person would read it."""
    screen = pyte.HistoryScreen(COLUMNS, ROWS, history=2000)
    pyte.Stream(screen).feed(output)
    rows = ["".join(line[x].data for x in range(COLUMNS)).rstrip() for line in screen.history.top]
    return rows + [row.rstrip() for row in screen.display]


def test_a_long_markdown_reply_is_rendered_as_it_streams(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    server = serve({"default": {"text": REPLY, "chunk_size": 7}})
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n'
    )
    # An empty NO_COLOR is no request for plain text: aish draws in colour.
    aish = spawn_aish(aish_home, config=config, extra_env={"NO_COLOR": ""})
    terminals.append(aish)
    seen = io.StringIO()
    aish.child.logfile_read = seen
    aish.wait_prompt()

    aish.type_line("why is my disk full?")
    aish.expect(r"\[y\]es / \[e\]dit / \[n\]o / \[d\]escribe", timeout=30)
    aish.child.send("n")
    aish.wait_prompt()

    output = seen.getvalue()
    assert "\x1b[" in output  # coloured
    rows = _screen_text(output)
    text = "\n".join(rows)
    assert "Disk report" in text and "# Disk report" not in text
    assert "## Section" not in text and "**bold advice**" not in text and "```" not in text
    for n in range(1, 9):
        # Each block once: completed blocks are never printed again.
        assert text.count(f"Section {n}: checking the disk") == 1
        assert text.count(f"Paragraph {n} explains why the disk") == 1
        assert text.count(f"First step of section {n}") == 1
        assert text.count(f"Quote {n}: measure") == 1
        assert text.count(f"/var/log/s{n}") == 1
        assert text.count(f"def biggest_{n}(path):") == 1
    assert "|---|" not in text  # the tables are drawn, not shown as source
    assert any(row.startswith("CMD: du -sh /var") for row in rows)  # the command, on its own
    assert any(row.strip() == "du -sh /var" for row in rows)  # and in the confirm question
