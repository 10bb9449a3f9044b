"""Variables and builtins that change what the shell does later.

aish types commands into the user's own interactive shell, so setting `PROMPT_COMMAND`, `PS1`
or `PATH` there changes what runs at every later prompt, and a prefix assignment such as
`GIT_EXTERNAL_DIFF=cmd git diff` or `LESSOPEN='|cmd %s' less f` makes a reader run a program.
Builtins assign too (`printf -v`, `read`, `declare`), and an array subscript in a name is
evaluated as arithmetic, which runs any `$(…)` inside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aish.safety.bash.command_walk import Arg


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Variables whose new value changes how later commands run.
_SENSITIVE = _words(
    "PATH LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV PROMPT_COMMAND IFS SHELLOPTS BASHOPTS "
    "PS0 PS1 PS2 PS3 PS4 HISTFILE HISTFILESIZE HISTSIZE TMOUT BASH_XTRACEFD CDPATH "
    "PAGER MANPAGER LESSOPEN LESSCLOSE LESS EDITOR VISUAL BROWSER SHELL HOME XDG_CONFIG_HOME "
    "PYTHONPATH PYTHONSTARTUP PERL5OPT PERL5LIB RUBYOPT NODE_OPTIONS SSH_ASKPASS SUDO_ASKPASS "
    "EXECIGNORE GLOBIGNORE FIGNORE HISTCONTROL HISTIGNORE INPUTRC BASH_COMPAT FUNCNEST "
    "command_not_found_handle "
    # The shell's own bookkeeping: where it is (`cd -`, `$PWD` in prompts), where temporary
    # files go, and the numbers later arithmetic trusts as numeric (`RANDOM`, `SECONDS` …
    # lose that once unset or assigned).
    "PWD OLDPWD PIPESTATUS TMPDIR DIRSTACK FUNCNAME GROUPS HISTCMD OPTIND OPTERR "
    "RANDOM SRANDOM SECONDS LINENO EPOCHSECONDS EPOCHREALTIME MAIL MAILPATH MAILCHECK "
    "TIMEFORMAT PROMPT_DIRTRIM IGNOREEOF HOSTFILE FCEDIT COMP_WORDBREAKS CHILD_MAX GLOBSORT "
    "histchars auto_resume "
    # A plain `NAME=value` also reaches the next command when the user's shell exports NAME:
    # files and options that name what a program runs or where it sends what it reads
    # (a kubeconfig's exec, a JVM's options, a proxy, the CA it trusts, a toolchain).
    "KUBECONFIG JDK_JAVA_OPTIONS _JAVA_OPTIONS JAVA_HOME MAVEN_OPTS MAVEN_ARGS GRADLE_OPTS "
    "RIPGREP_CONFIG_PATH PYTHONHOME PYTHONUSERBASE RUBYLIB BUNDLE_GEMFILE GEM_HOME NODE_PATH "
    "PERLLIB PERL5DB GOFLAGS GOTOOLCHAIN GOENV RUSTC RUSTC_WRAPPER WGETRC CURL_HOME "
    "SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE NODE_EXTRA_CA_CERTS "
    "http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy ftp_proxy FTP_PROXY "
    "LESSKEY LESSSECURE SYSTEMD_PAGER SYSTEMD_EDITOR MANOPT GIT_PAGER PSQLRC PGSERVICEFILE "
    "MYSQL_HOME GNUPGHOME"
)
# `BASH_` covers BASH_CMDS (the hashed paths `ls` resolves to), BASH_ALIASES, BASH_ENV,
# BASH_ARGV0, BASH_LOADABLES_PATH, BASH_XTRACEFD …
# The tools' own families each can name a config file, a plugin or a wrapper (DOCKER_CONFIG,
# AWS_CONFIG_FILE, NPM_CONFIG_USERCONFIG, CARGO_BUILD_RUSTC_WRAPPER, TF_CLI_CONFIG_FILE …).
_SENSITIVE_PREFIXES = (
    "GIT_", "LD_", "DYLD_", "BASH_",
    "DOCKER_", "AWS_", "NPM_CONFIG_", "npm_config_", "CARGO_", "RUSTUP_", "TF_", "PIP_",
    "CLOUDSDK_", "JAVA_", "GRADLE_", "MAVEN_", "KUBE",
)  # fmt: skip

# Prefix assignments that only change how a reader formats what it prints.
_HARMLESS_FOR_ONE_COMMAND = _words(
    "LANG LANGUAGE TZ TERM COLUMNS LINES NO_COLOR CLICOLOR CLICOLOR_FORCE FORCE_COLOR COLORTERM "
    "TIME_STYLE BLOCK_SIZE BLOCKSIZE DU_BLOCK_SIZE DF_BLOCK_SIZE QUOTING_STYLE POSIXLY_CORRECT "
    "LS_COLORS GREP_COLORS"
)


def changes_later_commands(name: str) -> bool:
    """Whether setting `name` in the shell changes what later commands do."""
    return name in _SENSITIVE or name.startswith(_SENSITIVE_PREFIXES) or "[" in name


def harmless_for_one_command(name: str) -> bool:
    """Whether `NAME=value cmd` leaves what `cmd` does (beyond formatting) unchanged."""
    return name in _HARMLESS_FOR_ONE_COMMAND or name.startswith("LC_")


def assignment_concern(name: str) -> str | None:
    if name.startswith("declare -n"):
        return "a name reference makes later assignments land on another variable"
    if name.startswith("unset -f "):
        return (
            f"unset {name[9:]} can remove a function of that name, which changes what "
            "that name runs later"
        )
    if name.startswith("declare -i"):
        return (
            "the integer attribute makes bash evaluate every later value of the variable as "
            "arithmetic, which can run commands"
        )
    if name.startswith("$") or not name:
        return f"sets a variable whose name is computed: {name}"
    base = name.split("[", 1)[0]
    if "[" in name and base != name and changes_later_commands(base):
        return f"sets {name}, which changes how later commands run"
    if "[" in name:
        return f"{name}: an array subscript is evaluated as arithmetic and can run commands"
    if changes_later_commands(name):
        return f"sets {name}, which changes how later commands run"
    return None


_READ_VALUE_OPTIONS = _words("-d -i -n -N -p -t -u")
_MAPFILE_VALUE_OPTIONS = _words("-d -n -O -s -u -C -c")
_TESTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[([0-9]+|@|\*)\])?")
_DECLARATIONS = _words("declare typeset local export readonly")


def builtin_assignments(program: str, args: Sequence[Arg]) -> list[str] | None:
    """The names a builtin assigns (`printf -v NAME`, `read A B`, `declare X=1`), or None when
    `program` is no such builtin. A computed name comes back as its text, marked with `$`."""
    values = [_name_word(a) for a in args]
    if program == "printf":
        attached = [v[2:] for v in values if v.startswith("-v") and len(v) > 2]
        return attached + [values[i + 1] for i, v in enumerate(values[:-1]) if v == "-v"]
    if program == "wait":
        return [values[i + 1] for i, v in enumerate(values[:-1]) if v == "-p"]
    if program in ("read", "mapfile", "readarray"):
        names: list[str] = []
        skip = False
        for index, value in enumerate(values):
            if skip:
                skip = False
            elif value in ("-a", "-O") and index + 1 < len(values):
                names.append(values[index + 1]) if value == "-a" else None
                skip = True
            elif value in (_READ_VALUE_OPTIONS if program == "read" else _MAPFILE_VALUE_OPTIONS):
                skip = True
            elif not value.startswith("-"):
                names.append(value)
        return names
    if program == "getopts":
        return values[1:2]
    if program == "let":  # its words are expressions; evaluated_data judges what they read
        return [a.value.split("=", 1)[0].rstrip("+-*/%<>&|^") for a in args if a.value]
    if program in _DECLARATIONS:
        names = [v.split("=", 1)[0].rstrip("+") for v in values if not v.startswith(("-", "+"))]
        options = [v for v in values if v.startswith("-")]
        names += ["declare -i"] if any("i" in o[1:] for o in options) else []
        names += ["declare -n"] if any("n" in o[1:] for o in options) else []
        return names
    return None


def _name_word(arg: Arg) -> str:
    """A word that names a variable: its value, or `$…` when the name is computed."""
    if arg.value is not None:
        return arg.value
    text = arg.text.strip("\"'")
    return text if text.startswith("$") else "$" + text


def evaluates_text(program: str, args: Sequence[Arg]) -> str | None:
    """Why a builtin would evaluate its text as code: arithmetic with `$(…)` in `let` or a
    subscript, `test -v 'a[$(…)]'`, `mapfile -C callback`."""
    texts = [a.value if a.value is not None else a.text for a in args]
    if program == "let" and any("$(" in t or "`" in t or "[" in t for t in texts):
        return "let evaluates text that can run commands"
    if program in ("test", "[", "[[") and "-v" in texts:
        # The name tested may hold a subscript (`a[$(…)]`), which bash evaluates.
        tested = [args[i + 1] for i, t in enumerate(texts[:-1]) if t == "-v"]
        if any(a.value is None or not _TESTED_NAME.fullmatch(a.value) for a in tested):
            return "test -v evaluates a name that is not literal, which can run commands"
    if program in ("mapfile", "readarray") and "-C" in texts:
        return f"{program} -C runs a callback"
    return None
