"""A `SessionDocument` as Markdown: readable as plain text, and safe in a Markdown viewer.

Nothing the session holds may become markup the viewer acts on or breaks the file's structure:
commands, outputs and tool results sit in code fences longer than any backtick run inside them;
prose (questions, replies, notes) keeps its Markdown but loses raw HTML (`<` is written as
`&lt;`) and images (`![…](url)` would fetch from the network when viewed, with whatever the
URL carries), outside code. A reply's unclosed fence is closed where the reply ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from aish import __version__
from aish.ui.export.document import (
    Bounded,
    Command,
    CostRow,
    Decision,
    Description,
    Entry,
    NorrisEnded,
    NorrisStarted,
    NorrisStep,
    Notice,
    Question,
    Reply,
    SessionDocument,
    ToolResult,
)
from aish.ui.export.reply_blocks import GROUPED, reply_blocks
from aish.ui.export.wording import (
    PLACEHOLDER_FORM,
    command_facts,
    decision_line,
    heading_facts,
    norris_end_line,
    norris_start_line,
    placeholder_line,
    when,
)

__all__ = ["code_block", "code_span", "prose", "render_markdown"]

_BACKTICKS = re.compile(r"`+")
# A code span: a run of backticks, then anything up to the same run (CommonMark's rule). A
# backslash-escaped backtick opens none (CommonMark), so it is not taken for one: what follows
# it is prose, made inert like the rest (`\`![x](url)` must not become an image).
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def render_markdown(document: SessionDocument) -> str:
    heading = document.heading
    parts = [
        f"# aish session {prose(heading.label)}",
        prose(" · ".join(heading_facts(heading))),
        f"*{_placeholder_line(document.scrubbed)}*",
    ]
    parts += [_entry(entry) for entry in document.entries]
    if document.costs or document.total is not None:
        parts.append(_costs(document))
    parts.append(f"*exported by aish {__version__}*")
    return "\n\n".join(part for part in parts if part) + "\n"


def _placeholder_line(scrubbed: bool) -> str:
    return prose(placeholder_line(scrubbed)).replace(
        prose(PLACEHOLDER_FORM), code_span(PLACEHOLDER_FORM)
    )


def _entry(entry: Entry) -> str:
    render = _RENDERERS[type(entry)]
    return render(entry)


def _question(entry: Question) -> str:
    text = prose(entry.text) or "(empty)"
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    return f"## You asked · {when(entry.at)}\n\n{quoted}"


def _reply(entry: Reply) -> str:
    who = prose(entry.model) or "the model"
    lines = [f"**{who}**" + (" *(the reply stopped before its end)*" if entry.cut else "")]
    lines.append(reply_markdown(entry.text))
    for call in entry.tool_calls:
        lines.append(f"tool call {code_span(call.name)}\n\n{code_block(call.arguments, 'json')}")
    return "\n\n".join(line for line in lines if line)


def reply_markdown(text: str) -> str:
    """A reply's own Markdown, kept readable but unable to act (see the module docstring)."""
    out = ""
    previous = ""
    for block in reply_blocks(text):
        if block.kind == "code":
            rendered = code_block(block.text.rstrip("\n"), block.lang)
        elif block.kind == "command":
            rendered = code_span(block.text.strip())
        else:
            rendered = prose(block.text)
        if out:
            out += "\n" if block.kind == previous and block.kind in GROUPED else "\n\n"
        out += rendered
        previous = block.kind
    return out


def _command(entry: Command) -> str:
    body = f"$ {entry.command}\n{entry.output.text}".rstrip("\n")
    parts = [f"*{prose(command_facts(entry))}*", code_block(body, "console")]
    if entry.output.omitted_lines:
        parts.append(_omitted(entry.output))
    if entry.notice:
        parts.append(f"*aish: {prose(entry.notice)}*")
    return "\n\n".join(parts)


def _tool_result(entry: ToolResult) -> str:
    what = "tool error" if entry.is_error else "tool result"
    parts = [f"*{what} of {code_span(entry.name)}*", code_block(entry.text.text, "text")]
    if entry.text.omitted_lines:
        parts.append(_omitted(entry.text))
    return "\n\n".join(parts)


def _decision(entry: Decision) -> str:
    line = prose(decision_line(entry))
    if entry.halted:
        line = "**" + line.replace("HALT", "HALT**", 1)
    return f"> {line}\n>\n> {code_span(entry.action)}"


def _description(entry: Description) -> str:
    said = reply_markdown(entry.text)
    return f"*what {code_span(entry.command)} does, as the model said:*\n\n{said}"


def _norris_started(entry: NorrisStarted) -> str:
    facts = norris_start_line(entry)
    return f"## Norris: {prose(entry.goal)}" + (f"\n\n*{prose(facts)}*" if facts else "")


def _norris_step(entry: NorrisStep) -> str:
    return f"### Step {entry.number}"


def _norris_ended(entry: NorrisEnded) -> str:
    return f"**{prose(norris_end_line(entry))}**"


def _notice(entry: Notice) -> str:
    if entry.kind == "meta":
        return f"*you typed* {code_span(entry.text.text)}"
    label = "aish" if entry.kind != "note" else "aish told the model"
    if "\n" not in entry.text.text and not entry.text.omitted_lines:
        return f"*{label}: {prose(entry.text.text)}*"
    parts = [f"*{label}:*", code_block(entry.text.text, "text")]
    if entry.text.omitted_lines:
        parts.append(_omitted(entry.text))
    return "\n\n".join(parts)


def _costs(document: SessionDocument) -> str:
    rows = list(document.costs) + ([document.total] if document.total is not None else [])
    lines = [
        "## Costs",
        "",
        "| model | category | calls | tokens in | tokens out | cost |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    lines += [_cost_line(row) for row in rows]
    return "\n".join(lines)


def _cost_line(row: CostRow) -> str:
    cells = [row.model, row.category, f"{row.calls:,}", f"{row.tokens_in:,}"]
    cells += [f"{row.tokens_out:,}", row.dollars]
    return "| " + " | ".join(prose(cell).replace("|", "\\|") for cell in cells) + " |"


def _omitted(text: Bounded) -> str:
    return f"*… {text.omitted_lines:,} lines left out of the middle*"


_RENDERERS: dict[type, Callable[[Any], str]] = {
    Question: _question,
    Reply: _reply,
    Command: _command,
    ToolResult: _tool_result,
    Decision: _decision,
    Description: _description,
    NorrisStarted: _norris_started,
    NorrisStep: _norris_step,
    NorrisEnded: _norris_ended,
    Notice: _notice,
}


def prose(text: str) -> str:
    """Markdown text with its raw HTML and images made inert, outside its code spans."""
    out: list[str] = []
    position = 0
    for span in _CODE_SPAN.finditer(text):
        out.append(_inert(text[position : span.start()]))
        out.append(span.group())
        position = span.end()
    out.append(_inert(text[position:]))
    return "".join(out)


def _inert(text: str) -> str:
    return text.replace("<", "&lt;").replace("![", "!\\[")


def code_span(text: str) -> str:
    """`text` as inline code, whatever backticks it holds (one line: breaks become spaces)."""
    text = text.replace("\n", " ")
    if not text:
        return "` `"
    fence = "`" * (_longest_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or text.startswith(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: str, lang: str = "") -> str:
    """`text` fenced by more backticks than any run inside it, so nothing in it ends the
    block. The info string keeps only a plain language name."""
    fence = "`" * max(3, _longest_run(text) + 1)
    lang = lang if re.fullmatch(r"[\w+.#-]{1,30}", lang) else ""
    return f"{fence}{lang}\n{text}\n{fence}"


def _longest_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)
