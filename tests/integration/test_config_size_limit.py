"""A config file larger than 1 MiB is refused with one line, without being read: real sparse
files, a FIFO and `/dev/zero`, read by the loader and by real `aish` processes."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from aish.config import load_config
from aish.config.bounded_read import MAX_CONFIG_BYTES, FileTooLarge, read_bounded
from aish.config.project import digest_of
from aish.session.trust import TrustOutcome, review_file
from aish.store import Store

AISH = [sys.executable, "-m", "aish"]


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as file:
        file.truncate(size)  # `truncate -s 3G`: no blocks written, no disk used
    return path


def _peak_rss_mib(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def test_a_3_gib_sparse_file_is_refused_by_its_size_alone(tmp_path: Path) -> None:
    big = _sparse(tmp_path / "big.toml", 3 << 30)
    before = _peak_rss_mib()
    with pytest.raises(FileTooLarge) as caught:
        read_bounded(big)
    assert _peak_rss_mib() - before < 64  # nothing of it was read (whole: 3 GiB more)
    assert str(caught.value) == "too large (3 GiB, the limit is 1 MiB)"


def test_up_to_the_limit_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_bytes(b"#" * MAX_CONFIG_BYTES)
    assert len(read_bounded(path)) == MAX_CONFIG_BYTES
    path.write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    with pytest.raises(FileTooLarge):
        read_bounded(path)


def test_dev_zero_behind_a_symlink_is_read_only_past_the_limit(tmp_path: Path) -> None:
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    with pytest.raises(FileTooLarge) as caught:
        read_bounded(link)
    assert caught.value.size is None


def test_a_fifo_nobody_writes_to_reads_as_empty_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    assert read_bounded(fifo) == b""


def test_an_endless_fifo_is_cut_past_the_limit(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)

    def write_forever() -> None:
        try:
            with fifo.open("wb") as writer:
                while True:
                    writer.write(b"a = 1\n" * 10_000)
        except BrokenPipeError:
            pass

    threading.Thread(target=write_forever, daemon=True).start()
    time.sleep(0.1)  # the writer is connected
    with pytest.raises(FileTooLarge):
        read_bounded(fifo)


def test_the_loader_warns_in_one_line_and_applies_the_rest(tmp_path: Path) -> None:
    user = _sparse(tmp_path / "config.toml", 3 << 30)
    loaded = load_config(config_path=user, env={}, autodetect=False)
    assert loaded.warnings == [f"{user}: not read: too large (3 GiB, the limit is 1 MiB)"]
    assert loaded.user_file == user and loaded.config.models == {}


def test_a_huge_project_file_is_ignored_even_if_trusted(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    big = _sparse(project / ".aish.toml", 3 << 30)
    loaded = load_config(
        env={}, autodetect=False, cwd=project, trusted_digest=lambda _p: digest_of(b"")
    )
    assert f"project config {big} ignored: too large (3 GiB, the limit is 1 MiB)" in (
        loaded.warnings
    )
    assert not loaded.project_trusted


def test_trust_refuses_a_huge_project_file(tmp_path: Path) -> None:
    big = _sparse(tmp_path / ".aish.toml", 3 << 30)
    with Store.open(tmp_path / "aish.db") as store:
        outcome = review_file(store, big)
        assert isinstance(outcome, TrustOutcome)
        assert outcome.lines == [f"{big}: too large (3 GiB, the limit is 1 MiB); not trusted"]
        assert not outcome.changed and store.project_trust(big) is None


def test_aish_in_a_repository_with_a_3_gib_project_file(xdg_home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _sparse(repo / ".aish.toml", 3 << 30)
    user = _sparse(tmp_path / "user.toml", 3 << 30)
    result = subprocess.run(
        [*AISH, "safety", "check", "--config", str(user), "ls"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        f"aish: {user}: not read: too large (3 GiB, the limit is 1 MiB)",
        f"aish: project config {repo / '.aish.toml'} ignored: "
        "too large (3 GiB, the limit is 1 MiB)",
    ]
    # Read whole, such a file took 3 GB of memory (and 8 to 16 s); the largest child this
    # test process ever waited for stays far below that.
    assert _peak_rss_mib(resource.RUSAGE_CHILDREN) < 1024
