"""Placeholders in proposed commands: which are sound, and the values put back, quoted so
that the shell reads each as the one word it stood for."""

from __future__ import annotations

import subprocess

import pytest

from aish.agent.placeholders import command_with_values, problems, text_with_values
from aish.safety.secrets.scrubber import SecretVault

TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbAa"[:36]
AWKWARD = "p@ss;w'o\"rd $HOME `id`"


@pytest.fixture
def vault() -> SecretVault:
    vault = SecretVault()
    vault.learn({TOKEN: "GITHUB_TOKEN", AWKWARD: "PASSWORD"})
    vault.scrub(f"{TOKEN} {AWKWARD}")
    return vault


def _name(vault: SecretVault, value: str) -> str:
    return vault.scrub(value)


def test_sound_placeholders_have_no_problems(vault: SecretVault) -> None:
    name = _name(vault, TOKEN)
    for text in (f"echo {name}", f"echo ${name}", f'echo "${{{name}}}"', f"--token={name}"):
        assert problems(text, vault) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "echo AISH_SECRET_GITHUB_TOKEN",  # no number
        "echo AISH_SECRET_GITHUB_TOKEN_9",  # never handed out
        "echo AISH_SECRET_github_token_1",  # mangled case
        "echo AISH_SECRET_GITHUB_TOKEN_1x",  # a tail
        "mysql -pAISH_SECRET_GITHUB_TOKEN_1",  # glued to a flag
    ],
)
def test_mangled_or_invented_placeholders_are_problems(vault: SecretVault, text: str) -> None:
    assert problems(text, vault)


def test_dollar_forms_are_replaced_whole(vault: SecretVault) -> None:
    name = _name(vault, TOKEN)
    assert command_with_values(f"echo ${name}", vault) == f"echo {TOKEN}"
    assert command_with_values(f'echo "Bearer ${{{name}}}"', vault) == f'echo "Bearer {TOKEN}"'
    assert text_with_values(f"token ${{{name}}}", vault) == f"token {TOKEN}"


@pytest.mark.parametrize(
    "template", ["printf '%s\\n' {p}", "printf '%s\\n' \"{p}\"", "printf '%s\\n' '{p}'"]
)
def test_a_value_stays_one_word_wherever_it_stands(vault: SecretVault, template: str) -> None:
    command = command_with_values(template.format(p=_name(vault, AWKWARD)), vault)
    ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True)
    assert ran.stdout == AWKWARD + "\n"


def test_unsound_placeholders_are_left_as_they_are(vault: SecretVault) -> None:
    assert command_with_values("echo AISH_SECRET_X_9", vault) == "echo AISH_SECRET_X_9"
