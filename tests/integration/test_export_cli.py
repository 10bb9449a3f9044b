"""`aish export` as a real process against a real store in an XDG home, filled by the API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from aish.store import Store, default_store_path

SECRET = "Xk29fLq8ZpW3vR7tQ"
CLOUD = (
    'default_model = "cloud"\n[models.cloud]\nendpoint = "https://api.example.com/v1"\n'
    'model = "x"\n'
)


def _aish(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aish", "export", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        check=False,
    )


def _config(home: Path, text: str) -> None:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "aish"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def _session(name: str | None = "deploy") -> int:
    with Store.open(default_store_path()) as store:
        info = store.start_session(name=name, cwd="/srv", model="cloud")
        store.append_turn(info.id, "command", {"command": f"login --password {SECRET}",
                                               "exit_status": 0, "output": f"hello {SECRET}",
                                               "source": "user"})  # fmt: skip
        store.append_turn(info.id, "user", {"text": "did it work?"})
        store.append_turn(info.id, "assistant", {"text": "It did.", "model": "cloud"})
        return info.id


def test_an_unknown_session_is_one_line_and_a_failure(xdg_home: Path, tmp_path: Path) -> None:
    _session()
    done = _aish(tmp_path, "--session", "nope", "--format", "html")
    assert done.returncode == 2
    assert done.stderr == "aish: no session named 'nope' (`:sessions` lists them)\n"
    assert done.stdout == "" and not list(tmp_path.glob("aish-*"))


def test_a_store_without_sessions_has_nothing_to_export(xdg_home: Path, tmp_path: Path) -> None:
    done = _aish(tmp_path)
    assert done.returncode == 1 and done.stderr == "aish: no session to export yet\n"


def test_a_saved_session_is_exported_scrubbed_to_a_new_file(xdg_home: Path, tmp_path: Path) -> None:
    _config(xdg_home, CLOUD)  # a preset off this machine: it scrubs
    _session()
    env = {"DEPLOY_PASSWORD": SECRET}
    done = _aish(tmp_path, "--session", "deploy", "--format", "html", env=env)
    assert done.returncode == 0, done.stderr
    (written,) = tmp_path.glob("aish-deploy-*.html")
    assert done.stdout == f"{written} (secrets replaced by placeholders)\n"
    page = written.read_text()
    assert SECRET not in page and "AISH_SECRET_" in page and "It did." in page
    again = _aish(tmp_path, "--session", "deploy", "--format", "html", written.name, env=env)
    assert again.returncode == 1 and "exists" in again.stderr
    assert written.read_text() == page


def test_the_last_session_by_number_to_stdout(xdg_home: Path, tmp_path: Path) -> None:
    _config(xdg_home, CLOUD)
    number = _session(name=None)
    done = _aish(tmp_path, "--session", f"#{number}", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"# aish session #{number}\n")
    # Not in the environment here, and shaped like nothing: found after `--password`.
    assert SECRET not in done.stdout and "AISH_SECRET_PASSWORD_1" in done.stdout
    assert _aish(tmp_path, "-").stdout == done.stdout  # the last session is this one
