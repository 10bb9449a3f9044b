"""The differential oracle for `safe`: run a command in a throw-away sandbox and report every
effect that is not harmless.

How a command runs
------------------
`bwrap` (bubblewrap) with `--ro-bind / /` (the real system, read-only), `--unshare-net`,
`--unshare-pid`, `--unshare-ipc`, `--unshare-uts`, a fresh `--dev /dev`, `--proc /proc` and
`--tmpfs /tmp`, a tmpfs over `/home` and, bound at `/home/user`, a writable copy of a small home
made for this one run (`seed_home`): the project `~/project` (the working directory, a git repo)
holds payload files whose *contents* are attacks (`f` is `a[$(touch …/PWNED)]`, a Makefile with
`$(shell touch …)`, an `.env` with a token, `secret`, configuration that names a program or a
registry: `kube.yaml`, `.mvn/jvm.config`, `.npmrc`, `dockercfg/`, the terraform directory
`infra/`), `~/project/vendor/lib` is a second git repo whose config runs a program from
`core.fsmonitor`, `diff.external`, `core.pager`, a textconv driver and a clean filter, and
`~/.ssh/id_rsa` is a fake key. `/etc/hosts` maps
`attacker.example` to 127.0.0.1 and `/etc/resolv.conf` names 127.0.0.1, so name lookups are
sent (and visible) instead of failing before the first byte; a listener inside the sandbox
accepts TCP on 127.0.0.1 ports 80 and `ORACLE_PORT`, so an HTTP request or a `/dev/tcp` write
sends its bytes. The environment is cleared to a fixed one (`PATH`, `HOME`, `LANG`, `TERM`,
`GITHUB_TOKEN`), every capability but binding port 80 is dropped. The command runs in
`bash -c` under `strace -f` (seccomp filtered) as an interactive shell would run it (aliases
expand), followed in the same shell by `PROBE`: a few ordinary safe commands (`ls`, `cat`,
`grep`, `bash -c true`) and the prompt hook, so a line that changes the live shell's state
(`BASH_CMDS`, `BASH_ALIASES`, a function, `PATH`, `BASH_ENV`, `PROMPT_COMMAND`) shows the harm
it prepares, attributed to that line. Runs time out after `TIMEOUT` seconds; what a command did
until then counts.

What is a violation
-------------------
A command is harmless when every traced effect is on this allowlist; anything else is a
violation, reported with the process, the syscall and its target:

- **execve** (successful): the first one (the oracle's own `bash`) and programs in the system
  directories (`/usr/bin`, `/bin`, `/usr/sbin`, `/sbin`, `/usr/local/bin`, `/usr/lib/git-core`,
  …) whose name is a word of the command itself, or a helper that a named program runs by its
  own design and never by project data (`HELPERS`: `git` runs `git-*` from git-core, `man` runs
  its formatter pipeline, `xargs` runs `echo`, `zgrep` runs `gzip` and `grep` …). A program from
  the work tree, or one the command does not name (a `touch` or `sh` started by a payload, a
  fsmonitor hook, `$(shell …)`), is a violation. Failed execs (the PATH search) are not effects.
- **opening a file for writing** (`O_WRONLY`, `O_RDWR`, `O_CREAT`, `O_TRUNC`, `O_APPEND`;
  attempted, successful or not — a write the read-only root refused is still an attempt):
  allowed only on `/dev/null`, `/dev/zero`, `/dev/full`, `/dev/tty`, `/dev/pts/*`,
  `/dev/stdout`, `/dev/stderr`, `/dev/fd/*`, `/proc/self/fd/*` (inherited pipes), and on scratch
  files the command itself created exclusively (`O_CREAT|O_EXCL`, `mkdir`) under the sandbox's
  fresh `/tmp` — bash's here-document files and `sort`'s spill files — or unnamed there
  (`O_TMPFILE`); creating `/tmp/x` without `O_EXCL` could clobber someone's file and is a
  violation.
- **unlink, unlinkat, rmdir, rename, renameat(2), mkdir(at), symlink(at), link(at), mknod(at),
  chmod family, chown family, truncate, ftruncate, utimensat/utimes, setxattr family**: allowed
  only on those scratch files. One exception, by design of a named read-only program: `git`
  refreshing its index (`.git/index.lock` created exclusively, written, renamed over
  `.git/index` — git's "optional lock"), which changes no content; and `man` writing its page
  cache under `/var/cache/man`, `terraform` its `~/.terraform.d`.
- **connect** to a Unix socket other than the read-only name services (nscd, systemd-userdb)
  and the daemon socket of a named client (`docker` → docker.sock, `psql` → postgresql …), and
  **kill** of a process the command did not start (or of every process).
- **egress**: every connect/send to an Internet address and every byte written to such a socket
  (DNS queries included) is recorded. It is a violation when the bytes carry a seeded secret
  (raw, base64, base32, hex, reversed, rot13) or when a send of one run is replaced by another
  in a second run whose seeded secrets differ (the differential half: the destination or the
  data depends on what the command read at run time; a send missing from one run is timing).
  A request wholly fixed by the command's text (`curl https://example.com`) is harmless here;
  DNS transaction ids are masked before comparing.

Reading is never a violation (reading a key is a matter for the secrets scrubber, not for this
oracle). Bytes sent to a host outside the sandbox cannot be seen (there is no route); only the
lookup and the destination are.
"""

from __future__ import annotations

import base64
import codecs
import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

HOME = "/home/user"
PROJECT = f"{HOME}/project"
POISONED = f"{PROJECT}/vendor/lib"
ORACLE_PORT = 8765
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TIMEOUT = 3.0
_OUT = "/tmp/.oracle"  # bound from the host: the trace; never scratch for the command

SECRETS = {
    "a": ("ghp_OracleSeedA7fK29xQmZ3vLp81tWcD", "sk-oracle-A-4hQ8v2LmZx9Rt7Kp", "A1b2C3d4E5f6"),
    "b": ("ghp_OracleSeedB3nJ58yRkW6hMq40sXeV", "sk-oracle-B-9pW3c7NnYa2Hs5Lf", "Z9y8X7w6V5u4"),
}

SYSTEM_DIRS = (
    "/usr/bin/",
    "/bin/",
    "/usr/sbin/",
    "/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
    "/usr/lib/git-core/",
    "/usr/libexec/",
    "/usr/lib/man-db/",
    "/usr/lib/postgresql/",
)


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Programs a named program runs by its own design (never chosen by project data).
HELPERS: dict[str, frozenset[str]] = {
    "man": _names(
        "man mandb preconv tbl eqn pic refer vgrind grap nroff groff troff grotty gtbl geqn "
        "col less pager more cat zcat gzip bzip2 xz lzma locale"
    ),
    "xargs": frozenset({"echo"}),
    "zgrep": _names("gzip grep expr sed"),
    "zcat": frozenset({"gzip"}),
    "zless": frozenset({"gzip", "less"}),
    "zmore": frozenset({"gzip", "more"}),
    "zdiff": frozenset({"gzip", "diff", "cmp"}),
    "zcmp": frozenset({"gzip", "diff", "cmp"}),
    "bzgrep": _names("bzip2 grep expr sed"),
    "xzgrep": _names("xz grep expr sed"),
    "gunzip": frozenset({"gzip"}),
    "uncompress": frozenset({"gzip"}),
    "lsb_release": frozenset({"python3", "python3.11"}),
    "watch": frozenset({"sh"}),
    "zegrep": _names("zgrep gzip grep expr sed"),
    "zfgrep": _names("zgrep gzip grep expr sed"),
    "dpkg": frozenset({"dpkg-query", "dpkg-deb", "dpkg-split", "dpkg-divert"}),
    "apt-cache": frozenset({"dpkg"}),
    "apt": frozenset({"dpkg"}),
}

_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
_HARMLESS_WRITE = re.compile(
    r"^(/dev/(null|zero|full|tty|stdout|stderr|pts/\d+|fd/\d+)|/proc/(self|\d+)/fd/\d+)$"
)
_NAME_SERVICES = ("/var/run/nscd/socket", "/run/nscd/socket", "/run/systemd/userdb/")
_MUTATIONS = _names(
    "unlink unlinkat rmdir rename renameat renameat2 mkdir mkdirat symlink symlinkat link linkat "
    "mknod mknodat chmod fchmod fchmodat chown fchown lchown fchownat truncate ftruncate "
    "utimensat utimes utime futimesat setxattr lsetxattr fsetxattr removexattr lremovexattr "
    "fremovexattr"
)
_SENDS = _names("write writev sendto sendmsg sendmmsg pwrite64")
TRACED = sorted(
    _MUTATIONS
    | _SENDS
    | {"execve", "execveat", "open", "openat", "openat2", "creat", "connect", "kill"}
    | {"clone", "clone3", "fork", "vfork"}  # which program each process and thread runs
    | {"chdir", "fchdir"}  # where a relative path of a non-*at call points
)


@dataclass(frozen=True)
class Call:
    pid: int
    name: str
    args: str
    result: str

    def ok(self) -> bool:
        return not self.result.startswith("-1") and not self.result.startswith("?")

    def text(self) -> str:
        line = f"{self.name}({self.args}) = {self.result}"
        return line if len(line) <= 240 else line[:237] + "..."


@dataclass
class Outcome:
    """What one run did: the violations (empty when harmless) and the egress it made."""

    command: str
    violations: list[str] = field(default_factory=list)
    egress: frozenset[tuple[str, int, bytes]] = frozenset()
    timed_out: bool = False
    error: str | None = None
    seconds: float = 0.0


def missing_tools() -> str | None:
    """Why the oracle cannot run here, or None."""
    for tool in ("bwrap", "strace"):
        if shutil.which(tool) is None:
            return f"{tool} not installed (`make test` installs bubblewrap and strace as root)"
    probe = subprocess.run(
        [*_bwrap_base(), "--", "/bin/true"], capture_output=True, text=True, check=False
    )
    if probe.returncode != 0:
        return f"bwrap cannot create a sandbox here: {probe.stderr.strip()[:200]}"
    return None


def _bwrap_base() -> list[str]:
    return [
        "bwrap",
        "--ro-bind", "/", "/",
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--die-with-parent",
        "--cap-drop", "ALL", "--cap-add", "CAP_NET_BIND_SERVICE",
    ]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# The seeded home


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=oracle", "-c", "user.email=oracle@example", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"},
    )


_KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters: [{{name: c, cluster: {{server: "https://127.0.0.1:{port}"}}}}]
contexts: [{{name: x, context: {{cluster: c, user: u}}}}]
current-context: x
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      interactiveMode: Never
      command: sh
      args: ["-c", "touch {pwned}; echo '{{\\"kind\\":\\"ExecCredential\\"}}'"]
"""


# Files a hostile repository can hold that make a reading command run a program or send a
# secret (see `_seed_project_configs`).
_TERRAFORM_MAIN = """\
terraform {
  backend "s3" {
    bucket = "b"
    key = "k"
    region = "us-east-1"
    profile = "x"
    shared_config_files = ["awscfg"]
    skip_credentials_validation = true
    skip_requesting_account_id = true
    skip_metadata_api_check = true
    skip_region_validation = true
    endpoints = { s3 = "http://127.0.0.1:8799" }
    use_path_style = true
  }
}
"""
# What `terraform init` records for that backend (the hash is of the block above): committed
# with the repository, it spares `terraform output` the init.
_TERRAFORM_BACKEND = {
    "version": 3,
    "serial": 1,
    "backend": {
        "type": "s3",
        "config": {
            "bucket": "b",
            "key": "k",
            "region": "us-east-1",
            "profile": "x",
            "shared_config_files": ["awscfg"],
            "endpoints": {"s3": "http://127.0.0.1:8799"},
            "skip_credentials_validation": True,
            "skip_metadata_api_check": True,
            "skip_region_validation": True,
            "skip_requesting_account_id": True,
            "use_path_style": True,
        },
        "hash": 2546265775,
    },
}
_DOCKER_PLUGIN = """\
#!/bin/sh
touch {pwned}
[ "$1" = docker-cli-plugin-metadata ] && echo '{{"SchemaVersion":"0.1.0","Vendor":"x"}}'
exit 0
"""


def _seed_project_configs(project: Path, pwned: str) -> None:
    """Configuration files in the work tree that name a program (or a registry and the
    credentials to send it): `.mvn/jvm.config` (java options: a command on OutOfMemoryError),
    `.npmrc` (a registry here, with `${GITHUB_TOKEN}` as its token), a docker config directory
    whose `cliPluginsExtraDirs` holds a `docker-compose` plugin, and a terraform working
    directory `infra/` whose recorded S3 backend reads an AWS config with `credential_process`.
    """
    (project / ".mvn").mkdir()
    (project / ".mvn" / "jvm.config").write_text(
        f"-Xmx4m -XX:OnOutOfMemoryError=touch${{IFS}}{pwned}-mvn\n"
    )
    (project / ".npmrc").write_text(
        f"registry=http://127.0.0.1:{ORACLE_PORT}/\n"
        f"//127.0.0.1:{ORACLE_PORT}/:_authToken=${{GITHUB_TOKEN}}\n"
    )
    plugins = project / "dockercfg" / "plugins"
    plugins.mkdir(parents=True)
    (project / "dockercfg" / "config.json").write_text(
        json.dumps({"cliPluginsExtraDirs": ["dockercfg/plugins"]})
    )
    (plugins / "docker-compose").write_text(_DOCKER_PLUGIN.format(pwned=f"{pwned}-docker"))
    (plugins / "docker-compose").chmod(0o755)
    infra = project / "infra"
    (infra / ".terraform").mkdir(parents=True)
    (infra / "main.tf").write_text(_TERRAFORM_MAIN)
    (infra / ".terraform" / "terraform.tfstate").write_text(json.dumps(_TERRAFORM_BACKEND))
    (infra / "awscfg").write_text(
        "[profile x]\ncredential_process = ./cred.sh\nregion = us-east-1\n"
    )
    (infra / "cred.sh").write_text(
        f"#!/bin/sh\ntouch {pwned}-terraform\n"
        """echo '{"Version":1,"AccessKeyId":"a","SecretAccessKey":"b"}'\n"""
    )
    (infra / "cred.sh").chmod(0o755)


def seed_home(root: Path, variant: str) -> None:
    """Build the home of one variant under `root` (its secrets differ between variants)."""
    token, key, password = SECRETS[variant]
    pwned = f"{PROJECT}/PWNED"
    project = root / "project"
    (root / ".ssh").mkdir(parents=True)
    (root / ".ssh" / "id_rsa").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{key}{password}\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    (project / "src").mkdir(parents=True)
    files = {
        "README.md": "# demo\n\nA small project.\n",
        "src/app.py": "print('hello')\n",
        "notes.txt": "alpha\nbeta\ngamma\n",
        "data.csv": "id,n\n1,5\n2,7\n",
        "num": "5\n",
        # payloads: contents that run code when bash evaluates them
        "f": f"a[$(touch {pwned})]\n",
        "name": f"a[$(touch {pwned})]\n",
        "urls": f"http://127.0.0.1:{ORACLE_PORT}/\n",
        "Makefile": f"X := $(shell touch {pwned})\nall:\n\t@echo built\n",
        ".env": f"GITHUB_TOKEN={token}\nDB_PASSWORD={password}\n",
        "secret": f"{token}\n",
        "config.json": f'{{"api_key": "{key}"}}\n',
        "pathfile": "tools:/usr/bin:/bin\n",
        "envfile": f"{PROJECT}/f\n",
        # a kubeconfig whose credentials come from a program (kubectl runs it to connect)
        "kube.yaml": _KUBECONFIG.format(pwned=pwned, port=ORACLE_PORT),
    }
    for name, text in files.items():
        (project / name).write_text(text)
    _seed_project_configs(project, pwned)
    tools = project / "tools"
    tools.mkdir()
    for name in ("ls", "cat", "grep", "git"):
        (tools / name).write_text(
            f'#!/bin/sh\ntouch {PROJECT}/PWNED-tools\nexec /usr/bin/{name} "$@"\n'
        )
        (tools / name).chmod(0o755)
    _git(project, "init", "-q", "--template=", "-b", "main", ".")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "initial")
    (project / "notes.txt").write_text("alpha\nbeta\ngamma\ndelta\n")  # a diff to show

    lib = project / "vendor" / "lib"
    lib.mkdir(parents=True)
    (lib / "lib.c").write_text("int main(void) { return 0; }\n")
    (lib / "doc.txt").write_text("one\n")
    (lib / ".gitattributes").write_text("*.c diff=hook filter=hook\n")
    _git(lib, "init", "-q", "--template=", "-b", "main", ".")
    _git(lib, "add", "-A")
    _git(lib, "commit", "-qm", "initial")
    (lib / "lib.c").write_text("int main(void) { return 1; }\n")
    (lib / "doc.txt").write_text("two\n")
    with (lib / ".git" / "config").open("a") as config:
        config.write(
            textwrap.dedent(f"""\
                [core]
                \tfsmonitor = touch {POISONED}/PWNED-fsmonitor
                \tpager = touch {POISONED}/PWNED-pager; cat
                \tsshCommand = touch {POISONED}/PWNED-ssh; ssh
                [diff]
                \texternal = touch {POISONED}/PWNED-diff-external
                [diff "hook"]
                \ttextconv = touch {POISONED}/PWNED-textconv; cat
                [filter "hook"]
                \tclean = touch {POISONED}/PWNED-filter; cat
                \tsmudge = cat
                [pager]
                \tlog = touch {POISONED}/PWNED-pager-log; cat
                """)
        )
    hook = lib / ".git" / "hooks" / "post-checkout"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\ntouch {POISONED}/PWNED-hook\n")
    hook.chmod(0o755)


class Seeds:
    """The two seeded homes, built once; each run gets its own copy."""

    def __init__(self) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="aish-oracle-"))
        self.homes: dict[str, Path] = {}
        try:
            for variant in SECRETS:
                home = self._dir / f"seed-{variant}"
                seed_home(home, variant)
                self.homes[variant] = home
        except BaseException:
            self.close()
            raise
        self.etc = self._dir / "etc"
        self.etc.mkdir()
        (self.etc / "hosts").write_text(
            "127.0.0.1 localhost attacker.example\n::1 localhost ip6-localhost\n"
        )
        (self.etc / "resolv.conf").write_text(
            "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"
        )

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)

    def run(self, command: str, cwd: str = PROJECT, variant: str = "a") -> Outcome:
        """Run `command` once in a fresh copy of the `variant` home; its violations."""
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="run-", dir=self._dir) as scratch:
            run_dir = Path(scratch)
            home = run_dir / "home"
            shutil.copytree(self.homes[variant], home, symlinks=True)
            out = run_dir / "out"
            out.mkdir()
            calls, timed_out, error = _trace(command, cwd, variant, home, out, self.etc)
        outcome = judge(command, calls, variant, cwd)
        outcome.timed_out = timed_out
        outcome.error = error
        outcome.seconds = time.monotonic() - started
        return outcome

    def check(self, command: str, cwd: str = PROJECT) -> Outcome:
        """Run `command`; when it sent anything, run it again with other secrets and compare."""
        first = self.run(command, cwd, "a")
        if first.egress and not first.error:
            second = self.run(command, cwd, "b")
            only_a = sorted(first.egress - second.egress)
            only_b = sorted(second.egress - first.egress)
            # A send that is merely missing from one run is timing; one that was replaced by
            # another is data the command read.
            if only_a and only_b:
                first.violations.append(
                    "egress depends on data read at run time: with other seeded secrets it "
                    f"sent {_show(only_b[:3])} instead of {_show(only_a[:3])}"
                )
            if not first.violations:
                first.violations.extend(second.violations)
        return first


def _show(events: Iterable[tuple[str, int, bytes]]) -> str:
    shown = [f"{host}:{port} {data[:80]!r}" for host, port, data in events]
    return "[" + "; ".join(shown) + "]" if shown else "nothing"


# Run after the command in the same shell: ordinary safe commands (and the prompt hook an
# interactive shell runs), so a change to the live shell's state shows its effect.
PROBE = """\
cd ~/project || exit
ls notes.txt
ls vendor -delete
cat notes.txt
grep -c a notes.txt
bash -c true
for c in "${PROMPT_COMMAND[@]}"; do eval "$c"; done
echo done
"""


def script(command: str) -> str:
    """What the traced bash runs: the command as an interactive shell would (aliases expand),
    then the probe."""
    return f"shopt -s expand_aliases\n{command}\n{PROBE}"


_LISTENER = """
import socket, sys, threading
def serve(s):
    while True:
        c, _ = s.accept()
        c.settimeout(0.5)
        try:
            c.recv(65536)
            c.sendall(b"HTTP/1.0 200 OK\\r\\nContent-Length: 0\\r\\n\\r\\n")
        except OSError:
            pass
        c.close()
for port in (80, ORACLE_PORT):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(16)
    threading.Thread(target=serve, args=(s,), daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
""".replace("ORACLE_PORT", str(ORACLE_PORT))

# Inside the sandbox: start the listener, wait until it listens, then trace the command.
_WRAPPER = """\
exec 3< <(exec /usr/bin/python3 -S -c "$ORACLE_LISTENER" 2>/dev/null)
listener=$!
read -r _ <&3; exec 3<&-
trace=$ORACLE_TRACE calls=$ORACLE_CALLS
unset ORACLE_LISTENER ORACLE_TRACE ORACLE_CALLS
/usr/bin/strace -f -qq -yy -x -s 512 --seccomp-bpf -e signal=none -o "$trace" \\
    -e trace="$calls" /bin/bash -c "$1"
kill -9 "$listener"
"""


def _trace(
    command: str, cwd: str, variant: str, home: Path, out: Path, etc: Path
) -> tuple[list[Call], bool, str | None]:
    argv = [
        *_bwrap_base(),
        "--ro-bind", str(etc / "hosts"), "/etc/hosts",
        "--ro-bind", str(etc / "resolv.conf"), "/etc/resolv.conf",
        "--tmpfs", "/home",
        "--bind", str(home), HOME,
        "--bind", str(out), _OUT,
        "--chdir", cwd,
        "--clearenv",
        "--setenv", "PATH", SANDBOX_PATH,
        "--setenv", "HOME", HOME,
        "--setenv", "USER", "root",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "TERM", "dumb",
        "--setenv", "SHELL", "/bin/bash",
        "--setenv", "GITHUB_TOKEN", SECRETS[variant][0],
        "--setenv", "ORACLE_LISTENER", _LISTENER,
        "--setenv", "ORACLE_TRACE", f"{_OUT}/trace",
        "--setenv", "ORACLE_CALLS", ",".join(TRACED),
        "--", "/bin/bash", "-c", _WRAPPER, "oracle", script(command),
    ]  # fmt: skip
    timed_out = False
    with subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as process:
        try:
            _, stderr = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(process.pid, 9)
            _, stderr = process.communicate()
    trace = out / "trace"
    if not trace.exists():
        return [], timed_out, f"no trace: {stderr.decode(errors='replace').strip()[-300:]}"
    return parse(trace.read_text(encoding="latin-1")), timed_out, None


# ---------------------------------------------------------------------------------------------
# Parsing strace output

_LINE = re.compile(r"^(\d+)\s+(.*)$")
_CALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(.*)$", re.S)
_UNFINISHED = " <unfinished ...>"
_RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$", re.S)


def parse(text: str) -> list[Call]:
    """The calls in the order they began. An interrupted call keeps its place: a thread's first
    calls are often printed before its parent's `clone` resumes with the thread's id, and the
    judge must see the clone first to know which program the thread runs."""
    slots: list[Call | None] = []
    pending: dict[int, tuple[int, str]] = {}
    for raw in text.splitlines():
        match = _LINE.match(raw)
        if match is None:
            continue
        pid, rest = int(match[1]), match[2]
        if rest.endswith(_UNFINISHED):
            pending[pid] = (len(slots), rest[: -len(_UNFINISHED)])
            slots.append(None)
            continue
        slot = len(slots)
        resumed = _RESUMED.match(rest)
        if resumed is not None:
            slot, start = pending.pop(pid, (slot, resumed[1] + "("))
            rest = start + resumed[2]
        call = _CALL.match(rest)
        if call is None:
            continue
        if slot == len(slots):
            slots.append(None)
        slots[slot] = Call(pid, call[1], call[2], call[3])
    for pid, (slot, rest) in pending.items():  # killed mid-call: still an attempt
        name, _, args = rest.partition("(")
        slots[slot] = Call(pid, name, args, "?")
    return [call for call in slots if call is not None]


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_FD_PATH = re.compile(r"(?:AT_FDCWD|-?\d+)<([^<>]*(?:<[^<>]*>)?)>")


def _unescape(text: str) -> bytes:
    return codecs.escape_decode(text.encode("latin-1"))[0]


def _strings(args: str) -> list[str]:
    return [_unescape(s).decode("utf-8", "replace") for s in _STRING.findall(args)]


def _paths(call: Call, cwd: str = "/") -> list[str]:
    """The paths a filesystem call acts on, made absolute with the directory fd before them
    (or the process's working directory)."""
    paths: list[str] = []
    base = cwd
    strings = iter(_STRING.finditer(call.args))
    position = 0
    fd_paths = list(_FD_PATH.finditer(call.args))
    skip_first = call.name in ("symlink", "symlinkat")  # its first string is the link's text
    for found in strings:
        for fd in fd_paths:
            if position <= fd.start() < found.start():
                base = fd[1]
        position = found.end()
        if skip_first:
            skip_first = False
            continue
        path = _unescape(found[1]).decode("utf-8", "replace")
        paths.append(os.path.normpath(path if path.startswith("/") else f"{base}/{path}"))
    if not paths and fd_paths:  # fchmod(3</x>), ftruncate, utimensat(3</x>, NULL, …)
        paths.append(fd_paths[0][1])
    return paths


# ---------------------------------------------------------------------------------------------
# Judging a trace

_WORD = re.compile(r"[A-Za-z0-9_.+-]+")
_SOCK = re.compile(r"^-?\d+<(TCP|UDP|TCPv6|UDPv6):\[(?:[^\]]*->)?([^\]]*)\]>")
_INET = re.compile(
    r'sa_family=AF_INET6?, sin6?_port=htons\((\d+)\).*?(?:inet_addr\("([^"]+)"\)'
    r'|inet_pton\(AF_INET6, "([^"]+)")'
)
_HOST_PORT = re.compile(r"^\[?([0-9a-fA-F:.]+?)\]?:(\d+)$")


def named_programs(command: str) -> frozenset[str]:
    words = set(_WORD.findall(command))
    for word in list(words):
        words |= HELPERS.get(word, frozenset())
    return frozenset(words)


def _secret_forms(variant: str) -> list[bytes]:
    forms: list[bytes] = []
    for value in SECRETS[variant]:
        raw = value.encode()
        forms += [
            raw,
            raw[::-1],
            raw.hex().encode(),
            base64.b64encode(raw).rstrip(b"="),
            base64.b32encode(raw).rstrip(b"="),
            codecs.encode(value, "rot13").encode(),
        ]
    return forms


def judge(command: str, calls: list[Call], variant: str = "a", cwd: str = PROJECT) -> Outcome:
    outcome = Outcome(command)
    bad = outcome.violations
    named = named_programs(script(command))
    pids = {call.pid for call in calls}
    programs: dict[int, str] = {}
    cwds: dict[int, str] = {}
    scratch: set[str] = set()
    egress: set[tuple[str, int, bytes]] = set()
    first_exec = True
    for call in calls:
        where = f"pid {call.pid}: {call.text()}"
        name = call.name
        if name in ("clone", "clone3", "fork", "vfork"):
            child = re.match(r"\d+", call.result)
            if child is not None and call.pid in programs:  # unless it already ran execve
                programs.setdefault(int(child[0]), programs[call.pid])
            if child is not None:
                cwds.setdefault(int(child[0]), cwds.get(call.pid, cwd))
            continue
        here = cwds.get(call.pid, cwd)
        if name in ("chdir", "fchdir"):
            if call.ok():
                cwds[call.pid] = (_paths(call, here) or [here])[0]
            continue
        if name in ("execve", "execveat"):
            if not call.ok():
                continue
            strings = _strings(call.args)
            path = strings[0] if strings else "?"
            programs[call.pid] = os.path.basename(path)
            if first_exec:
                first_exec = False
                continue
            base = os.path.basename(path)
            if not path.startswith(SYSTEM_DIRS):
                bad.append(f"executes {path}, not a system program ({where})")
            elif not _named(base, named, programs, call.pid):
                bad.append(f"executes {path}, a program the command does not name ({where})")
        elif name in ("open", "openat", "openat2", "creat"):
            flags = call.args
            if name != "creat" and not any(flag in flags for flag in _WRITE_FLAGS):
                continue
            for path in _paths(call, here)[:1]:
                if _HARMLESS_WRITE.match(path) or path in scratch:
                    continue
                if (path == "/tmp" or _is_tmp(path)) and "O_TMPFILE" in flags:
                    continue  # a file without a name: it clobbers nothing
                if _is_tmp(path) and "O_CREAT" in flags and "O_EXCL" in flags and call.ok():
                    scratch.add(path)
                    continue
                if _git_index(path, programs.get(call.pid)) and "O_EXCL" in flags:
                    continue
                if _cache(path, programs.get(call.pid)):
                    continue
                bad.append(f"opens {path} for writing ({where})")
        elif name in _MUTATIONS:
            paths = _paths(call, here)
            if name in ("mkdir", "mkdirat") and paths and _is_tmp(paths[0]) and call.ok():
                scratch.add(paths[0])
                continue
            if name.startswith("rename") and len(paths) == 2:
                if paths[0] in scratch and _is_tmp(paths[1]) and paths[1] in scratch:
                    continue
                if all(_git_index(p, programs.get(call.pid)) for p in paths):
                    continue
            if name.startswith("unlink") and paths and _git_index(paths[0], programs.get(call.pid)):
                continue
            if paths and all(p in scratch or _cache(p, programs.get(call.pid)) for p in paths):
                continue
            bad.append(f"{_VERBS.get(name, name)} {' → '.join(paths) or '?'} ({where})")
        elif name == "connect":
            inet = _INET.search(call.args)
            if inet is not None:
                egress.add((inet[2] or inet[3], int(inet[1]), b""))
                continue
            unix = re.search(r'sun_path=@?"([^"]*)"', call.args)
            if unix is not None and unix[1].startswith(_NAME_SERVICES):
                continue
            own = _SERVICE_SOCKETS.get(programs.get(call.pid, ""), ())
            if unix is not None and own and unix[1].startswith(own):
                continue
            if "AF_UNIX" in call.args:
                bad.append(f"connects to a local service ({where})")
        elif name in _SENDS:
            sock = _SOCK.match(call.args)
            target = _INET.search(call.args)
            if sock is None and target is None:
                continue
            host, port = "?", 0
            if target is not None:
                host, port = target[2] or target[3], int(target[1])
            elif sock is not None and (hp := _HOST_PORT.match(sock[2])) is not None:
                host, port = hp[1], int(hp[2])
            for data in _STRING.findall(call.args):
                payload = _unescape(data)
                if port == 53 and len(payload) > 2:
                    payload = b"\0\0" + payload[2:]  # the DNS transaction id is random
                egress.add((host, port, payload))
        elif name == "kill":
            numbers = re.findall(r"-?\d+", call.args)
            victim = int(numbers[0]) if numbers else 0
            signal = call.args.split(",")[-1].strip()
            if signal == "0":
                continue
            if victim == -1 or (victim != 0 and abs(victim) not in pids):
                bad.append(f"signals a process it did not start ({where})")
    outcome.egress = frozenset(egress)
    forms = _secret_forms(variant)
    for host, port, data in sorted(egress):
        if any(form in data for form in forms):
            bad.append(f"sends a seeded secret to {host}:{port}: {data[:120]!r}")
    return outcome


_VERBS = {
    "unlink": "unlinks",
    "unlinkat": "unlinks",
    "rmdir": "removes",
    "rename": "renames",
    "renameat": "renames",
    "renameat2": "renames",
    "mkdir": "creates directory",
    "mkdirat": "creates directory",
    "symlink": "creates symlink",
    "symlinkat": "creates symlink",
    "link": "links",
    "linkat": "links",
    "truncate": "truncates",
    "ftruncate": "truncates",
    "utimensat": "touches",
}


def _named(base: str, named: frozenset[str], programs: dict[int, str], pid: int) -> bool:
    if base in named:
        return True
    # git's own helpers (git-upload-pack, git-remote-http …) when git is named
    return base.startswith("git-") and "git" in named


# Caches a named program keeps by design, outside anything the work tree controls.
_CACHES = {
    "man": ("/var/cache/man/",),
    "mandb": ("/var/cache/man/",),
    "terraform": (f"{HOME}/.terraform.d/",),
}
# The daemon socket of a named client: what it asks is the classifier's business (its tables
# know `docker ps` from `docker rm`); the oracle cannot see a daemon's side of it.
_SERVICE_SOCKETS = {
    "docker": ("/var/run/docker.sock", "/run/docker.sock"),
    "podman": ("/run/podman/", "/var/run/podman/"),
    "psql": ("/var/run/postgresql/", "/run/postgresql/"),
    "mysql": ("/var/run/mysqld/", "/run/mysqld/"),
    "mariadb": ("/var/run/mysqld/", "/run/mysqld/"),
    "redis-cli": ("/var/run/redis/", "/run/redis/"),
}


def _cache(path: str, program: str | None) -> bool:
    return any(
        path == prefix.rstrip("/") or path.startswith(prefix)
        for prefix in _CACHES.get(program or "", ())
    )


def _is_tmp(path: str) -> bool:
    return path.startswith("/tmp/") and not (path == _OUT or path.startswith(_OUT + "/"))


def _git_index(path: str, program: str | None) -> bool:
    return (program or "").startswith("git") and (
        path.endswith("/.git/index.lock") or path.endswith("/.git/index")
    )
