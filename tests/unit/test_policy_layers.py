"""The permission policy in layers: denials and asks add up across the system policy file, the
user's file and a trusted project file; a project cannot drop or loosen what is denied above
it; the system file holds only policy keys; a command that leaves the project keeps its
denials. Real files, the real loader."""

from __future__ import annotations

from pathlib import Path

from aish.agent import gate
from aish.agent.project import DirectoryPolicies
from aish.config import load_config
from aish.config.loader import LoadedConfig
from aish.config.project import Trusted, digest_of
from aish.config.project_scope import ConfigScope
from aish.safety.rules.policy import rule_on

USER = """\
[safety]
allow = ["make test", "git push"]
deny = ["rm"]
ask = ["npm publish"]
"""

SYSTEM = """\
default_model = "x"
[safety]
deny = ["git push", "kubectl delete *"]
confirm_cmd = false
[[safety.rule]]
decision = "ask"
command = "terraform apply"
"""

PROJECT = """\
[safety]
deny = []
ask = ["ls"]
allow = ["frob"]
"""


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    user = tmp_path / "config.toml"
    user.write_text(USER)
    system = tmp_path / "policy.toml"
    system.write_text(SYSTEM)
    project = tmp_path / "repo"
    project.mkdir()
    (project / ".git").mkdir()
    (project / ".aish.toml").write_text(PROJECT)
    return user, system, project


def _load(
    user: Path, system: Path, cwd: Path | None = None, *, allows: bool = True
) -> LoadedConfig:
    """Load with the project file trusted as it is (with its allow rules when `allows`)."""
    raw = (cwd / ".aish.toml").read_bytes() if cwd is not None else b""
    return load_config(
        config_path=user,
        env={"AISH_SYSTEM_POLICY": str(system)},
        autodetect=False,
        cwd=cwd,
        trusted_digest=lambda path: Trusted(digest_of(raw), allows),
    )


def test_denials_and_asks_add_up_and_nothing_below_loosens(tmp_path: Path) -> None:
    user, system, project = _files(tmp_path)
    loaded = _load(user, system, project)
    safety = loaded.config.safety
    # The project's `deny = []` dropped nothing; its ask was added; its allow applies (the
    # user let it when trusting).
    assert safety.deny == ["git push", "kubectl delete *", "rm"]
    assert safety.ask == ["npm publish", "ls"]
    assert safety.allow == ["frob"]
    assert [r.patterns() for r in safety.rule] == [["terraform apply"]]
    rules = gate.Policy.from_config(loaded.config, "norris").user_rules
    # The user's allow cannot lift the system's deny.
    assert rule_on("git push", rules).decision == "deny"
    assert rule_on("terraform apply", rules).decision == "ask"
    assert rule_on("ls", rules).rule == "safety.ask `ls`"


def test_a_project_trusted_without_its_allow_rules_only_tightens(tmp_path: Path) -> None:
    user, system, project = _files(tmp_path)
    safety = _load(user, system, project, allows=False).config.safety
    assert safety.allow == ["make test", "git push"]  # the user's; the project's `frob` is out
    assert safety.ask == ["npm publish", "ls"] and "rm" in safety.deny


def test_the_system_file_holds_only_policy_keys(tmp_path: Path) -> None:
    user, system, _ = _files(tmp_path)
    loaded = _load(user, system)
    config = loaded.config
    assert config.default_model != "x" and config.safety.confirm_cmd is True
    warnings = loaded.warnings
    assert f"{system}: key default_model: ignored (a system policy holds [safety])" in warnings
    assert f"{system}: key safety.confirm_cmd: ignored (not a policy key)" in warnings


def test_no_system_file_is_no_warning(tmp_path: Path) -> None:
    user, _, _ = _files(tmp_path)
    loaded = _load(user, tmp_path / "absent.toml")
    assert loaded.warnings == []
    assert loaded.config.safety.deny == ["rm"]


def test_a_command_leaving_the_project_keeps_its_denials(tmp_path: Path) -> None:
    user, system, project = _files(tmp_path)
    raw = (project / ".aish.toml").read_bytes()

    def load(cwd: str | None) -> LoadedConfig:
        return load_config(
            config_path=user,
            env={"AISH_SYSTEM_POLICY": str(system)},
            autodetect=False,
            cwd=cwd,
            trusted_digest=lambda path: digest_of(raw),
        )

    scope = ConfigScope(load, lambda path: digest_of(raw), tmp_path)
    policies = DirectoryPolicies(scope, "norris", lambda: str(project))
    leaving = policies(gate.ProposedCommand("cd .. && ls"))
    # The project's ask rule still holds; its allow (a widening) does not.
    assert rule_on("cd .. && ls", leaving.user_rules).decision == "ask"
    assert "frob" not in leaving.user_rules.allow
    assert "rm" in leaving.user_rules.deny
