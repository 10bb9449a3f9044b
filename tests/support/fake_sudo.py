"""A FAKE sudo for the tests of aish's askpass bridge, honestly named as one.

This machine has no sudo, and runs the tests as root, whom a real sudo never asks for a
password: a sudoers entry cannot make it ask. The fake keeps the password semantics of sudo
that aish relies on: with `-A` it runs `$SUDO_ASKPASS` with the prompt as its argument and
reads the password from its stdout (no password: it fails as sudo does); without `-A` it asks
on the terminal (`/dev/tty`) with echo off. Then it checks the password and runs the command.
aish answers only sudo's own askpass child: a test names the fake in `AISH_TRUSTED_SUDO` (in
aish's environment) so that it counts as sudo; it runs as root here, so its euid is 0.
"""

from __future__ import annotations

from pathlib import Path

_SCRIPT = """#!/bin/bash
# FAKE sudo for aish's tests (see tests/support/fake_sudo.py): not the real program.
askpass=0
while [ $# -gt 0 ]; do
    case "$1" in
        -A) askpass=1; shift ;;
        -k) shift ;;  # forget the cached credential: this fake never caches one
        -*) shift ;;
        *) break ;;
    esac
done
[ $# -eq 0 ] && exit 0
prompt="[sudo] password for $(id -un): "
if [ $askpass = 1 ]; then
    [ -n "$SUDO_ASKPASS" ] || { echo "sudo: no askpass program specified" >&2; exit 1; }
    pw=$("$SUDO_ASKPASS" "$prompt") || { echo "sudo: no password was provided" >&2; exit 1; }
else
    read -r -s -p "$prompt" pw </dev/tty; echo >/dev/tty
fi
[ "$pw" = "@PASSWORD@" ] || { echo "sudo: 1 incorrect password attempt" >&2; exit 1; }
exec "$@"
"""


def install_fake_sudo(directory: Path, password: str) -> Path:
    """Write the fake as `directory/sudo` (put `directory` first on PATH); returns it."""
    assert "'" not in password and '"' not in password
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / "sudo"
    program.write_text(_SCRIPT.replace("@PASSWORD@", password))
    program.chmod(0o755)
    return program
