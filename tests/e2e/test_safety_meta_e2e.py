"""`:safety` in the real REPL: a verdict is shown, nothing runs, the model is not asked."""

from __future__ import annotations

from pathlib import Path

import pexpect

from ..conftest import ServeFn
from .conftest import AishTerminal, spawn_aish


def test_safety_check_and_rules_run_nothing(
    serve: ServeFn, aish_home: Path, terminals: list[AishTerminal], tmp_path: Path
) -> None:
    server = serve({"rules": [], "default": {"text": "ok"}})
    config = (
        f'default_model = "local"\n[models.local]\nendpoint = "{server.url}/v1"\n'
        'model = "testllm"\n'
        '[safety]\ndestructive = ["make deploy*"]\nallow = ["make test"]\n'
    )
    victim = tmp_path / "keep-me"
    victim.write_text("still here")
    aish = spawn_aish(aish_home, config=config)
    terminals.append(aish)
    aish.wait_prompt()

    shown = aish.run(f":safety check rm -f {victim}")
    assert "destructive (nothing was run)" in shown
    assert "deletes files" in shown
    assert victim.read_text() == "still here"
    assert "safe (nothing was run)" in aish.run(":safety check ls -la | wc -l")
    assert "deletes files" in aish.run(":safety rules")
    assert "usage: :safety check <command>" in aish.run(":safety")
    # The user's own rules from the config are part of the verdict and of the listing.
    assert "your rule `make deploy*`" in aish.run(":safety check make deploy-prod")
    assert "safe (nothing was run)" in aish.run(":safety check make test")
    assert "make deploy*" in aish.run(":safety rules")
    assert ":safety check|why|rules" in aish.run(":help")

    assert server.requests == []
    aish.type_line(":quit")
    aish.child.expect(pexpect.EOF, timeout=10)
