"""A `SessionDocument` as one self-contained HTML page: inline CSS, no script, nothing fetched.

Every text of the session is escaped (`html.escape`, quotes included) before it is placed, in
element content only — never in an attribute, a URL or the style sheet. A reply's Markdown is
not interpreted beyond its code blocks (shown as code) and its prose (shown as written, line
breaks kept): no link, image or markup of the model's becomes a live one. The page's Content
Security Policy forbids scripts and every load, so even a mistake here could not fetch or run
anything.
"""

from __future__ import annotations

from html import escape

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

__all__ = ["render_html"]

_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1d1f21; background: #fff; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .4rem; border-top: 1px solid #ddd; padding-top: 1rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .3rem; color: #555; }
.facts, .meta { color: #666; font-size: .9rem; }
.secrets { background: #eef6ee; border-left: 4px solid #5a5; padding: .4rem .8rem; }
.question { background: #eef3fb; border-left: 4px solid #48c; padding: .5rem .8rem;
            white-space: pre-wrap; }
.reply { margin: .8rem 0; }
.who { font-weight: bold; }
.prose { white-space: pre-wrap; margin: .4rem 0; }
pre { background: #f5f5f5; border: 1px solid #e0e0e0; padding: .6rem; overflow-x: auto;
      white-space: pre-wrap; word-break: break-word; font: 13px/1.4 ui-monospace, monospace; }
code { font-family: ui-monospace, monospace; }
.failed { border-left: 4px solid #c44; }
.decision { border-left: 4px solid #c90; padding: .3rem .8rem; background: #fff8e6; }
.halt { border-left-color: #c22; background: #fdecec; }
.halt .what { color: #b00; font-weight: bold; }
.notice { color: #555; font-style: italic; }
.norris-end { font-weight: bold; }
table { border-collapse: collapse; }
td, th { border: 1px solid #ddd; padding: .2rem .6rem; }
td.n { text-align: right; }
"""


def render_html(document: SessionDocument) -> str:
    heading = document.heading
    title = f"aish session {heading.label}"
    body = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="facts">{escape(" · ".join(heading_facts(heading)))}</p>',
    ]
    if document.scrubbed:
        form = escape(PLACEHOLDER_FORM)
        line = escape(placeholder_line(True)).replace(form, f"<code>{form}</code>")
        body.append(f'<p class="secrets">{line}</p>')
    else:
        body.append(f'<p class="facts">{escape(placeholder_line(False))}</p>')
    body += [_entry(entry) for entry in document.entries]
    if document.costs or document.total is not None:
        body.append(_costs(document))
    body.append(f'<p class="meta">exported by aish {escape(__version__)}</p>')
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _entry(entry: Entry) -> str:
    if isinstance(entry, Question):
        return (
            f'<h2>You asked <span class="meta">· {escape(when(entry.at))}</span></h2>\n'
            f'<div class="question">{escape(entry.text)}</div>'
        )
    if isinstance(entry, Reply):
        return _reply(entry)
    if isinstance(entry, Command):
        failed = " failed" if entry.exit_status != 0 else ""
        body = f"$ {entry.command}\n{entry.output.text}".rstrip("\n")
        return (
            f'<p class="meta">{escape(command_facts(entry))}</p>\n'
            f'<pre class="command{failed}"><code>{escape(body)}</code></pre>'
            + _omitted(entry.output)
            + (f'\n<p class="notice">aish: {escape(entry.notice)}</p>' if entry.notice else "")
        )
    if isinstance(entry, ToolResult):
        what = "tool error" if entry.is_error else "tool result"
        return (
            f'<p class="meta">{what} of <code>{escape(entry.name)}</code></p>\n'
            f"<pre>{escape(entry.text.text)}</pre>" + _omitted(entry.text)
        )
    if isinstance(entry, Decision):
        return _decision(entry)
    if isinstance(entry, Description):
        return (
            f'<p class="meta">what <code>{escape(entry.command)}</code> does, as the model '
            f"said:</p>\n{_reply_text(entry.text)}"
        )
    if isinstance(entry, NorrisStarted):
        facts = norris_start_line(entry)
        return f"<h2>Norris: {escape(entry.goal)}</h2>" + (
            f'\n<p class="facts">{escape(facts)}</p>' if facts else ""
        )
    if isinstance(entry, NorrisStep):
        return f"<h3>Step {entry.number}</h3>"
    if isinstance(entry, NorrisEnded):
        return f'<p class="norris-end">{escape(norris_end_line(entry))}</p>'
    return _notice(entry)


def _reply(entry: Reply) -> str:
    who = escape(entry.model or "the model")
    cut = ' <span class="meta">(the reply stopped before its end)</span>' if entry.cut else ""
    parts = [f'<div class="reply">\n<div class="who">{who}{cut}</div>', _reply_text(entry.text)]
    for call in entry.tool_calls:
        parts.append(
            f'<p class="meta">tool call <code>{escape(call.name)}</code></p>\n'
            f"<pre>{escape(call.arguments)}</pre>"
        )
    parts.append("</div>")
    return "\n".join(parts)


def _reply_text(text: str) -> str:
    """A reply's code blocks as code, its prose as written (line breaks kept)."""
    out: list[str] = []
    prose: list[str] = []
    previous = ""
    for block in reply_blocks(text):
        if block.kind == "code":
            _flush(prose, out)
            out.append(f"<pre><code>{escape(block.text.rstrip(chr(10)))}</code></pre>")
        else:
            if prose and not (block.kind == previous and block.kind in GROUPED):
                prose.append("")  # a blank line between blocks, as the reply had
            prose.append(block.text)
        previous = block.kind
    _flush(prose, out)
    return "\n".join(out)


def _flush(prose: list[str], out: list[str]) -> None:
    if prose:
        out.append(f'<div class="prose">{escape(chr(10).join(prose))}</div>')
        prose.clear()


def _decision(entry: Decision) -> str:
    line = decision_line(entry)
    halt = " halt" if entry.halted else ""
    what, _, rest = line.partition(" ")
    return (
        f'<div class="decision{halt}"><span class="what">{escape(what)}</span> {escape(rest)}'
        f"<pre><code>{escape(entry.action)}</code></pre></div>"
    )


def _notice(entry: Notice) -> str:
    if entry.kind == "meta":
        return f'<p class="notice">you typed <code>{escape(entry.text.text)}</code></p>'
    label = "aish told the model" if entry.kind == "note" else "aish"
    if "\n" not in entry.text.text:
        return f'<p class="notice">{label}: {escape(entry.text.text)}</p>'
    return f'<p class="notice">{label}:</p>\n<pre>{escape(entry.text.text)}</pre>' + _omitted(
        entry.text
    )


def _costs(document: SessionDocument) -> str:
    rows = list(document.costs) + ([document.total] if document.total is not None else [])
    head = "".join(
        f"<th>{title}</th>"
        for title in ("model", "category", "calls", "tokens in", "tokens out", "cost")
    )
    return (
        f"<h2>Costs</h2>\n<table>\n<tr>{head}</tr>\n"
        + "\n".join(_cost_row(row) for row in rows)
        + "\n</table>"
    )


def _cost_row(row: CostRow) -> str:
    numbers = (f"{row.calls:,}", f"{row.tokens_in:,}", f"{row.tokens_out:,}", row.dollars)
    cells = [f"<td>{escape(row.model)}</td>", f"<td>{escape(row.category)}</td>"]
    cells += [f'<td class="n">{escape(value)}</td>' for value in numbers]
    return f"<tr>{''.join(cells)}</tr>"


def _omitted(text: Bounded) -> str:
    if not text.omitted_lines:
        return ""
    return f'\n<p class="meta">… {text.omitted_lines:,} lines left out of the middle</p>'
