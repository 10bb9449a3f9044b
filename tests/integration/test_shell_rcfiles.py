"""The user's own rc files under aish: they are read, their PROMPT_COMMAND and aliases keep
working, and aish's hooks survive what the user does to PROMPT_COMMAND and PS1. zsh too."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from tests.support.shell_harness import TIMEOUT_S, open_shell

needs_zsh = pytest.mark.skipif(
    shutil.which("zsh") is None, reason="zsh is not installed (`make test` installs it)"
)


def write_home(tmp_path: Path, name: str, text: str) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / name).write_text(text)
    return home


async def test_user_bashrc_is_sourced_with_its_prompt_command_and_aliases(tmp_path: Path) -> None:
    home = write_home(
        tmp_path,
        ".bashrc",
        'echo "hello from bashrc"\n'
        "alias greet='echo alias-from-rc'\n"
        'PROMPT_COMMAND=\'echo "$?" >> "$HOME/prompts.log"\'\n',
    )
    async with open_shell(tmp_path, home=home) as sh:
        await sh.background.wait_for(b"hello from bashrc")
        assert (await sh.run("greet")).output.text == "alias-from-rc"
        await sh.run("false")
        await sh.run("(exit 6)")
        # The user's hook ran at every prompt, after aish's, and still saw the command's $?.
        assert (home / "prompts.log").read_text().split() == ["0", "0", "1", "6"]


async def test_prompt_command_array_form_is_kept(tmp_path: Path) -> None:
    home = write_home(
        tmp_path,
        ".bashrc",
        "PROMPT_COMMAND=('echo -n a >> \"$HOME/pc.log\"' 'echo -n b >> \"$HOME/pc.log\"')\n",
    )
    async with open_shell(tmp_path, home=home) as sh:
        await sh.run("true")
        assert (home / "pc.log").read_text() == "abab"
        declared = await sh.run("declare -p PROMPT_COMMAND")
        assert declared.output.text.startswith('declare -a PROMPT_COMMAND=([0]="__aish_precmd"')
        assert declared.output.text.endswith('[3]="__aish_prompt")')


async def test_hooks_survive_a_command_that_replaces_prompt_command(tmp_path: Path) -> None:
    async with open_shell(tmp_path) as sh:
        result = await sh.run("PROMPT_COMMAND='true'; false")
        # Done was seen through the prompt's own $?; the hook is put back for the next one.
        assert result.exit_status == 1
        assert result.notice is not None and "PROMPT_COMMAND" in result.notice
        # And the next command's output is its own, shown as it comes (PS0 intact).
        seen = bytearray()
        again = await sh.run("echo back; (exit 3)", on_output=seen.extend)
        assert (again.exit_status, again.notice, again.output.text) == (3, None, "back")
        assert bytes(seen) == b"back\r\n"
        pc = (await sh.run('printf "%s" "$PROMPT_COMMAND" | tr "\\n" " "')).output.text
        assert pc == "__aish_precmd true __aish_prompt"


async def test_hooks_go_back_first_after_a_prepend(tmp_path: Path) -> None:
    async with open_shell(tmp_path) as sh:
        await sh.run('PROMPT_COMMAND="(exit 9); $PROMPT_COMMAND"')
        assert (await sh.run("false")).exit_status == 1
        assert (await sh.run("true")).exit_status == 0
        pc = (await sh.run('printf "%s" "$PROMPT_COMMAND" | tr "\\n" " "')).output.text
        assert pc == "__aish_precmd (exit 9); : __aish_prompt"


async def test_resourcing_bashrc_that_sets_ps1_keeps_working(tmp_path: Path) -> None:
    home = write_home(tmp_path, ".bashrc", "PS1='\\u@\\h:\\w\\$ '\nPS2='> '\n")
    async with open_shell(tmp_path, home=home) as sh:
        assert (await sh.run("source ~/.bashrc")).exit_status == 0
        assert (await sh.run("echo still")).output.text == "still"


async def test_vi_mode_user(tmp_path: Path) -> None:
    home = write_home(tmp_path, ".bashrc", "set -o vi\n")
    async with open_shell(tmp_path, home=home) as sh:
        assert (await sh.run("echo vi-ok")).output.text == "vi-ok"
        # Typeahead that left readline in vi command mode is cleared too.
        task = asyncio.ensure_future(sh.session.run("sleep 0.3"))
        await sh.until_job_in_foreground()
        await sh.session.send(b"junk\x1b")
        await asyncio.wait_for(task, TIMEOUT_S)
        assert (await sh.run("echo after-vi")).output.text == "after-vi"


@pytest.mark.parametrize(
    ("shell", "rc", "strict"),
    [
        ("bash", ".bashrc", "set -euo pipefail\n"),
        pytest.param("zsh", ".zshrc", "setopt nounset errexit\n", marks=needs_zsh),
    ],
)
async def test_strict_mode_in_the_users_rc(
    tmp_path: Path, shell: str, rc: str, strict: str
) -> None:
    home = write_home(tmp_path, rc, strict)
    async with open_shell(tmp_path, shell=shell, home=home) as sh:
        assert (await sh.run("echo $((1 + 1))")).output.text == "2"
        assert await sh.session.known_names()
        # errexit is the user's choice: a failing command ends that shell; aish starts another.
        failed = await sh.run("false")
        assert failed.exit_status == 1 and failed.notice is not None
        assert (await sh.run("echo on")).output.text == "on"
        assert b"unbound" not in sh.background.data and b"not set" not in sh.background.data


@needs_zsh
async def test_zsh_state_exit_codes_and_user_zshrc(tmp_path: Path) -> None:
    home = write_home(
        tmp_path,
        ".zshrc",
        "alias greet='echo zsh-alias'\n"
        'precmd() { echo "$?" >> "$HOME/precmd.log" }\n'
        "setopt interactive_comments\n",
    )
    async with open_shell(tmp_path, shell="zsh", home=home) as sh:
        assert sh.session.kind == "zsh"
        assert (await sh.run("greet")).output.text == "zsh-alias"
        (tmp_path / "work" / "d").mkdir()
        await sh.run('cd d && export Z=5 && f() { echo "f:$1" }')
        result = await sh.run("pwd; echo $Z; f x")
        assert result.output.text.splitlines() == [str(tmp_path / "work" / "d"), "5", "f:x"]
        assert sh.session.cwd == str(tmp_path / "work" / "d")
        assert (await sh.run("false")).exit_status == 1
        assert (await sh.run("(exit 7)")).exit_status == 7
        assert (await sh.run("for i in 1 2\ndo echo $i\ndone")).output.text == "1\n2"
        assert (await sh.run("echo $?  # a comment")).output.text == "0"
        assert (home / "precmd.log").read_text().split()[-4:] == ["1", "7", "0", "0"]
        names = await sh.session.known_names()
        assert "greet" in names.aliases and "f" in names.functions and "cd" in names.builtins


@needs_zsh
async def test_zsh_ctrl_c_ctrl_z_and_respawn(tmp_path: Path) -> None:
    async with open_shell(tmp_path, shell="zsh") as sh:
        task = asyncio.ensure_future(sh.session.run("sleep 10"))
        await sh.until_job_in_foreground()
        await sh.session.send(b"\x03")
        assert (await asyncio.wait_for(task, TIMEOUT_S)).exit_status == 130
        task = asyncio.ensure_future(sh.session.run("sleep 10"))
        await sh.until_job_in_foreground()
        await sh.session.send(b"\x1a")
        assert (await asyncio.wait_for(task, TIMEOUT_S)).exit_status == 148
        await sh.run("kill -9 %1")
        assert (await sh.run("echo 'open")).notice is not None
        old_pid = sh.session.pid
        result = await sh.run("exit 3")
        assert result.exit_status == 3 and result.notice is not None
        assert sh.session.pid != old_pid and sh.session.kind == "zsh"
        assert (await sh.run("echo back")).output.text == "back"


@needs_zsh
async def test_zsh_user_zdotdir_is_honoured(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = tmp_path / "zconfig"
    config.mkdir(parents=True)
    home.mkdir()
    (config / ".zshrc").write_text("alias from-zdotdir='echo zdotdir-ok'\n")
    from tests.support.shell_harness import clean_env

    env = {**clean_env(home, "zsh"), "ZDOTDIR": str(config)}
    async with open_shell(tmp_path, shell="zsh", env=env) as sh:
        assert (await sh.run("from-zdotdir")).output.text == "zdotdir-ok"
        assert (await sh.run('echo "$ZDOTDIR"')).output.text == str(config)


async def test_the_shell_reports_its_editing_keys_as_its_rc_files_and_commands_set_them(
    tmp_path: Path,
) -> None:
    # inputrc's editing-mode is readline's, not in SHELLOPTS: the shell must still say vi.
    home = write_home(tmp_path, ".inputrc", "set editing-mode vi\n")
    async with open_shell(tmp_path, home=home) as sh:
        assert sh.session.edit_keys == "vi"
        await sh.run("set -o emacs")
        assert sh.session.edit_keys == "emacs"
        await sh.run("set -o vi")
        assert sh.session.edit_keys == "vi"
    plain = tmp_path / "plain"
    plain.mkdir()
    async with open_shell(plain) as sh:
        assert sh.session.edit_keys == "emacs"


@needs_zsh
async def test_zsh_reports_bindkey_v_as_vi_keys(tmp_path: Path) -> None:
    home = write_home(tmp_path, ".zshrc", "bindkey -v\n")
    async with open_shell(tmp_path, shell="zsh", home=home) as sh:
        assert sh.session.edit_keys == "vi"
        await sh.run("bindkey -e")
        assert sh.session.edit_keys == "emacs"
