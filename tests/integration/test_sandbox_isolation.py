"""What a program in the sandbox can reach: the agent's real shell (bash on a PTY) started in a
real sandbox. Writes outside the tree fail with EROFS and are reported with the path; the
network, host TCP listeners on 127.0.0.1 and host Unix sockets (by path, in the tree, or
abstract) bound before the sandbox started are refused while the same connections succeed
outside; /tmp is private; discarding leaves the tree byte-identical. Also as an unprivileged
user (the launcher alone, through `runuser`)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from aish.agent.shell_facts import ShellFactsSource
from aish.run.agent_shell import AgentShell
from aish.run.sandbox import Sandbox, scan_changes
from aish.run.sandbox.namespaces import LAUNCHER

from ..sandbox_trees import require_sandbox, tree_state

CONNECT = (
    "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); "
    's.connect(sys.argv[1]); print("connected")\' {}'
)


@pytest.fixture(autouse=True)
def _sandbox_here() -> None:
    require_sandbox()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "data.bin").write_bytes(bytes(range(256)) * 8)
    (root / "tool.sh").write_text("echo tool\n")
    return root


@pytest.fixture
async def shell(tree: Path) -> AsyncIterator[tuple[AgentShell, Sandbox]]:
    sandbox = Sandbox.create(tree)
    agent = await AgentShell.start(str(tree), sandbox=sandbox)
    try:
        yield agent, sandbox
    finally:
        await agent.close()
        sandbox.discard()


@pytest.fixture
def listeners(tree: Path) -> Iterator[dict[str, str]]:
    """Listening host sockets: a Unix socket outside /tmp and outside the tree, one inside the
    tree, an abstract one, and TCP on 127.0.0.1."""
    outside_dir = Path(tempfile.mkdtemp(prefix="aish-test-", dir="/var/tmp"))
    sockets: list[socket.socket] = []

    def listen(family: int, address: object) -> socket.socket:
        sock = socket.socket(family)
        sock.bind(address)
        sock.listen()
        sockets.append(sock)
        return sock

    listen(socket.AF_UNIX, str(outside_dir / "host.sock"))
    listen(socket.AF_UNIX, str(tree / "in-tree.sock"))
    abstract = f"\0aish-test-{os.getpid()}-{id(outside_dir)}"
    listen(socket.AF_UNIX, abstract)
    tcp = listen(socket.AF_INET, ("127.0.0.1", 0))
    try:
        yield {
            "outside": str(outside_dir / "host.sock"),
            "tree": str(tree / "in-tree.sock"),
            "abstract": abstract,
            "port": str(tcp.getsockname()[1]),
        }
    finally:
        for sock in sockets:
            sock.close()
        shutil.rmtree(outside_dir)


async def _run(agent: AgentShell, command: str) -> tuple[int, str, str | None]:
    """The test's own command, typed into the sandboxed shell (no model proposed it)."""
    result = await agent.session.run(command)
    return result.exit_status, result.output.text, result.notice


async def test_host_sockets_and_the_network_are_refused_inside(
    listeners: dict[str, str], shell: tuple[AgentShell, Sandbox]
) -> None:
    # The sockets listen before the sandbox starts, as a daemon's do (the launcher covers the
    # ones bound at its start; see docs/norris.md for the limit).
    agent, _ = shell
    for name in ("outside", "tree"):
        path = listeners[name]
        with socket.socket(socket.AF_UNIX) as probe:
            probe.connect(path)  # outside the sandbox it answers
        status, output, _ = await _run(agent, CONNECT.format(path))
        assert status != 0 and "connected" not in output, (name, output)
        assert "Connection refused" in output or "No such file" in output, output
    abstract = listeners["abstract"].replace("\0", "\\0")
    status, output, _ = await _run(
        agent,
        "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); "
        f's.connect("{abstract}"); print("connected")\'',
    )
    assert status != 0 and "Connection refused" in output, output
    port = listeners["port"]
    status, output, _ = await _run(
        agent,
        f'python3 -c \'import socket; socket.create_connection(("127.0.0.1", {port}), 5); '
        'print("connected")\'',
    )
    assert status != 0 and "Connection refused" in output, output
    status, output, _ = await _run(
        agent,
        "python3 -c 'import socket; socket.create_connection((\"192.0.2.1\", 80), 5)'",
    )
    assert status != 0 and "Network is unreachable" in output, output
    # /run and the runtime dir are empty; the variables naming host sockets are gone.
    status, output, _ = await _run(agent, "ls -A /run | wc -l; echo ${SSH_AUTH_SOCK-unset}")
    assert output.split() == ["0", "unset"]


async def test_writes_outside_the_tree_fail_and_are_reported(
    shell: tuple[AgentShell, Sandbox], tree: Path, tmp_path: Path
) -> None:
    from aish.agent import gate

    agent, sandbox = shell
    outside = tmp_path / "outside.txt"
    home_file = Path.home() / "aish-sandbox-test-write"
    authorization = await gate.authorize(
        gate.ProposedCommand(f"echo x > {home_file}; echo y >> src/main.py"),
        gate.Policy("norris", sandboxed=True, sandbox_destructive="run"),
        facts=ShellFactsSource(agent.session.state_report),
    )
    run = await agent.run_authorized(authorization, 30)
    assert "Read-only file system" in run.output
    assert run.notice is not None
    assert f"writes outside the tree are refused: {home_file}" in run.notice
    assert not home_file.exists()
    # /tmp inside is a private tmpfs: what is written there never reaches the host's /tmp.
    status, _, _ = await _run(agent, f"echo x > /tmp/private.txt && mkdir -p {tmp_path}/x")
    assert status == 0
    assert not Path("/tmp/private.txt").exists() and not (tmp_path / "x").exists()
    assert not outside.exists()
    changes = sandbox.changes()
    assert [(c.path, c.change) for c in changes.changes] == [("src/main.py", "modified")]


async def test_discard_leaves_the_tree_byte_identical(
    shell: tuple[AgentShell, Sandbox], tree: Path
) -> None:
    agent, sandbox = shell
    before = tree_state(tree)
    status, _, _ = await _run(
        agent,
        "rm -rf src && mkdir src && echo new > src/other.py && chmod 700 tool.sh "
        "&& truncate -s 10 data.bin && ln -s data.bin link && mkdir -p a/b/c",
    )
    assert status == 0
    changes = sandbox.changes()
    seen = {(c.path, c.change) for c in changes.changes}
    assert {("src/main.py", "deleted"), ("src/other.py", "created")} <= seen
    assert {("tool.sh", "mode"), ("data.bin", "modified"), ("link", "created")} <= seen
    await agent.close()
    sandbox.discard()
    assert tree_state(tree) == before
    assert not sandbox.base.exists()


def _unprivileged_user() -> str:
    """A non-root user to run the launcher as: an existing one, or one made here (root only)."""
    if os.getuid() != 0:
        pytest.skip("not root: cannot switch to another user (this run is unprivileged already)")
    if shutil.which("runuser") is None:
        pytest.skip("runuser is not installed")
    for entry in pwd.getpwall():
        if entry.pw_uid >= 1000 and entry.pw_name != "nobody" and entry.pw_uid != 65534:
            return entry.pw_name
    if shutil.which("useradd") is None:
        pytest.skip("no unprivileged user and no useradd to make one")
    subprocess.run(["useradd", "--no-create-home", "aish-sandbox-test"], check=True)
    return "aish-sandbox-test"


def test_the_sandbox_works_for_an_unprivileged_user(tmp_path: Path) -> None:
    user = _unprivileged_user()
    info = pwd.getpwnam(user)
    base = Path(tempfile.mkdtemp(prefix="aish-test-unpriv-", dir="/var/tmp"))
    try:
        for name in ("tree", "upper", "work", "rc"):
            (base / name).mkdir()
        (base / "tree" / "keep.txt").write_text("keep\n")
        (base / "tree" / "gone.txt").write_text("gone\n")
        for path in [base, *base.rglob("*")]:
            os.chown(path, info.pw_uid, info.pw_gid)
        spec = {
            "tree": str(base / "tree"),
            "upper": str(base / "upper"),
            "work": str(base / "work"),
            "keep": [str(base / "rc")],
            "cwd": str(base / "tree"),
            "network": False,
            "hide": ["/tmp", "/run", "/dev/shm"],
        }
        script = (
            "echo more >> keep.txt; rm gone.txt; echo new > new.txt; "
            "touch /var/tmp/aish-unpriv-outside 2>&1; id -u"
        )
        launcher = ["python3", "-I", "-S", str(LAUNCHER), json.dumps(spec)]
        done = subprocess.run(
            ["runuser", "-u", user, "--", *launcher, "/bin/sh", "-c", script],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode == 125:
            pytest.skip(f"no sandbox for an unprivileged user here: {done.stderr.strip()}")
        assert "Read-only file system" in done.stdout, done.stdout + done.stderr
        assert done.stdout.split()[-1] == "0"  # root inside its own user namespace
        assert not Path("/var/tmp/aish-unpriv-outside").exists()
        assert (base / "tree" / "keep.txt").read_text() == "keep\n"
        changes = scan_changes(base / "tree", base / "upper", 0)
        assert {(c.path, c.change) for c in changes.changes} == {
            ("keep.txt", "modified"),
            ("gone.txt", "deleted"),
            ("new.txt", "created"),
        }
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(base)], check=False)
        shutil.rmtree(base, ignore_errors=True)
