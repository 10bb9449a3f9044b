"""A line read as the programs it runs, each with its own words (the safety room's parse)."""

from __future__ import annotations

from aish.explain.command_parts import command_parts


def _parts(line: str) -> list[tuple[str | None, tuple[str | None, ...]]]:
    parts, _ = command_parts(line)
    return [(part.program, part.words) for part in parts]


def test_pipelines_lists_and_substitutions_in_order() -> None:
    assert _parts("ls -la | grep -v x && echo $(date +%s)") == [
        ("ls", ("-la",)),
        ("grep", ("-v", "x")),
        ("echo", (None,)),
        ("date", ("+%s",)),
    ]


def test_a_wrapper_and_what_it_runs_are_two_parts() -> None:
    assert _parts("sudo -u root env A=1 tar -xf a.tgz") == [
        ("sudo", ("-u", "root")),
        ("env", ("A=1",)),
        ("tar", ("-xf", "a.tgz")),
    ]


def test_code_handed_to_a_shell_is_read_again() -> None:
    assert _parts("bash -ec 'rm -rf build'") == [
        ("bash", ("-ec", "rm -rf build")),
        ("rm", ("-rf", "build")),
    ]
    # The code's words stay the wrapper's too: only the parse knows where they start.
    assert _parts("watch -n 5 'df -h'") == [("watch", ("-n", "5", "df -h")), ("df", ("-h",))]


def test_a_computed_name_and_a_syntax_error() -> None:
    parts, error = command_parts('$tool -x; echo "open')
    assert (parts[0].written, parts[0].program) == ("$tool", None)
    assert error is not None
