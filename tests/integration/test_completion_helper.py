"""The completion helper against a real bash: the rc file's specs answer as bash's Tab would,
in the cwd and with the variables it is given; a slow spec is given up within the bound and its
processes killed; the helper leaves no history. And the words aish cuts a line into are the
words bash itself hands a completion function (a parity check in a real interactive bash)."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pexpect
import pytest

from aish.completion_words import completion_line
from aish.shell.completion_helper import CompletionHelper, SpecAnswer

BASH = shutil.which("bash") or "/bin/bash"

RC = """\
echo "an rc file that talks"
_fruit() { COMPREPLY=($(compgen -W "apple apricot banana" -- "$2")); }
complete -F _fruit fruit
complete -W "alpha beta" greek
complete -o nospace -W "--name=" opts
_files() { compopt -o filenames; COMPREPLY=($(compgen -f -- "$2")); }
complete -F _files files
_args() {
  COMPREPLY=("cword=$COMP_CWORD" "line=$COMP_LINE" "point=$COMP_POINT" "one=$1" "three=$3")
}
complete -F _args args
_slow() { echo $BASHPID > "$HOME/slow-pid"; sleep 60; COMPREPLY=(late); }
complete -F _slow slow
_loader() { [[ $1 == lazy ]] && complete -W "loaded-later" lazy && return 124; }
complete -D -F _loader
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(RC)
    return home


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": os.environ["PATH"], "LANG": "C.UTF-8"}


@pytest.fixture
async def helper() -> AsyncIterator[CompletionHelper]:
    helper = CompletionHelper(BASH)
    yield helper
    await helper.close()


async def _spec(
    helper: CompletionHelper, text: str, cwd: Path, env: dict[str, str]
) -> SpecAnswer | None:
    return await helper.spec(completion_line(text, len(text)), cwd=str(cwd), env=env, timeout_s=10)


async def test_specs_from_the_rc_file(
    helper: CompletionHelper, home: Path, env: dict[str, str]
) -> None:
    answer = await _spec(helper, "fruit ap", home, env)
    assert answer is not None and answer.found and answer.matches == ("apple", "apricot")
    answer = await _spec(helper, "greek ", home, env)
    assert answer is not None and answer.matches == ("alpha", "beta")
    answer = await _spec(helper, "opts --n", home, env)
    assert answer is not None and answer.matches == ("--name=",) and "nospace" in answer.options
    answer = await _spec(helper, "args one tw", home, env)
    assert answer is not None
    assert answer.matches == ("cword=2", "line=args one tw", "point=11", "one=args", "three=one")
    # No spec yet: the default (-D) loader defines one and returns 124; the new spec answers.
    answer = await _spec(helper, "lazy l", home, env)
    assert answer is not None and answer.matches == ("loaded-later",)
    assert helper.starts == 1


async def test_files_come_from_the_cwd_given_each_time(
    helper: CompletionHelper, home: Path, env: dict[str, str], tmp_path: Path
) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"in-{name}.txt").write_text("")
    answer = await _spec(helper, "files in", tmp_path / "one", env)
    assert answer is not None and answer.matches == ("in-one.txt",)
    assert "filenames" in answer.options  # said by the function through compopt
    answer = await _spec(helper, "files in", tmp_path / "two", env)
    assert answer is not None and answer.matches == ("in-two.txt",)


async def test_variables_and_commands_follow_the_environment_given(
    helper: CompletionHelper, home: Path, env: dict[str, str], tmp_path: Path
) -> None:
    bin_dir = tmp_path / "venv-bin"
    bin_dir.mkdir()
    tool = bin_dir / "aish-only-tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert await helper.variables("AISH_SYNC", cwd=str(home), env=env, timeout_s=10) == []
    later = {**env, "AISH_SYNC_ONE": "1", "PATH": f"{bin_dir}:{env['PATH']}"}
    assert await helper.variables("AISH_SYNC", cwd=str(home), env=later, timeout_s=10) == [
        "AISH_SYNC_ONE"
    ]
    assert await helper.commands("aish-only", cwd=str(home), env=later, timeout_s=10) == [
        "aish-only-tool"
    ]
    assert await helper.variables("AISH_SYNC", cwd=str(home), env=env, timeout_s=10) == []
    assert await helper.commands("aish-only", cwd=str(home), env=env, timeout_s=10) == []


async def test_a_slow_spec_is_given_up_and_its_processes_killed(
    helper: CompletionHelper, home: Path, env: dict[str, str]
) -> None:
    began = time.monotonic()
    assert (
        await helper.spec(completion_line("slow x", 6), cwd=str(home), env=env, timeout_s=1) is None
    )
    waited = time.monotonic() - began
    pid = int((home / "slow-pid").read_text())
    assert waited < 30  # the bound, not the function's 60 s sleep
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    answer = await _spec(helper, "fruit b", home, env)  # a fresh helper answers the next one
    assert answer is not None and answer.matches == ("banana",) and helper.starts == 2


async def test_a_question_cancelled_midway_kills_the_helper(
    helper: CompletionHelper, home: Path, env: dict[str, str]
) -> None:
    task = asyncio.create_task(
        helper.spec(completion_line("slow x", 6), cwd=str(home), env=env, timeout_s=30)
    )
    while not (home / "slow-pid").exists() or not (home / "slow-pid").read_text().strip():
        await asyncio.sleep(0.05)
    pid = int((home / "slow-pid").read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_the_helper_leaves_no_history(
    helper: CompletionHelper, home: Path, env: dict[str, str]
) -> None:
    history = home / ".bash_history"
    history.write_text("ls -l\n")
    with_history = {**env, "HISTFILE": str(history)}
    (home / ".bashrc").write_text(f"HISTFILE={history}\nPROMPT_COMMAND='history -a'\n" + RC)
    await _spec(helper, "fruit a", home, with_history)
    await helper.variables("H", cwd=str(home), env=with_history, timeout_s=10)
    await helper.close()
    assert history.read_text() == "ls -l\n"


@pytest.mark.parametrize(
    "text",
    [
        "args --color=au",
        "args --color=",
        "FOO=1 args ch",
        "echo a; args ch",
        "args  ",
        "args checkout 'ma",
        'x | args "a b',
        "args a:b:c",
        "args a:=b",
        "args my\\ fi",
    ],
)
def test_words_are_the_words_bash_gives_a_completion_function(home: Path, text: str) -> None:
    dump = home / "dump"
    (home / "dump.rc").write_text(
        "PS1='ready> '\n"
        '_dump() { { printf \'%s\\n\' "${#COMP_WORDS[@]}" "${COMP_WORDS[@]}" "$COMP_CWORD" '
        f'"$COMP_LINE" "$COMP_POINT" "$1" "$2" "$3"; }} > {dump}; COMPREPLY=(); }}\n'
        "complete -F _dump args\n"
    )
    bash = pexpect.spawn(
        BASH,
        ["--noprofile", "--rcfile", str(home / "dump.rc"), "-i"],
        env={"HOME": str(home), "PATH": os.environ["PATH"], "TERM": "dumb"},
        encoding="utf-8",
        timeout=20,
    )
    try:
        bash.expect("ready> ")
        bash.send(text + "\t")
        deadline = time.monotonic() + 20
        while not dump.exists() or not dump.read_text().endswith("\n"):
            assert time.monotonic() < deadline, "bash never called the completion function"
            time.sleep(0.05)
    finally:
        bash.terminate(force=True)
    lines = dump.read_text().split("\n")
    count = int(lines[0])
    words, rest = tuple(lines[1 : 1 + count]), lines[1 + count :]
    cut = completion_line(text, len(text))
    assert (cut.words, cut.cword, cut.line, cut.point) == (
        words,
        int(rest[0]),
        rest[1],
        int(rest[2]),
    )
    assert (cut.command, cut.word, cut.previous) == (rest[3], rest[4], rest[5])
