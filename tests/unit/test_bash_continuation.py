"""`unfinished`: when typed text needs another line, as bash's PS2 prompt decides.

The reference is bash itself: `bash -n` on an unfinished input says "unexpected end of file",
"unexpected EOF while looking for …" or "here-document … delimited by end-of-file". For a
trailing backslash `bash -n` has nothing to say (at the end of a file it just ends the word), so
a second probe appends a line `then`: after a finished input that is a syntax error, after a
continued line it is one more argument. The differential test runs both over every prefix of a
set of real multi-line commands, character by character.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from aish.safety.bash.continuation import unfinished

BASH = shutil.which("bash")
_AT_END = (
    "unexpected end of file",
    "unexpected EOF",
    "unexpected token `EOF'",
    "delimited by end-of-file",
)

# Finished multi-line inputs; every prefix of each is compared with bash.
SNIPPETS = [
    "for i in 1 2 3\ndo\n  echo $i\ndone",
    'for i in a \'b c\' "d"; do echo "$i"; done | sort',
    "for ((i = 0; i < 3; i++)); do\n  echo $((i * 2))\ndone",
    "for f do echo $f; done",
    'while read -r line; do\n  echo "[$line]"\ndone < file',
    "until [ -e x ]; do sleep 1; done && echo ok",
    "select x in a b; do break; done",
    "if [ -d /tmp ]; then\n  echo yes\nelif true; then echo maybe\nelse\n  echo no\nfi",
    "if [[ $x == a* && -n $y ]]; then echo m; fi",
    "case $1 in\n  start|up) echo go ;;\n  (stop) echo halt ;&\n  *) echo other ;;&\nesac",
    "case x in esac",
    "cat <<EOF\nhello $USER\n  indented\nEOF",
    "cat <<-END\n\tone\n\t\ttwo\n\tEND",
    "cat <<'EOF'\n$HOME stays\nEOF",
    'cat <<"X Y"\nbody\nX Y',
    "cat <<\\EOF\nraw\nEOF\necho after",
    "cat <<A <<-B\nfirst\nA\n\tsecond\n\tB",
    "cat <<EOF | tr a-z A-Z\nshout\nEOF",
    "echo one \\\n  two \\\n  three",
    'echo "unclosed\nclosed here"',
    "echo 'single\nquote'",
    "echo $'ansi\\'quote\\n'",
    'echo $"locale text"',
    "echo `date +%s` and `echo \\`nested\\``",
    "echo $(ls | wc -l) $(( 1 + (2 * 3) ))",
    "x=$(\n  echo a\n  echo b\n)",
    'echo "$(echo "in $(echo deep)")"',
    "echo ${HOME:-/tmp} ${#PATH} ${x/a/b}",
    "f() {\n  echo in f\n}",
    "g ()\n{\n  local y=1\n  echo $y\n}",
    "function h {\n  echo h\n}",
    "function k() ( echo sub )",
    "( cd /tmp && ls ) | head -1",
    "{ echo a; echo b; } > out 2>&1",
    "arr=(one two\n  three)\necho ${arr[@]}",
    "ls -la &&\n  echo done ||\n  echo failed",
    "ls |\n  grep x |&\n  wc -l",
    "echo a # a comment with ' and \" and \\\necho b",
    "diff <(ls a) >(cat) <<< 'here string'",
    "[[ -f x ||\n  -f y ]] && echo found",
    "time ls; ! false",
    "echo a; echo b & wait",
    'echo "it\'s fine" \'say "hi"\'',
    "x=1 y=2 env | grep -c x",
    "echo $(case a in a) echo A;; esac)",
    "echo {a,b}{1,2} ~/x *.py",
]

# Short texts, each a known answer: a wrong text is finished (Enter hands it on).
EXPECTED = {
    "what's wrong": "quote",
    "don't do that": "quote",
    "echo one \\": "backslash",
    "cat <<EOF": "heredoc",
    "a |": "operator",
    "a &&": "operator",
    "a ||": "operator",
    "a |&": "operator",
    "f()": "construct",
    "if true": "construct",
    "done": None,
    "echo >": None,
    "ls -la": None,
    "echo it's": "quote",
    'echo "it\'s"': None,
    "echo a # it's": None,
    "cat <<EOF\nfoo\\\nEOF": "heredoc",
    "cat <<'EOF'\nfoo\\\nEOF": None,
}


@pytest.mark.parametrize(("text", "kind"), EXPECTED.items())
def test_known_answers(text: str, kind: str | None) -> None:
    found = unfinished(text)
    assert (found.kind if found else None) == kind, found


def test_the_reason_names_what_is_open() -> None:
    cases = {
        "echo 'a": "an unclosed `'`",
        "cat <<-'END'": "a here-document waiting for its `END` line",
        "for i in 1 2": "an open `for`",
        "ls |": "a trailing `|`",
        "echo \\": "a backslash at the end of the line",
    }
    for text, reason in cases.items():
        found = unfinished(text)
        assert found is not None and found.reason == reason


def test_where_the_quote_opened() -> None:
    found = unfinished("what's wrong")
    assert found is not None and (found.kind, found.token, found.offset) == ("quote", "'", 4)


def _bash_says_unfinished(text: str) -> bool:
    assert BASH is not None
    first = subprocess.run(
        [BASH, "--norc", "--noprofile", "-n"], input=text + "\n", capture_output=True, text=True
    )
    # The first complaint is the one that counts: after it bash only recovers.
    complaint = first.stderr.partition("\n")[0]
    if any(sign in complaint for sign in _AT_END):
        return True
    if first.returncode != 0:
        return False  # wrong before its end
    probe = subprocess.run(
        [BASH, "--norc", "--noprofile", "-n"],
        input=text + "\nthen\n",
        capture_output=True,
        text=True,
    )
    return "`then'" not in probe.stderr


def _prefixes() -> list[str]:
    seen: dict[str, None] = {}
    for snippet in SNIPPETS:
        for end in range(1, len(snippet) + 1):
            prefix = snippet[:end]
            # A prefix ending in a newline is what Enter already ended; and a prefix that
            # ends in blanks is the same input as without them.
            if prefix.strip() and not prefix.endswith(("\n", " ", "\t")):
                seen[prefix] = None
    return list(seen)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_agrees_with_bash_on_every_prefix_of_real_commands() -> None:
    prefixes = _prefixes()
    assert len(prefixes) > 1000
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(_bash_says_unfinished, prefixes))
    disagreements = [
        (text, bash, unfinished(text))
        for text, bash in zip(prefixes, answers, strict=True)
        if bash != (unfinished(text) is not None)
    ]
    assert not disagreements, "\n".join(
        f"{text!r}: bash {'open' if bash else 'finished'}, ours {mine}"
        for text, bash, mine in disagreements[:40]
    )
    # Both kinds are well represented, so agreement is not trivial.
    assert 200 < sum(answers) < len(answers) - 200


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("snippet", SNIPPETS)
def test_every_snippet_is_finished(snippet: str) -> None:
    assert unfinished(snippet) is None
    assert not _bash_says_unfinished(snippet)


def _generated_program(rng: random.Random, depth: int = 0) -> str:
    """A random finished bash input built from the constructs people type over several lines."""
    simple = rng.choice(
        [
            "echo hi",
            "ls -l | wc -l",
            "echo 'a b' \"$HOME\"",
            "echo $(date) `pwd`",
            "true && echo ok || echo no",
            "x=$((1 + 2))",
            "echo one \\\n  two",
            'echo "first\nsecond"',
            "cat <<EOF\nbody $x\nEOF",
            "cat <<-'END'\n\tliteral $x\n\tEND",
            "[[ -n $x && $x != y ]]",
            "arr=(a\n  b)",
        ]
    )
    if depth >= 2 or rng.random() < 0.3:
        return simple
    inner = _generated_program(rng, depth + 1)
    sep = rng.choice(["\n", "; ", "\n  "])
    return rng.choice(
        [
            f"for i in 1 2{sep}do{sep}{inner}{sep}done",
            f"while false{sep}do {inner}{sep}done",
            f"if true{sep}then {inner}{sep}else {simple}{sep}fi",
            f"case $i in\n  a|b) {inner} ;;\n  *) {simple}\nesac",
            f"{{ {inner}{sep}}}",
            f"( {inner}{sep})",
            f"f() {{{sep}{inner}{sep}}}",
            f"echo $({inner}{sep})",
            f"{inner} |\n  cat",
            f"{inner} &&\n  {simple}",
        ]
    )


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_agrees_with_bash_on_every_prefix_of_generated_programs() -> None:
    rng = random.Random(18)
    programs = [_generated_program(rng) for _ in range(100)]
    prefixes = list(
        dict.fromkeys(
            p[:end]
            for p in programs
            for end in range(1, len(p) + 1)
            if p[:end].strip() and not p[:end].endswith(("\n", " ", "\t"))
        )
    )
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(_bash_says_unfinished, prefixes))
    disagreements = [
        (text, bash)
        for text, bash in zip(prefixes, answers, strict=True)
        if bash != (unfinished(text) is not None)
    ]
    assert not disagreements, disagreements[:20]
    assert len(prefixes) > 2000 and 300 < sum(answers) < len(answers) - 300
