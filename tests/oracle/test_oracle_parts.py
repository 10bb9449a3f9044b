"""The oracle's parts that need no sandbox: the command sets and the strace parser."""

from __future__ import annotations

import pytest

from ..corpus_files import corpus_file
from .cases import all_cases, generated_cases, is_safe
from .sandbox import HOME, judge, parse


def test_the_corpus_commands_are_among_the_cases() -> None:
    if corpus_file("commands.tsv") is None:
        pytest.skip("commands corpus not found: set AISH_CORPUS_DIR or keep ../shared/corpus")
    assert sum(1 for case in all_cases() if case.source == "corpus" and is_safe(case)) > 100


def test_every_family_is_generated_the_same_every_time() -> None:
    generated = generated_cases()
    families = {case.source for case in generated}
    assert families >= {
        "generated:runtime-data",
        "generated:shell-state",
        "generated:repo-config",
        "generated:egress",
    }
    assert len(generated) > 150
    assert generated == generated_cases(), "the generated set must be deterministic"


def test_an_interrupted_call_is_still_an_attempt() -> None:
    calls = parse(
        '7     openat(AT_FDCWD</p>, "x", O_WRONLY|O_CREAT <unfinished ...>\n'
        '8     execve("/usr/bin/ls", ["ls"], 0x0 /* 3 vars */) = 0\n'
        "7     <... openat resumed>, 0666) = 3</p/x>\n"
        '9     unlinkat(AT_FDCWD</p>, "y", 0 <unfinished ...>\n'
    )
    assert [(c.pid, c.name, c.result) for c in calls] == [
        (7, "openat", "3</p/x>"),
        (8, "execve", "0"),
        (9, "unlinkat", "?"),
    ]
    assert calls[0].args == 'AT_FDCWD</p>, "x", O_WRONLY|O_CREAT, 0666'


def test_a_thread_runs_its_parents_program_even_when_printed_before_the_clone_returns() -> None:
    # A Go program's threads start before strace prints the id `clone` returns; the cache
    # terraform keeps in ~/.terraform.d is allowed to terraform, whichever thread writes it.
    trace = (
        '5     execve("/usr/local/bin/terraform", ["terraform", "state", "list"], 0x0) = 0\n'
        "5     clone(child_stack=0xc000, flags=CLONE_VM|CLONE_THREAD <unfinished ...>\n"
        f'18    mkdirat(AT_FDCWD</home/user/project>, "{HOME}/.terraform.d", 0755) = 0\n'
        "5     <... clone resumed>, tls=0xc000) = 18\n"
    )
    calls = parse(trace)
    assert [c.name for c in calls] == ["execve", "clone", "mkdirat"]
    assert judge("terraform state list", calls).violations == []
    elsewhere = trace.replace(f"{HOME}/.terraform.d", f"{HOME}/.bashrc.d")
    assert judge("terraform state list", parse(elsewhere)).violations != []
