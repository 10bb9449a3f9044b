"""Exporting a session with planted secrets, as a person does it: in the REPL with `:export`, and
afterwards with `aish export`. The files hold the placeholders and never a secret's value, the
HTML fetches and runs nothing, and a `<script>` a command printed is text in both."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pexpect
from markdown_it import MarkdownIt

from aish.safety.secrets.scrubber import SecretVault, sensitive_environment

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish

TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAa"[:36]  # found by its shape
PASSWORD = "Xk29fLq8ZpW3vR7tQ"  # shaped like nothing: known only from the environment
PLANTED = {"GITHUB_TOKEN": TOKEN, "DEPLOY_PASSWORD": PASSWORD}
SCRIPT = "<script>alert(1)</script>"


def _config(url: str) -> str:
    # A "cloud" preset that is really the local test server: it scrubs, and is priced.
    return (
        'default_model = "cloud"\n[models.cloud]\n'
        f'endpoint = "{url}/v1"\nmodel = "testllm"\nmax_retries = 0\n'
        'secrets = "scrub"\nprice = { input = 1000.0, output = 1000.0 }\n'
        '[norris]\nsandbox = "off"\n'
    )


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _assert_safe_html(page: str) -> None:
    parser = _Tags()
    parser.feed(page)
    names = {tag for tag, _ in parser.tags}
    assert not names & {"script", "img", "link", "iframe", "a", "object", "embed", "base"}
    for tag, attrs in parser.tags:
        assert not {"src", "href", "action"} & set(attrs), tag
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "http://" not in page.split("<body>")[0] and "url(" not in page


def _assert_no_secret(text: str) -> None:
    assert TOKEN not in text and PASSWORD not in text
    assert TOKEN[4:12] not in text and PASSWORD[:8] not in text  # nor a part of one


def test_exports_hold_placeholders_only(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal]
) -> None:
    vault = SecretVault()
    vault.learn(sensitive_environment(PLANTED))
    placeholder = vault.scrub(TOKEN)
    server = serve(
        {
            "rules": [
                {
                    "when": {},
                    "replies": [
                        {"text": f"Check it with:\nCMD: echo tok={placeholder}"},
                        {"text": "First this.\nCMD: rm -rf build"},
                        {"text": "GOAL: complete"},
                    ],
                }
            ]
        }
    )
    work = aish_home / "work"
    (work / "build").mkdir()
    aish = spawn_aish(aish_home, config=_config(server.url), extra_env=PLANTED)
    terminals.append(aish)
    aish.wait_prompt()
    # The secrets in the user's own command line and in what commands printed.
    assert PASSWORD in aish.run("echo $DEPLOY_PASSWORD $GITHUB_TOKEN")
    assert SCRIPT in aish.run(f"printf '%s\\n' '{SCRIPT}' 'pw={PASSWORD}'")
    # In the user's question, and in the output of the model's command run with the value.
    aish.type_line(f"?is my token {TOKEN} still valid?")
    aish.expect(r"\[v\]iew", timeout=30)
    aish.child.send("y")
    assert f"tok={TOKEN}" in aish.wait_prompt(timeout=30)
    # A Norris run with a HALT, answered with skip.
    aish.type_line(":norris tidy up")
    aish.expect("NORRIS HALT", timeout=30)
    aish.expect(r"\[a\]bort")
    aish.child.send("s")
    aish.expect("norris done", timeout=30)
    aish.wait_prompt(timeout=30)
    assert TOKEN not in str(server.requests) and PASSWORD not in str(server.requests)

    said = aish.run(":export md")
    (markdown_file,) = work.glob("aish-session-*.md")
    assert f"session exported to {markdown_file}" in said and "placeholders" in said
    said = aish.run(":export html mine.html")
    assert f"session exported to {work / 'mine.html'}" in said
    assert "exists" in aish.run(":export html mine.html")  # never replaced
    assert "usage: :export md|html [FILE]" in aish.run(":export pdf")
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=20)

    env = {
        "HOME": str(aish_home),
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(aish_home / ".config"),
        "XDG_STATE_HOME": str(aish_home / ".state"),
        "XDG_DATA_HOME": str(aish_home / ".data"),
        **PLANTED,
    }
    done = subprocess.run(
        [sys.executable, "-m", "aish", "export", "--format", "html"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (cli_file,) = work.glob("aish-session-*.html")
    assert done.stdout.strip() == f"{cli_file} (secrets replaced by placeholders)"

    markdown = markdown_file.read_text()
    for text in (markdown, (work / "mine.html").read_text(), cli_file.read_text()):
        _assert_no_secret(text)
        assert placeholder in text and "AISH_SECRET_ENV_DEPLOY_PASSWORD_1" in text
        assert "rm -rf build" in text and "HALT" in text and "skipped: not run" in text
        assert "is my token" in text and "exit 0" in text and "Norris done" in text
        assert re.search(r"\$\d", text)  # the costs
    for page in ((work / "mine.html").read_text(), cli_file.read_text()):
        _assert_safe_html(page)
    tokens = MarkdownIt("commonmark").parse(markdown)
    assert not [t for t in tokens if t.type == "html_block"]
    assert any(SCRIPT in t.content for t in tokens if t.type == "fence")
