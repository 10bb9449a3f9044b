"""Unified diffs are found in replies, checked hunk by hunk, summarised and kept in the project."""

from __future__ import annotations

import os
from pathlib import Path

from aish.agent.diffs import (
    FileChange,
    ProposedDiff,
    extract_diffs,
    file_sections,
    outside_project,
    summary_line,
)
from aish.ui.render.diff_text import render_diff

ONE_FILE = """\
--- a/src/app.py
+++ b/src/app.py
@@ -1,3 +1,4 @@
 import os
-x = 1
+x = 2
+y = 3
 print(x)
"""

MULTI = """\
diff --git a/src/app.py b/src/app.py
index 83db48f..bf269f4 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,2 +1,2 @@
 import os
-x = 1
+x = 2
@@ -10,2 +10,3 @@ def main():
     run()
+    stop()
     return 0
diff --git a/README.md b/README.md
new file mode 100644
--- /dev/null
+++ b/README.md
@@ -0,0 +1 @@
+hello
\\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-gone
-too
"""


def _diff(*paths: str) -> ProposedDiff:
    return ProposedDiff("", tuple(FileChange(p, p, 1, 0) for p in paths))


def test_fenced_diff() -> None:
    reply = f"Change it like this:\n\n```diff\n{ONE_FILE}```\n\nThen run the tests."
    [diff] = extract_diffs(reply)
    assert diff.text == ONE_FILE
    assert diff.files == (FileChange("src/app.py", "src/app.py", 2, 1),)


def test_patch_fence_and_unlabelled_fence() -> None:
    for opening in ("```patch", "```", "~~~diff"):
        closing = opening[:3]
        [diff] = extract_diffs(f"{opening}\n{ONE_FILE}{closing}\n")
        assert diff.text == ONE_FILE


def test_bare_diff_between_prose() -> None:
    reply = f"Apply this:\n{ONE_FILE}\nThat adds y.\n"
    [diff] = extract_diffs(reply)
    assert diff.text == ONE_FILE
    assert summary_line(diff) == "1 file: src/app.py +2 -1"


def test_diff_in_another_language_fence_is_not_taken() -> None:
    assert extract_diffs(f"```python\n{ONE_FILE}```\n") == []


def test_multi_file_git_diff() -> None:
    [diff] = extract_diffs(f"```diff\n{MULTI}```")
    assert diff.text == MULTI
    assert diff.files == (
        FileChange("src/app.py", "src/app.py", 2, 1),
        FileChange(None, "README.md", 1, 0),
        FileChange("old.txt", None, 0, 2),
    )
    assert summary_line(diff) == (
        "3 files: src/app.py +2 -1, README.md +1 -0 (new), old.txt +0 -2 (deleted)"
    )
    assert [len(lines) for _, lines in file_sections(diff)] == [12, 7, 7]


def test_two_diffs_in_one_reply() -> None:
    other = ONE_FILE.replace("src/app.py", "lib/b.py")
    diffs = extract_diffs(f"First:\n```diff\n{ONE_FILE}```\nSecond:\n{other}\nDone.")
    assert [d.files[0].path for d in diffs] == ["src/app.py", "lib/b.py"]


def test_crlf_and_timestamps() -> None:
    text = (
        "--- a/x/y.txt\t2024-01-01 10:00:00\n+++ b/x/y.txt\t2024-01-02 10:00:00\n"
        "@@ -1 +1 @@\n-a\n+b\n"
    )
    [diff] = extract_diffs("```diff\r\n" + text.replace("\n", "\r\n") + "```\r\n")
    assert diff.text == text
    assert diff.files == (FileChange("x/y.txt", "x/y.txt", 1, 1),)


def test_trimmed_empty_context_line_counts_as_context() -> None:
    text = "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n"
    [diff] = extract_diffs(f"```diff\n{text}```")
    assert diff.files == (FileChange("f.py", "f.py", 1, 1),)


def test_hunk_shorter_than_its_header_is_skipped() -> None:
    short = ONE_FILE.replace("@@ -1,3 +1,4 @@", "@@ -1,4 +1,4 @@")
    assert extract_diffs(f"```diff\n{short}```") == []
    assert extract_diffs(f"Try:\n{short}\nok?") == []


def test_hunk_longer_than_its_header_is_skipped() -> None:
    long = ONE_FILE.replace("@@ -1,3 +1,4 @@", "@@ -1,3 +1,3 @@")
    assert extract_diffs(f"```diff\n{long}```") == []
    assert extract_diffs(f"Try:\n{long}") == []


def test_one_bad_hunk_skips_the_whole_diff() -> None:
    broken = MULTI.replace("@@ -10,2 +10,3 @@", "@@ -10,2 +10,4 @@")
    assert extract_diffs(f"```diff\n{broken}```") == []
    assert extract_diffs(broken) == []


def test_malformed_diffs_are_skipped() -> None:
    cases = [
        "--- a/f\n+++ b/f\n",  # no hunk
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n*b\n",  # a line no hunk can hold
        "--- a/f\n+++ b/f\n@@ bogus @@\n-a\n+b\n",  # unreadable hunk header
        "--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n",  # nothing for -p1 to strip
        "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n",
        "diff --git a/f b/f\nindex 1..2\nBinary files a/f and b/f differ\n",
        "@@ -1 +1 @@\n-a\n+b\n",  # hunks without file names
    ]
    for text in cases:
        assert extract_diffs(f"```diff\n{text}```") == [], text
        assert extract_diffs(text) == [], text


def test_fence_with_trailing_prose_is_skipped() -> None:
    assert extract_diffs(f"```diff\n{ONE_FILE}and this is not a diff\n```") == []


def test_git_rename_without_changes() -> None:
    text = (
        "diff --git a/old name.txt b/new name.txt\nsimilarity index 100%\n"
        "rename from old name.txt\nrename to new name.txt\n"
    )
    [diff] = extract_diffs(f"```diff\n{text}```")
    assert diff.files == (FileChange("old name.txt", "new name.txt", 0, 0),)
    assert summary_line(diff) == "1 file: new name.txt +0 -0 (from old name.txt)"


def test_quoted_git_paths() -> None:
    text = (
        'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"\n'
        '--- "a/caf\\303\\251.txt"\n+++ "b/caf\\303\\251.txt"\n@@ -1 +1 @@\n-a\n+b\n'
    )
    [diff] = extract_diffs(text)
    assert diff.files == (FileChange("café.txt", "café.txt", 1, 1),)


def test_removed_line_that_looks_like_a_header_stays_in_its_hunk() -> None:
    text = "--- a/f.md\n+++ b/f.md\n@@ -1,2 +1,1 @@\n--- a/x\n+++ b/x\n"
    # "-- a/x" removed and "++ b/x" added would be 1 and 1: the header says -2 +1, so malformed.
    assert extract_diffs(text) == []
    good = "--- a/f.md\n+++ b/f.md\n@@ -1,2 +1,2 @@\n--- a/x\n+++ b/x\n-y\n+z\n"
    [diff] = extract_diffs(good)
    assert diff.files == (FileChange("f.md", "f.md", 2, 2),)


def test_outside_project_relative_paths_inside(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert (
        outside_project(_diff("src/app.py", "new/dir/file.txt", "src/../ok.txt"), str(tmp_path))
        == []
    )


def test_outside_project_dotdot_and_absolute(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    diff = _diff("../escape.txt", "src/../../x", "/etc/passwd", "fine.txt", ".git/hooks/pre-commit")
    assert outside_project(diff, str(root)) == [
        "../escape.txt",
        "src/../../x",
        "/etc/passwd",
        ".git/hooks/pre-commit",
    ]


def test_outside_project_from_a_real_reply(tmp_path: Path) -> None:
    reply = "--- a/../../etc/hosts\n+++ b//etc/hosts\n@@ -1 +1 @@\n-a\n+b\n"
    [diff] = extract_diffs(reply)
    assert diff.files == (FileChange("../../etc/hosts", "/etc/hosts", 1, 1),)
    assert outside_project(diff, str(tmp_path)) == ["../../etc/hosts", "/etc/hosts"]


def test_outside_project_symlinked_parent(tmp_path: Path) -> None:
    root = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    os.symlink(elsewhere, root / "link")
    os.symlink(root / "inner", root / "alias")  # a symlink that stays inside is fine
    (root / "inner").mkdir()
    diff = _diff("link/file.txt", "alias/file.txt")
    assert outside_project(diff, str(root)) == ["link/file.txt"]


def test_outside_project_through_a_symlinked_root(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "root-link")
    assert outside_project(_diff("a.txt"), str(tmp_path / "root-link")) == []


def test_render_plain_and_coloured() -> None:
    [diff] = extract_diffs(MULTI)
    plain = render_diff(diff, color=False, width=40)
    assert "\x1b" not in plain
    lines = plain.splitlines()
    assert lines[0] == "── src/app.py +2 -1 " + "─" * 20
    assert lines[1:4] == ["@@ -1,2 +1,2 @@", " import os", "-x = 1"]
    assert "── README.md +1 -0 (new) " in plain
    assert "diff --git" not in plain and "index 83db48f" not in plain
    coloured = render_diff(diff, color=True, width=40)
    assert "\x1b[32m+x = 2" in coloured
    assert "\x1b[31m-x = 1" in coloured
    assert "\x1b[36m@@ -1,2 +1,2 @@" in coloured


def test_render_shows_control_characters() -> None:
    text = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+\x1b]0;pwned\x07b\n"
    [diff] = extract_diffs(text)
    for color in (False, True):
        shown = render_diff(diff, color=color, width=60)
        assert "\x1b]" not in shown and "\x07" not in shown
        assert "+^[]0;pwned^Gb" in shown
