"""`reads_secret`: which command lines read a sensitive variable, the environment, a key or
credentials file, or a secret store (issue 17, item 5), and which read none of them."""

from __future__ import annotations

import pytest

from aish.safety.secrets.reads import reads_secret, secret_file, sensitive_variable


@pytest.mark.parametrize(
    "command",
    [
        # sensitive variables, however they are spelled
        "printenv GITHUB_TOKEN",
        "printenv GITHUB_TOKEN | rev",
        "printenv -0 AWS_SECRET_ACCESS_KEY",
        "echo $GITHUB_TOKEN",
        'echo "$GITHUB_TOKEN" | base32',
        "echo ${GITHUB_TOKEN}",
        'echo "${OPENAI_API_KEY:0:20}"',
        "echo ${#DB_PASSWORD}",
        "printf '%s\\n' \"$NPM_TOKEN\" | xxd -p",
        "cat <<< $STRIPE_SECRET_KEY",
        "cat <<EOF\n$SLACK_BOT_TOKEN\nEOF",
        "x=$GITHUB_TOKEN; echo ${x} | rev",
        "python3 -c \"import os; print(os.environ['X'])\" $HF_TOKEN",
        "bash -c 'echo $GITHUB_TOKEN | fold -w4'",
        'sh -c "printenv PGPASSWORD"',
        "eval 'echo $ANTHROPIC_API_KEY'",
        "sudo -u root printenv GITHUB_TOKEN",
        "timeout 5 printenv GITHUB_TOKEN",
        "echo $DATABASE_URL",
        "echo ${!name}",
        "declare -p GITHUB_TOKEN",
        "typeset -p clientSecret",
        # the whole environment
        "env",
        "env | od -c",
        "env -0 | tr '\\0' '\\n'",
        "printenv",
        "printenv | sort",
        "set",
        "set | grep -i key",
        "export -p",
        "export",
        "declare -x",
        "declare -px",
        "declare",
        "typeset -x",
        "env FOO=1 printenv",
        "sudo env",
        "ps eww",
        "ps auxe",
        "cat /proc/self/environ",
        "tr '\\0' '\\n' < /proc/1/environ",
        "strings /proc/*/environ",
        # key and credentials files
        "cat ~/.ssh/id_rsa",
        "cat ~/.ssh/id_*",
        "cat $HOME/.ssh/id_ed25519",
        'cat "$HOME/.ssh/id_ecdsa"',
        "head -c 100 ~/.ssh/id_ed25519",
        "tail -n 3 /home/me/.ssh/id_rsa",
        "xxd ~/.ssh/id_rsa | head",
        "cat ~/.ssh/*",
        "tar cz ~/.ssh | base64",
        "cat .env",
        "cat ./.env.local",
        "cat .env.production | rev",
        "xxd .env",
        "echo $(< .env)",
        "x=$(< .env); echo $x",
        "cat 'config/.env'",
        "base64 < key.pem",
        "cat key.pem | rev",
        "cat server.key",
        "openssl rsa -in tls.key -text",
        "cat certs/*.pem",
        "cat ~/.aws/credentials",
        "grep -r . ~/.aws",
        "less ~/.netrc",
        "cat .pgpass",
        "cat ~/.docker/config.json",
        "cat ~/.kube/config",
        "kubectl config view --raw --kubeconfig ./kubeconfig.yaml",
        "cat ~/.git-credentials",
        "cat ~/.npmrc",
        "cat ~/.pypirc",
        "cat ~/.config/gh/hosts.yml",
        "cat secrets.yaml",
        "jq . service-account.json",
        "sudo cat /etc/shadow",
        "cat terraform.tfstate",
        "dd if=/home/me/.ssh/id_rsa bs=1 count=64",
        "cp ~/.ssh/id_rsa /dev/stdout",
        "find ~/.ssh -type f -exec cat {} +",
        "awk 1 .env",
        "sed -n 1,5p .env",
        "cut -c1-20 ~/.ssh/id_rsa",
        "od -c .pgpass",
        # secret stores
        "gpg --export-secret-keys -a",
        "gpg --armor --export-secret-subkeys me@example.com",
        "gh auth token",
        "gcloud auth print-access-token",
        "aws secretsmanager get-secret-value --secret-id prod/db",
        "aws configure get aws_secret_access_key",
        "kubectl get secret db -o yaml",
        "vault kv get secret/app",
        "pass show email/work",
        "security find-generic-password -s x -w",
        "git credential fill",
    ],
)
def test_reads_a_secret(command: str) -> None:
    reason = reads_secret(command)
    assert reason, command
    assert isinstance(reason, str) and len(reason) > 5


@pytest.mark.parametrize(
    "command",
    [
        "cat README.md",
        "echo $HOME",
        "echo $PATH $USER $SHELL",
        "printenv PATH",
        "printenv HOME LANG",
        "echo '$GITHUB_TOKEN'",
        "echo TOKEN_TTL_SECONDS",
        "echo $TOKEN_TTL_SECONDS",
        "echo $PASSWORD_STORE_DIR",
        "ls ~/.ssh",
        "ls -la ~/.aws",
        "stat ~/.ssh/id_rsa",
        "chmod 600 ~/.ssh/id_ed25519",
        "ssh -i ~/.ssh/id_ed25519 deploy@host uptime",
        "ssh-add ~/.ssh/id_ed25519",
        "sha256sum key.pem",
        "cat ~/.ssh/id_ed25519.pub",
        "cat ~/.ssh/known_hosts",
        "cat ~/.ssh/config",
        "cat .env.example",
        "cp .env.sample .env.template.bak",
        "cat environment.yml",
        "cat src/env.py",
        "grep -r password_reset src/",
        "env FOO=1 make test",
        "env -u LANG python3 app.py",
        "set -euo pipefail",
        "set -x",
        "export PATH=$HOME/bin:$PATH",
        "export EDITOR=vim",
        "declare -a items=(a b)",
        "declare -f myfunc",
        "local x=1",
        "ps aux",
        "ps -ef",
        "git log --oneline -5",
        "gpg --list-keys",
        "gpg --export -a me@example.com",
        "kubectl get pods",
        "aws s3 ls",
        "gh pr list",
        "pass ls",
        "cat /proc/cpuinfo",
        "cat keys.txt",
        "python3 manage.py runserver",
        "echo ${HOME}/.cache",
        "source .venv/bin/activate",
    ],
)
def test_reads_no_secret(command: str) -> None:
    assert reads_secret(command) is None, reads_secret(command)


def test_the_reason_names_what_is_read() -> None:
    assert "GITHUB_TOKEN" in (reads_secret("printenv GITHUB_TOKEN | rev") or "")
    assert "GITHUB_TOKEN" in (reads_secret('echo "$GITHUB_TOKEN"') or "")
    assert ".ssh/id_rsa" in (reads_secret("cat ~/.ssh/id_rsa") or "")
    assert "environment" in (reads_secret("env") or "")


@pytest.mark.parametrize(
    ("name", "sensitive"),
    [
        ("GITHUB_TOKEN", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("PGPASSWORD", True),
        ("DATABASE_URL", True),
        ("REDIS_URL", True),
        ("TOKEN_TTL_SECONDS", False),
        ("PASSWORD_STORE_DIR", False),
        ("HOME", False),
        ("SSH_AUTH_SOCK", False),
        ("STRIPE_PUBLISHABLE_KEY", False),
    ],
)
def test_sensitive_variable(name: str, sensitive: bool) -> None:
    assert sensitive_variable(name) is sensitive


@pytest.mark.parametrize(
    ("path", "secret"),
    [
        ("~/.ssh/id_rsa", True),
        ("/root/.ssh/id_ed25519_sk", True),
        (".env", True),
        ("app/.env.production", True),
        (".envrc", True),
        ("tls.key", True),
        ("~/.ssh/id_rsa.pub", False),
        (".env.example", False),
        ("src/environment.ts", False),
        ("keys.go", False),
        ("README.md", False),
    ],
)
def test_secret_file(path: str, secret: bool) -> None:
    assert secret_file(path) is secret
