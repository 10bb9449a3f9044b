"""Does a command line read a secret: a sensitive variable, the whole environment, a key or
credentials file, or a secret store?

With a scrubbing preset, what such a command prints goes to a cloud model through the scrubber
alone; a hostile model can print it in a shape the scrubber does not know. So in Norris the
gate treats such a command as not `safe` (issue 17, item 5). `reads_secret` says why, or None.

Pure: the line is parsed by `command_walk.walk_bash`; nothing is run or read. A variable is
sensitive when `values.name_is_sensitive` says so (the rule that decides which
environment values the scrubber learns), or it is a connection URL that carries a password.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from aish.safety.bash.command_walk import Arg, Invocation, walk_bash
from aish.safety.bash.syntax import node_text, parsed_tree
from aish.safety.secrets.values import name_is_sensitive

__all__ = ["reads_secret", "secret_file", "sensitive_variable"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_REFERENCE = re.compile(r"\$(?:\{[#!]?([A-Za-z_]\w*)|([A-Za-z_]\w*))")
_INDIRECT = re.compile(r"\$\{!([A-Za-z_]\w*)\}")
_CONNECTION_URL = re.compile(
    r"(?i)^(?:\w+_)?(?:database|db|redis|mongo\w*|amqp|rabbitmq|broker|postgres\w*|mysql|"
    r"pg|sentry|celery_broker)_(?:url|uri|dsn)$"
)

# Files whose content is a secret, by where they live or what they are called.
_SECRET_PATHS = re.compile(
    r"""(?ix)
    (?:^|/)(?:
        \.ssh/(?:id_[^/]*|[^/]*_(?:rsa|dsa|ecdsa|ed25519)|\*|[^/]*\.pem)
      | \.ssh/?$
      | id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:[*?]|$)
      | \.env(?:rc)?(?:\.[\w*-]+)?$
      | [^/]*\.(?:pem|key|p12|pfx|jks|keystore|ppk|kdbx|asc|tfstate|tfvars)$
      | \.aws(?:/(?:credentials|\*|config))?/?$
      | \.(?:netrc|pgpass|my\.cnf|npmrc|pypirc|git-credentials|vault-token|boto|s3cfg|htpasswd)$
      | _netrc$
      | \.docker(?:/config\.json|/\*)?/?$
      | \.kube(?:/config|/\*)?/?$ | kubeconfig[^/]*$
      | \.gnupg(?:/.*)?$ | \.password-store(?:/.*)?$
      | \.config/gh/hosts\.yml$ | \.config/gcloud(?:/.*)?$ | \.azure(?:/.*)?$
      | (?:credentials|secrets?|service[-_]?account[^/]*)\.(?:json|ya?ml|toml|ini)$
      | wp-config\.php$ | etc/shadow-?$ | etc/gshadow$ | etc/sudoers$
      | proc/[^/]+/environ$
    )
    """
)
# An example file holds placeholders, not secrets.
_EXAMPLE = re.compile(r"(?i)[._-](?:example|sample|template|dist|defaults?)$|\.pub$")

# Commands that look at a file without printing what is in it.
_METADATA_ONLY = _words(
    "ls stat file test [ [[ chmod chown chgrp du wc realpath readlink dirname basename touch "
    "mkdir rmdir rm ssh ssh-add source . sha1sum sha256sum sha512sum md5sum b2sum cksum git cd "
    "pushd lsattr getfacl setfacl"
)
# Words before the command they run, and their options that take a value.
_WRAPPERS = {
    "sudo": ("-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t"),
    "doas": ("-u", "-C"),
    "nohup": (),
    "nice": ("-n",),
    "ionice": ("-c", "-n", "-p"),
    "timeout": ("-s", "-k", "--signal", "--kill-after"),
    "stdbuf": ("-i", "-o", "-e"),
    "time": ("-f", "-o"),
    "command": (),
    "builtin": (),
    "exec": ("-a",),
    "xargs": ("-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a"),
    "watch": ("-n", "-d"),
}
_SHELLS = _words("bash sh zsh dash ksh mksh busybox")
_ENVIRONMENT_DUMPS = frozenset(("env", "printenv"))
# Commands that print a secret they hold, by the words that ask for it.
_SECRET_FETCHES: dict[str, tuple[str, ...]] = {
    "gpg": ("--export-secret-keys", "--export-secret-subkeys", "--export-secret-key"),
    "gpg2": ("--export-secret-keys", "--export-secret-subkeys"),
    "gh": ("auth token", "--show-token", "auth status -t"),
    "gcloud": ("print-access-token", "print-identity-token"),
    "az": ("get-access-token",),
    "aws": ("get-secret-value", "get-session-token", "configure get", "get-login-password"),
    "kubectl": ("get secret", "get secrets", "describe secret"),
    "vault": ("kv get", "read", "token lookup", "print token"),
    "pass": ("show",),
    "op": ("read", "item get"),
    "bw": ("get",),
    "secret-tool": ("lookup",),
    "security": ("find-generic-password", "find-internet-password"),
    "heroku": ("auth:token",),
    "git": ("credential fill", "credential-store get"),
    "doppler": ("secrets",),
}
_SINGLE_QUOTED = re.compile(r"'[^']*'")


def sensitive_variable(name: str) -> bool:
    """Whether the variable `name` would hold a secret."""
    return name_is_sensitive(name) or bool(_CONNECTION_URL.match(name))


def secret_file(path: str) -> bool:
    """Whether `path` (as written: `~`, globs and all) names a key or credentials file."""
    path = path.strip().rstrip("/") or path
    return bool(_SECRET_PATHS.search(path)) and not _EXAMPLE.search(path)


def reads_secret(command: str) -> str | None:
    """Why `command` reads a secret (a sensitive variable, the environment, a key or
    credentials file, a secret store), or None when it reads none."""
    return _reason(command, depth=0)


def _reason(command: str, depth: int) -> str | None:
    if depth > 4:
        return None
    reason = _variables_reason_in(_SINGLE_QUOTED.sub("", command))
    if reason:
        return reason
    walk = walk_bash(command)
    for invocation in walk.invocations:
        reason = _invocation_reason(invocation, depth)
        if reason:
            return reason
    for redirect in walk.redirects:
        target = redirect.target
        if target is not None and redirect.operator.startswith("<"):
            reason = _file_reason(target)
            if reason:
                return reason
    for code in walk.embedded:
        reason = _reason(code, depth + 1)
        if reason:
            return reason
    for words in _declarations(command):
        reason = _declaration_reason(words)
        if reason:
            return reason
    return None


def _declarations(command: str) -> list[list[str]]:
    """The words of each `declare`/`typeset`/`export`/`readonly`/`local` in `command` (the
    walk leaves them out: they run nothing)."""
    found: list[list[str]] = []
    with parsed_tree(command, reserved_words=False) as (root, _):
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "declaration_command":
                found.append([node_text(child) for child in node.children])
            stack.extend(node.children)
    return found


def _declaration_reason(words: list[str]) -> str | None:
    """`export -p`, `declare -x`, bare `declare`: values; `declare -p TOKEN`: that one."""
    if not words:
        return None
    name, rest = words[0], words[1:]
    options = "".join(w[1:] for w in rest if w.startswith("-"))
    operands = [w for w in rest if not w.startswith("-")]
    if "p" in options:
        secret = [w for w in operands if sensitive_variable(w)]
        if secret:
            return f"{name} -p prints {secret[0]}"
    if not operands and name != "local" and "f" not in options and "F" not in options:
        return f"{name} prints the variables' values"
    return None


def _invocation_reason(invocation: Invocation, depth: int) -> str | None:
    return _command_reason([invocation.name, *invocation.args], depth)


def _command_reason(words: Sequence[Arg], depth: int) -> str | None:
    """What the command named by `words[0]` reads, through wrappers and `sh -c`."""
    if not words:
        return None
    name = (words[0].value or "").rsplit("/", 1)[-1]
    args = list(words[1:])
    values = [arg.value or "" for arg in args]
    if name in _WRAPPERS:
        return _command_reason(_after_options(args, _WRAPPERS[name]), depth)
    if name in _SHELLS and "-c" in values:
        code = values[values.index("-c") + 1] if values.index("-c") + 1 < len(values) else ""
        return _reason(code, depth + 1) if code else None
    if name == "eval":
        return _reason(
            " ".join(v or arg.text for v, arg in zip(values, args, strict=True)), depth + 1
        )
    reason = _dump_reason(name, args, values, depth)
    if reason:
        return reason
    joined = " " + " ".join(values) + " "
    if any(f" {ask} " in joined for ask in _SECRET_FETCHES.get(name, ())):
        return f"{name} prints a secret it holds"
    if name in _METADATA_ONLY:
        return None
    for arg in args:
        reason = _file_reason(arg)
        if reason:
            return reason
    return None


def _dump_reason(name: str, args: list[Arg], values: list[str], depth: int) -> str | None:
    """`env`, `printenv`, `set`, `export -p`, `declare -x`, `ps e`: the environment."""
    operands = [v for v in values if not v.startswith("-")]
    if name in _ENVIRONMENT_DUMPS:
        if name == "printenv":
            secret = [v for v in operands if sensitive_variable(v)]
            if secret:
                return f"printenv prints {secret[0]}"
            return None if operands else "printenv prints the whole environment"
        rest = _after_options(args, ("-u", "--unset", "-C", "--chdir", "-S"))
        rest = [arg for arg in rest if "=" not in (arg.value or "")] if rest else rest
        if not rest:
            return "env prints the whole environment"
        return _command_reason(rest, depth)
    if name == "set" and not args:
        return "set prints every variable"
    if name == "ps" and any(re.fullmatch(r"[a-zA-Z]*e[a-zA-Z]*", v) for v in values):
        return "ps e prints each process's environment"
    return None


def _after_options(args: list[Arg], takes_value: Iterable[str]) -> list[Arg]:
    """The words after a wrapper's options (and a timeout's duration)."""
    takes = set(takes_value)
    index = 0
    while index < len(args):
        value = args[index].value or ""
        if value == "--":
            return args[index + 1 :]
        if not value.startswith("-") or value == "-":
            if re.fullmatch(r"\d+(?:\.\d+)?[smhd]?", value):  # timeout 5 cmd
                index += 1
                continue
            return args[index:]
        index += 2 if value in takes else 1
    return []


def _file_reason(arg: Arg) -> str | None:
    text = arg.value if arg.value is not None else arg.text
    for word in _path_words(text):
        if secret_file(word):
            return f"reads {word}, a key or credentials file"
    return None


def _path_words(text: str) -> list[str]:
    """The path-like parts of a word: `--file=x` gives x, `if=/dev/x` gives /dev/x."""
    words = [text]
    if "=" in text:
        words.append(text.split("=", 1)[1])
    return [w.strip("\"'") for w in words if w]


def _variables_reason_in(text: str) -> str | None:
    if _INDIRECT.search(text):
        return "expands a variable named at run time"
    for match in _REFERENCE.finditer(text):
        name = match.group(1) or match.group(2)
        if sensitive_variable(name):
            return f"expands ${name}"
    return None
