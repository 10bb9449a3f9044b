"""What a model reads of a command's output: the screen's final text, bounded.

Each test feeds the bytes a program would write to its terminal and asserts the whole
`CapturedOutput`, or the whole text.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.shell.capture import CapturedOutput, OutputCapture
from aish.shell.capture.lines import LineCollector


def capture(data: bytes, command: str = "cmd", **limits: int) -> CapturedOutput:
    output = OutputCapture(**limits)
    output.feed(data)
    return output.result(command)


def text_of(data: bytes, **limits: int) -> str:
    return capture(data, "cmd", **limits).text


# -- rendering ----------------------------------------------------------------------------


def test_plain_lines() -> None:
    assert capture(b"hello\r\nworld\r\n") == CapturedOutput(
        text="hello\nworld",
        total_bytes=14,
        total_lines=2,
        omitted_lines=0,
        binary=False,
        alternate_screen=False,
    )


def test_bare_newlines_start_new_lines() -> None:
    assert text_of(b"one\ntwo\nthree") == "one\ntwo\nthree"


def test_empty_output() -> None:
    assert capture(b"") == CapturedOutput("", 0, 0, 0, False, False)


def test_colours_and_styles_are_removed() -> None:
    data = b"\x1b[1;31merror\x1b[0m: \x1b[38;5;208mdisk\x1b[m \x1b[38;2;1;2;3mfull\x1b[39m\r\n"
    assert text_of(data) == "error: disk full"


def test_progress_bar_collapses_to_the_final_state() -> None:
    data = b"Downloading\r\n" + b"".join(
        b"\r %3d%% [%-20s]" % (p, b"#" * (p // 5)) for p in range(0, 101, 5)
    )
    assert text_of(data + b"\r\ndone\r\n") == "Downloading\n 100% [####################]\ndone"


def test_erase_line_and_backspace() -> None:
    assert text_of(b"a long status line\r\x1b[Kshort\r\n") == "short"
    assert text_of(b"abc\b\bXY\r\n") == "aXY"
    assert text_of(b"12345\x1b[3D\x1b[K!\r\n") == "12!"
    assert text_of(b"keep this\x1b[1K\r\n") == ""
    assert text_of(b"gone\x1b[2K\rkept\r\n") == "kept"


def test_cursor_up_redraws_collapse_like_docker_pull() -> None:
    layers = [b"a1b2", b"c3d4", b"e5f6"]
    data = b"Pulling from library/demo\r\n"
    data += b"".join(layer + b": Waiting\r\n" for layer in layers)
    for step in range(1, 4):
        data += b"\x1b[%dA" % len(layers)
        for layer in layers:
            data += b"\x1b[2K\r" + layer + b": Downloading %d/3\r\n" % step
    data += b"\x1b[3A\x1b[2K\ra1b2: Pull complete\r\n\x1b[2B"
    data += b"Status: Downloaded newer image\r\n"
    assert text_of(data) == (
        "Pulling from library/demo\n"
        "a1b2: Pull complete\n"
        "c3d4: Downloading 3/3\n"
        "e5f6: Downloading 3/3\n"
        "Status: Downloaded newer image"
    )


def test_cursor_position_and_save_restore() -> None:
    data = b"first\r\nsecond\r\n\x1b7\x1b[1;6H line\x1b8third\r\n"
    assert text_of(data) == "first line\nsecond\nthird"


def test_tabs_expand_to_the_columns_shown() -> None:
    assert text_of(b"a\tbb\tccc\td\r\n") == "a       bb      ccc     d"
    assert text_of(b"name\tsize\r\nx\t1\r\n") == "name    size\nx       1"


def test_trailing_spaces_and_trailing_blank_lines_are_trimmed() -> None:
    assert capture(b"\r\nabc   \r\n\r\n  x  \r\n\r\n\r\n\r\n").text == "\nabc\n\n  x"
    assert capture(b"\r\n\r\n\r\n").total_lines == 0


def test_long_lines_are_not_cut_at_the_terminal_width() -> None:
    line = "".join(str(i % 10) for i in range(250))
    result = capture(line.encode() + b"\r\nnext\r\n", columns=80)
    assert result.text == line + "\nnext"
    assert result.total_lines == 2


def test_wide_and_combining_characters() -> None:
    assert text_of("中文 ok 👍 e\u0301 a\u0308\r\n".encode()) == "中文 ok 👍 é ä"
    # A wide character that does not fit the last column moves to the next row; the
    # logical line is still one line.
    assert text_of("abcd中文\r\n".encode(), columns=5) == "abcd中文"
    # Zero-width joiners and variation selectors stay with their character, and what
    # follows them is kept.
    assert text_of("👨\u200d👩 ❤\ufe0f x\r\n".encode()) == "👨\u200d👩 ❤\ufe0f x"


def test_overwriting_half_a_wide_character_blanks_the_other_half() -> None:
    assert text_of("中文\rx\r\n".encode()) == "x 文"


def test_control_bytes_inside_text_do_not_hide_the_rest() -> None:
    assert text_of(b"abc\x01\x02def\x7fghi\r\n") == "abcdefghi"


def test_osc_dcs_and_apc_payloads_are_not_text() -> None:
    data = (
        b"\x1b]0;window title\x07"
        b"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\"
        b"\x1bPq#0;2;0;0;0#1!10~\x1b\\"
        b"\x1b_Gf=100;AAAA\x1b\\"
        b" end\r\n"
    )
    assert text_of(data) == "link end"


def test_scroll_region_keeps_lines_scrolled_out_of_the_top() -> None:
    # apt: a status line pinned to the bottom row, output scrolling above it.
    data = b"\x1b[1;99r"
    data += b"".join(b"log %d\r\n" % i for i in range(150))
    data += b"\x1b7\x1b[100;1HProgress: [ 50%]\x1b8"
    data += b"\x1b[r\x1b[100;1H\x1b[2K\x1b[99;1H"
    lines = text_of(data, max_lines=1000).split("\n")
    assert lines == [f"log {i}" for i in range(150)]


def test_insert_and_delete_lines() -> None:
    # Delete line 2 of 3: what was below moves up, even a row never written to.
    assert text_of(b"one\r\ntwo\r\nthree\x1b[2;1H\x1b[M") == "one\nthree"
    assert text_of(b"\x1b[2;1Ha\x1b[M") == ""
    assert text_of(b"one\r\ntwo\x1b[1;1H\x1b[Lzero") == "zero\none\ntwo"


def test_clear_screen_keeps_only_what_follows() -> None:
    assert text_of(b"old\r\n\x1b[H\x1b[2Jnew\r\n") == "new"


# -- head and tail ------------------------------------------------------------------------


def test_head_and_tail_with_the_exact_number_of_omitted_lines() -> None:
    data = b"".join(b"line %d\r\n" % i for i in range(1000))
    result = capture(data)
    lines = result.text.split("\n")
    assert lines[:100] == [f"line {i}" for i in range(100)]
    assert lines[100] == "[… 801 lines omitted …]"
    assert lines[101:] == [f"line {i}" for i in range(901, 1000)]
    assert (result.total_lines, result.omitted_lines) == (1000, 801)
    assert len(lines) == 200


def test_output_within_the_limits_is_kept_whole() -> None:
    data = b"".join(b"line %d\r\n" % i for i in range(200))
    result = capture(data)
    assert result.text.split("\n") == [f"line {i}" for i in range(200)]
    assert result.omitted_lines == 0


def test_byte_bound() -> None:
    data = b"".join(b"%04d " % i + b"x" * 95 + b"\r\n" for i in range(1000))
    result = capture(data, max_lines=10_000, max_bytes=4096)
    lines = result.text.split("\n")
    marker = f"[… {result.omitted_lines} lines omitted …]"
    head, tail = lines[: lines.index(marker)], lines[lines.index(marker) + 1 :]
    assert len(result.text.encode()) <= 4096 + len(marker.encode()) + 1
    assert head[0].startswith("0000 ") and tail[-1].startswith("0999 ")
    assert result.total_lines == 1000
    assert result.omitted_lines == 1000 - len(head) - len(tail)
    assert [int(line[:4]) for line in head + tail] == [
        *range(len(head)),
        *range(1000 - len(tail), 1000),
    ]


def test_blank_lines_count_and_a_flood_of_them_is_bounded() -> None:
    data = b"start\r\n" + b"\r\n" * 100_000 + b"end\r\n"
    result = capture(data, max_lines=10)
    assert result.text == "start\n\n\n\n\n[… 99993 lines omitted …]\n\n\n\nend"
    assert (result.total_lines, result.omitted_lines) == (100_002, 99_993)


def test_one_giant_line_is_clipped_with_the_exact_byte_count() -> None:
    line = "".join(f"{i:07d}," for i in range(125_000))  # 1 MB
    result = capture(line.encode() + b"\r\nafter\r\n")
    first, second = result.text.split("\n")
    head, _, rest = first.partition("[… ")
    count, _, tail = rest.partition(" bytes omitted …]")
    assert line.startswith(head) and line.endswith(tail)
    assert int(count) == len(line) - len(head) - len(tail)
    assert 1000 < len(head) <= 2048 and 1000 < len(tail) <= 2048
    assert second == "after"
    assert result.total_lines == 2


def test_giant_line_of_multibyte_characters_counts_bytes() -> None:
    line = "é中" * 100_000
    result = capture(line.encode())  # no final newline either
    head, _, rest = result.text.partition("[… ")
    count, _, tail = rest.partition(" bytes omitted …]")
    assert line.startswith(head) and line.endswith(tail)
    assert int(count) == len(line.encode()) - len(head.encode()) - len(tail.encode())


def test_giant_line_is_clipped_after_its_trailing_blanks_are_stripped() -> None:
    # Blanks after the text are not part of the line: the tail shows the end of the text.
    limits = {"max_bytes": 256, "columns": 80}  # 32 bytes each side of the marker
    text = b"y" * 100
    expected = "y" * 32 + "[… 36 bytes omitted …]" + "y" * 32
    assert text_of(text + b" " * 300 + b"\r\nend\r\n", **limits) == expected + "\nend"
    assert text_of(b"\r\n\x1b[2P\x1b[H" + text, **limits) == expected  # blank cells below
    # Blanks inside the line are part of it, however many there are.
    spaced = text_of(b"a" + b" " * 10_000 + b"b\r\n", **limits)
    assert spaced == "a" + " " * 31 + "[… 9938 bytes omitted …]" + " " * 31 + "b"


def _clipped(line: str, half: int) -> str:
    """A logical line as the collector keeps it, computed from the whole line."""
    line = line.rstrip(" ")
    head = ""
    for char in line:
        if len((head + char).encode()) > half:
            break
        head += char
    rest = line[len(head) :]
    if len(rest.encode()) <= half:
        return line
    tail = ""
    for char in reversed(rest):
        if len((char + tail).encode()) > half:
            break
        tail = char + tail
    omitted = len(rest.encode()) - len(tail.encode())
    return f"{head}[… {omitted} bytes omitted …]{tail}"


ROW_TEXTS = st.one_of(
    st.text(st.sampled_from(["a", " ", " ", "é", "中", "👍"]), max_size=12), st.just(" " * 80)
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(ROW_TEXTS, st.booleans()), max_size=30),
    st.integers(1, 8),
    st.integers(1, 1200),
)
def test_soft_wrapped_rows_join_strip_then_clip(
    rows: list[tuple[str, bool]], max_lines: int, max_bytes: int
) -> None:
    half = max(64, max_bytes // 4) // 2
    collector = LineCollector(max_lines, max_bytes)
    reference = LineCollector(max_lines, max_bytes)  # given each whole line, clipped here
    parts: list[str] = []
    for text, wrapped in rows:
        collector.add_row(text, wrapped)
        parts.append(text)
        if not wrapped:
            reference.add_row(_clipped("".join(parts), half), False)
            parts = []
    if parts:
        reference.add_row(_clipped("".join(parts), half), False)
    assert collector.finish("note") == reference.finish("note")


# -- binary, full-screen programs, invalid UTF-8 --------------------------------------------


def test_nul_bytes_mean_binary() -> None:
    data = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 16
    assert capture(data) == CapturedOutput(
        text=f"[binary output, {len(data)} bytes]",
        total_bytes=len(data),
        total_lines=0,
        omitted_lines=0,
        binary=True,
        alternate_screen=False,
    )


def test_mostly_invalid_utf8_means_binary_even_without_nul() -> None:
    noise = bytes(b or 1 for b in random.Random(7).randbytes(20_000))
    result = capture(noise)
    assert result.binary and result.text == "[binary output, 20000 bytes]"


def test_binary_is_decided_on_the_first_kilobytes_and_stops_rendering() -> None:
    output = OutputCapture()
    output.feed(b"\x00" * 10_000)
    for _ in range(100):
        output.feed(b"plain text\r\n" * 100)
    assert output.result().text == f"[binary output, {10_000 + 100 * 1200} bytes]"


def test_invalid_utf8_in_text_becomes_replacement_characters() -> None:
    assert (
        text_of(b"caf\xe9 cr\xe8me\r\nok \xff\xfe end\r\n")
        == "caf\ufffd cr\ufffdme\nok \ufffd\ufffd end"
    )
    assert text_of(b"cut \xe2\x82") == "cut \ufffd"


def test_latin1_text_is_not_binary() -> None:
    data = "Café crème brûlée, à la française.\n".encode("latin-1") * 300
    result = capture(data)
    assert not result.binary
    assert (
        result.text.split("\n")[0]
        == "Caf\ufffd cr\ufffdme br\ufffdl\ufffde, \ufffd la fran\ufffdaise."
    )


@pytest.mark.parametrize("mode", [b"1049", b"1047", b"47"])
def test_full_screen_program_in_the_middle_of_normal_output(mode: bytes) -> None:
    data = (
        b"opening editor\r\n"
        b"\x1b[?"
        + mode
        + b"h\x1b[H\x1b[2J~\r\n~\r\n\x1b[1;1Hsecret buffer\x1b[24;1H-- INSERT --"
        + b"".join(b"\x1b[%d;1Hline %d" % (i, i) for i in range(1, 300))
        + b"\x1b[?"
        + mode
        + b"l"
        b"editor closed\r\n"
    )
    result = capture(data, command="vim notes.txt")
    assert result.text == (
        "opening editor\n[full-screen program vim notes.txt: screen not captured]\neditor closed"
    )
    assert result.alternate_screen
    assert result.total_lines == 3


def test_full_screen_program_still_running_and_note_without_command() -> None:
    data = b"partial line\x1b[?1049h\x1b[Hstill drawing"
    result = capture(data, command="")
    assert result.text == "partial line\n[full-screen program: screen not captured]"


def test_successive_full_screen_programs_make_one_note() -> None:
    data = b"\x1b[?1049hA\x1b[?1049l\r\n\x1b[?1049hB\x1b[?1049ldone\r\n"
    assert text_of(data) == "[full-screen program cmd: screen not captured]\ndone"


def test_note_uses_the_first_line_of_the_command() -> None:
    data = b"\x1b[?1049hx\x1b[?1049l"
    assert capture(data, command="  less\n  file  ").text == (
        "[full-screen program less: screen not captured]"
    )


# -- the object ---------------------------------------------------------------------------


def test_result_is_repeatable_and_feeding_may_continue() -> None:
    output = OutputCapture()
    output.feed(b"one\r\ntw")
    first = output.result()
    assert output.result() == first
    assert first.text == "one\ntw"
    output.feed(b"o\r\nthree\r\n")
    assert output.result().text == "one\ntwo\nthree"
    assert output.result().total_bytes == 17


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError):
        OutputCapture(max_lines=0)


def test_small_limits_still_show_the_marker() -> None:
    data = b"".join(b"%d\r\n" % i for i in range(10))
    assert text_of(data, max_lines=1) == "[… 10 lines omitted …]"
    assert text_of(data, max_lines=3) == "0\n[… 8 lines omitted …]\n9"


def test_origin_mode_without_a_scroll_region() -> None:
    assert text_of(b"a\r\n\x1b[?6h\x1b[3dz\x1b[?6l\r\n") == "a\n\nz"


def test_every_control_sequence_is_safe() -> None:
    params = ["", "0", "1", "2", "3", "5", "6", "7", "20", "47", "1049", "9999", "2;5", "5;2"]
    finals = [chr(c) for c in range(0x40, 0x7F)]
    sequences = [f"\x1b[{p}{q}{f}" for p in ["", "?", ">"] for q in params for f in finals]
    sequences += [f"\x1b{chr(c)}" for c in range(0x20, 0x7F)]
    for sequence in sequences:
        for setup in (b"", b"\x1b[?6h", b"\x1b[2;4r\x1b[?6h", b"\x1b[4h\x1b[?7l", b"\x1b7"):
            output = OutputCapture(columns=5)
            output.feed(b"ab\xe4\xb8\xad\r\ncd" + setup + sequence.encode() + b"x\tyz\r\n")
            output.result()


def test_arbitrary_bytes_never_raise() -> None:
    rnd = random.Random(3)
    pieces = [b"\x1b", b"[", b"?", b"1049", b"h", b"l", b";", b"9999", b"J", b"K", b"r", b"m",
              b"\r", b"\n", b"\b", b"\t", b"x", b"\xe4\xb8\xad", b"\xcc\x81", b"\xff", b"]",
              b"P", b"\x07", b"\\", b"@", b"L", b"M", b"P", b"S", b"T", b"4", b"20", b"3g", b"s",
              b"u", b"7", b"8", b"c", b"(0", b"#8", b"$p", b"\x9b", b">", b":"]  # fmt: skip
    for _ in range(300):
        output = OutputCapture(columns=rnd.choice([1, 2, 7, 80]), max_lines=5, max_bytes=200)
        for _ in range(rnd.randint(1, 60)):
            output.feed(b"".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 30))))
        result = output.result("x")
        assert result.total_lines >= result.omitted_lines >= 0


def test_skipped_bytes_are_counted_and_marked_where_they_were() -> None:
    capture = OutputCapture()
    capture.feed("a\nb\u00e9"[:-1].encode() + "\u00e9".encode()[:1])  # a character cut short
    capture.skip(1000)
    capture.feed(b"c\n")
    result = capture.result()
    assert result.text == "a\nb\ufffd\n[\u2026 1000 bytes omitted \u2026]\nc"
    assert result.total_bytes == len(b"a\nb") + 1 + 1000 + 2
