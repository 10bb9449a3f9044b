"""The option table read from real documentation: man pages as this machine's `man` prints
them, and `--help` text as the programs print it; and a command's words read against it."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from aish.explain.docs import find_documentation
from aish.explain.flag_words import read_flags
from aish.explain.option_table import OptionTable, read_option_table


def _man(name: str) -> OptionTable:
    docs = find_documentation(name)
    if docs is None or docs.source != "man":
        pytest.skip(f"no man page for {name} here (install man-db and manpages)")
    return read_option_table(docs.text, man_page=True)


def _help(name: str) -> OptionTable:
    path = shutil.which(name, path="/usr/bin:/bin")
    assert path is not None, f"{name} is part of every Debian system"
    text = subprocess.run(
        [path, "--help"], capture_output=True, text=True, check=False, env={"LC_ALL": "C"}
    ).stdout
    return read_option_table(text, man_page=False)


def test_tar_man_page_names_each_option_with_its_description() -> None:
    table = _man("tar")
    assert table.summary == ("tar - an archiving utility",)
    extract = table.entry("-x")
    assert extract is not None
    assert extract.names == ("-x", "--extract", "--get")
    assert extract.lines[0].startswith("Extract files from an archive")
    assert not extract.takes_value
    archive = table.entry("-f")
    assert archive is not None and archive.takes_value  # `-f, --file=ARCHIVE`
    directory = table.entry("--directory")
    assert directory is not None and directory.names[0] == "-C" and directory.takes_value


def test_ls_and_grep_man_pages() -> None:
    ls = _man("ls")
    entry = ls.entry("-a")
    assert entry is not None and entry.lines == ("do not ignore entries starting with .",)
    sort = ls.entry("--sort")
    assert sort is not None and sort.takes_value and "sort by WORD" in sort.lines[0]
    grep = _man("grep")
    regexp = grep.entry("-e")
    assert regexp is not None
    assert regexp.names == ("-e", "--regexp") and regexp.takes_value  # `-e PATTERNS, --regexp=…`
    invert = grep.entry("--invert-match")
    assert invert is not None and "non-matching" in " ".join(invert.lines)


def test_find_man_page_has_single_dash_long_options() -> None:
    find = _man("find")
    name = find.entry("-name")
    assert name is not None and name.takes_value  # `-name pattern`
    delete = find.entry("-delete")
    assert delete is not None and "Delete files" in " ".join(delete.lines)


def test_help_text_of_tar_and_ls() -> None:
    tar = _help("tar")
    assert tar.summary[0].startswith("Usage: tar")
    entry = tar.entry("-z")
    assert entry is not None and entry.lines == ("filter the archive through gzip",)
    # A description wrapped onto the next lines stays the same entry's.
    check = tar.entry("--check-device")
    assert check is not None
    assert check.lines == ("check device numbers when creating incremental", "archives (default)")
    ls = _help("ls")
    almost = ls.entry("-A")
    assert almost is not None and almost.names == ("-A", "--almost-all")


def test_a_dash_word_inside_a_description_opens_no_entry() -> None:
    text = (
        "  -o, --occurrence[=N]   process only the Nth occurrence; valid with\n"
        "                         -T option only, or with\n"
        "                         --delete\n"
        "  -q                     quiet\n"
    )
    table = read_option_table(text, man_page=False)
    assert [e.names for e in table.entries] == [("-o", "--occurrence"), ("-q",)]
    first = table.entries[0]
    assert first.lines[1:] == ("-T option only, or with", "--delete")
    assert not first.takes_value  # `[=N]` is optional: the next word is not its value


def test_a_paragraph_starting_with_an_option_does_not_hide_its_entry() -> None:
    text = (
        "DESCRIPTION\n"
        "       --help and --version are accepted by every command of this package,\n"
        "       which exits at once.\n"
        "\n"
        "OPTIONS\n"
        "       --help\n"
        "              display this help and exit\n"
    )
    entry = read_option_table(text, man_page=True).entry("--help")
    assert entry is not None and entry.lines == ("display this help and exit",)


def test_names_on_lines_of_their_own_share_the_description_below() -> None:
    text = "       -a\n       --all\n              show everything\n\n       -b     brief\n"
    table = read_option_table(text, man_page=True)
    assert [(e.names, e.lines) for e in table.entries] == [
        (("-a", "--all"), ("show everything",)),
        (("-b",), ("brief",)),
    ]


def test_combined_short_options_values_and_abbreviations() -> None:
    table = _man("tar")
    reading = read_flags(("-xzf", "a.tgz", "-C", "/tmp", "--ext", "--file=b.tar"), table)
    named = [(f.name, f.value, f.entry is not None) for f in reading.flags]
    assert named == [
        ("-x", None, True),
        ("-z", None, True),
        ("-f", "a.tgz", True),
        ("-C", "/tmp", True),
        ("--ext", None, True),  # unique prefix of --extract
        ("--file", "b.tar", True),
    ]
    assert reading.first_operand is None  # a.tgz and /tmp are the options' values
    # The rest of a bundle after a letter that takes a value is the value: `-C/tmp`.
    (directory,) = read_flags(("-C/tmp",), table).flags
    assert (directory.name, directory.value) == ("-C", "/tmp")
    # After `--` nothing is an option.
    assert read_flags(("--", "-x"), table).flags == ()
    # Undocumented options are still named.
    (unknown,) = read_flags(("--no-such-thing",), table).flags
    assert unknown.entry is None


def test_find_words_are_whole_options_where_documented() -> None:
    table = _man("find")
    reading = read_flags((".", "-name", "*.py", "-delete"), table)
    assert [(f.name, f.value) for f in reading.flags] == [("-name", "*.py"), ("-delete", None)]
    assert reading.first_operand == 0
