"""The scrubber's rules tried only where a match can start (`anchors`) find exactly what the
plain regexes find.

Each fast path is held to a straightforward reference on random text built from the pieces
the rules look for (flags, keywords, separators, quotes, URLs, planted tokens, line breaks,
the non-ASCII letters that case-blind matching folds to ASCII): the same matches, at the same
places, with the same groups, including where matches crowd or overlap.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aish.safety.secrets import contexts, patterns, shapes, structures, values
from aish.safety.secrets.anchors import (
    Anchored,
    AtLineStarts,
    Folded,
    fold,
    line_matches,
    literal_first,
    matches_from,
    positions,
)
from aish.safety.secrets.scrubber import SecretVault
from aish.safety.secrets.shapes import KnownShapes

from ..corpus_files import corpus_file

_PIECES = [
    # flags and keywords of the context rules, in several cases
    "-p", "-P", "-w", "-u", "-U", "-t", "-k", "-a", "-T", "-D", "--user", "--proxy-user",
    "--password", "--db-pass", "--api-key", "--Token", "-pass", "-passin", "pass:", "env:",
    "sshpass", "htpasswd -b", "chpasswd", "| sudo chpasswd", "password", "PASSWORD", "passwd",
    "passphrase", "token", "TOKEN", "secret", "Secret", "apikey", "api-key", "api_key", "API_KEY",
    "auth", "Authorization", "proxy-authorization", "Bearer", "basic", "aws", "AWS_SECRET",
    "_access_key", "key", "pw", "pwd", "credential", "cookie", "session", "dsn", "kind",
    "kind: Secret", '"kind": "Secret"', "define(", "-us", "-us1",
    # structure
    "=", "==", "=>", ":", "://", "@", "/", ".", "-", "_", "%", "|", " ", " ", "  ", "\t",
    "\n", "\n", "\r\n", '"', "'", "`", "$", "[", "]", "(", ")", ";", "&", "?",
    "https://", "postgres://u:", "x.y", "0x", "\\x", "00000010: ", "     3\t",
    # planted values
    "S3cr3tPassw0rd!", "hunter2", "ghp_" + "aB3" * 12, "AKIA" + "ABCD1234" * 2,
    "0123456789abcdef" * 2, "123456789:" + "AbC_d-" * 6, "M" + "a" * 24 + ".abcdef." + "b" * 30,
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "sk_live_" + "x9Y" * 8,
    # whole shapes, so that random text holds them often
    '"api_token"', "'Password'", '"token": "', "'db_pass' => '", "x-" * 6, "--" + "a-" * 12,
    "-" + "b" * 30 + "token ", "--aws-secret-key=", "abcdefghijklmnopqrstuvwxyz01234://",
    "0123456789abcdef" * 2 + "-us1", "echo 'bob:Pa55word!' | chpasswd",
    # letters that case-blind matching takes for ASCII ones, and other non-ASCII
    "\u212a", "\u017f", "\u0131", "\u0130", "é", "ü", "٣",
]  # fmt: skip
_TEXTS = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.text(alphabet="aZ09_.-", min_size=1, max_size=6)),
    max_size=40,
).map("".join)
_FAST = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _found(matches: object) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in matches]  # type: ignore[attr-defined]


_ANCHORED = {
    "url password": contexts.URL_PASSWORD,
    "auth header": contexts.AUTH_HEADER,
    "long flag": contexts.LONG_FLAG,
    "keyword value": contexts.KEYWORD_VALUE,
    "password value": contexts.PASSWORD_VALUE,
    "aws secret": contexts.AWS_SECRET,
    "htpasswd": contexts.HTPASSWD,
    **{
        f"token {rule.type} {n}": Anchored(rule.pattern, rule.starts)
        for n, rule in enumerate(patterns.TOKEN_FORMATS)
        if rule.starts is not None
    },
}


@pytest.mark.parametrize("name", list(_ANCHORED))
@_FAST
@given(text=_TEXTS)
def test_an_anchored_rule_finds_what_its_regex_finds(name: str, text: str) -> None:
    rule = _ANCHORED[name]
    assert _found(rule.finditer(text)) == _found(rule.pattern.finditer(text))
    assert _found(rule.finditer(text, fold(text))) == _found(rule.pattern.finditer(text))


@_FAST
@given(text=_TEXTS)
def test_sensitive_assignments_are_the_assignments_to_sensitive_names(text: str) -> None:
    """Every match of the name pattern whose name holds a sensitive part, and no other."""
    assert _found(contexts.SENSITIVE_ASSIGNMENT.finditer(text)) == _sensitive_reference(text)


def _sensitive_reference(text: str) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return _found(
        m
        for m in contexts._INLINE_NAME.finditer(text)
        if any(head in fold(m.group(1)) for head in contexts._SENSITIVE_HEADS)
    )


def _edges() -> list[str]:
    """Texts whose match lies at, just inside and just outside each window's reach."""
    texts = []
    for n in range(100):
        run = "a" * n
        texts += [
            f"-{run}password=S3cr3t!x9",
            f"x --{run}token Abc123XyZ789qwerTY",
            f"{run}://user:pw12345@host",
            f"see h{run}://u:Secret12@x",
            f'"{run}_token"=Abc123xyz9QQ',
            f"x {run}token=Abc123xyz9QQ",
            f"{run}_pw: S3cr3t!x9",
            f"{run[:40]}:{run[:60]}x | chpasswd",
            f"{'0' * n}:{'AbC_d-' * 6} " + "0123456789abcdef" * 2 + f"-us{n}",
        ]
    return texts


@pytest.mark.parametrize("text", _edges())
def test_matches_at_the_edge_of_reach_are_found(text: str) -> None:
    for name, rule in _ANCHORED.items():
        assert _found(rule.finditer(text)) == _found(rule.pattern.finditer(text)), name
    assert _found(contexts.SENSITIVE_ASSIGNMENT.finditer(text)) == _sensitive_reference(text)
    chpasswd = line_matches(contexts._CHPASSWD, text, positions(text, ("chpasswd",)))
    assert _found(chpasswd) == _found(contexts._CHPASSWD.finditer(text))


@_FAST
@given(text=_TEXTS)
def test_chpasswd_is_looked_for_on_its_own_lines(text: str) -> None:
    found = line_matches(contexts._CHPASSWD, text, positions(text, ("chpasswd",)))
    assert _found(found) == _found(contexts._CHPASSWD.finditer(text))


@_FAST
@given(text=_TEXTS)
def test_a_kubernetes_secret_is_told_as_the_regex_tells_it(text: str) -> None:
    assert structures._is_kubernetes_secret(text) == bool(structures._K8S_SECRET.search(text))


@_FAST
@given(text=_TEXTS)
def test_dump_prefixes_are_the_ones_the_regex_finds(text: str) -> None:
    assert _found(shapes._prefixes(text)) == _found(shapes._PREFIXES.finditer(text))


@_FAST
@given(text=_TEXTS)
def test_a_skeleton_is_what_substitution_and_translation_make(text: str) -> None:
    plain = shapes._PREFIXES.sub("", text) if shapes._has_prefixes(text) else text
    assert shapes.skeleton(text) == plain.translate(shapes._DELETE_SEPARATORS)


_MOVED = re.compile(
    r"(?P<flags>\(\?[a-z]+\))?(?P<literal>(?:[A-Za-z0-9_-]|\\[.\[(])+)"
    r"\(\?<!(?P<behind>.+?)\[\\s\\S\]\{\d+\}\)"
)


def _literal_first_regexes() -> dict[str, re.Pattern[str]]:
    """Every compiled rule whose look-behind `literal_first` moved behind its literal."""
    found = {}
    for module in (contexts, structures, patterns):
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and _MOVED.match(value.pattern):
                found[f"{module.__name__}.{name}"] = value
    for n, rule in enumerate(patterns.TOKEN_FORMATS):
        if _MOVED.match(rule.pattern.pattern):
            found[f"token {rule.type} {n}"] = rule.pattern
    return found


def _as_written(fast: str) -> str:
    """The pattern with its look-behind back in front of the literal, as a rule is written."""
    moved = _MOVED.match(fast)
    assert moved is not None
    flags = moved.group("flags") or ""
    return f"{flags}(?<!{moved.group('behind')}){moved.group('literal')}{fast[moved.end() :]}"


_LITERAL_FIRST = _literal_first_regexes()


def test_literal_first_covers_the_rules_it_was_meant_for() -> None:
    names = " ".join(_LITERAL_FIRST)
    for rule in ("_ATTACHED_P", "_CURL_USER", "_SSHPASS", "_HTPASSWD", "_PHP_DEFINE", "GITHUB"):
        assert rule in names
    assert literal_first(r"\bab+c") == r"a(?<!\w[\s\S]{1})b+c"  # a quantifier keeps its char
    assert literal_first(r"\b(?:a|b)") == r"\b(?:a|b)"  # no literal: left as written


@pytest.mark.parametrize("name", list(_LITERAL_FIRST))
@settings(max_examples=60, deadline=None)
@given(text=_TEXTS)
def test_a_literal_first_rule_finds_what_it_finds_as_written(name: str, text: str) -> None:
    fast = _LITERAL_FIRST[name]
    written = re.compile(_as_written(fast.pattern), fast.flags)
    assert _found(fast.finditer(text)) == _found(written.finditer(text))


def _as_written_rule(rule: patterns.TokenFormat) -> str:
    pattern = rule.pattern.pattern
    return _as_written(pattern) if _MOVED.match(pattern) else pattern


# Random text with tokens of every format planted in it, each made from its rule's own regex
# (so every head of a rule turns up: `ASIA…` as well as `AKIA…`, `https://ptb.discord…`).
_PLANTED = st.lists(
    st.one_of(
        st.sampled_from(_PIECES),
        st.text(alphabet="aZ09_.-", min_size=1, max_size=6),
        st.sampled_from(patterns.TOKEN_FORMATS).flatmap(
            lambda rule: st.from_regex(_as_written_rule(rule), fullmatch=True)
        ),
    ),
    max_size=12,
).map("".join)


@_FAST
@given(text=_PLANTED)
def test_token_rules_tried_at_their_heads_find_what_each_rule_finds_on_its_own(
    text: str,
) -> None:
    assert list(patterns.token_spans(text)) == list(patterns.plain_token_spans(text))


@pytest.mark.parametrize(
    "rule", [r for r in patterns.TOKEN_FORMATS if r.heads], ids=lambda r: r.type
)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_match_of_a_token_rule_starts_with_one_of_its_heads(
    rule: patterns.TokenFormat, data: st.DataObject
) -> None:
    token = data.draw(st.from_regex(_as_written_rule(rule), fullmatch=True))
    for match in rule.pattern.finditer(" " + token + " "):
        assert match.group().startswith(rule.heads)


def test_a_rule_with_several_heads_finds_each_wherever_it_stands() -> None:
    text = " ".join(("ASIA" + "Q7" * 8, "AKIA" + "Z3" * 8, "A3TX" + "1K" * 8, "ABIA" + "P0" * 8))
    found = list(patterns.token_spans(text))
    assert found == list(patterns.plain_token_spans(text))
    assert [t for _, _, t in found] == ["AWS_ACCESS_KEY"] * 4


def test_a_head_is_the_literal_a_pattern_opens_with() -> None:
    assert patterns._literal_head(re.compile(r"https?://x")) == ("http",)
    assert patterns._literal_head(re.compile(r"ya29\.[a-z]+")) == ("ya29.",)
    assert patterns._literal_head(re.compile(r"ab|cd")) == ()  # not every match opens with ab
    assert patterns._literal_head(re.compile(r"(?i)abc")) == ()
    assert patterns._literal_head(re.compile(r"\d{8}:")) == ()


def test_fold_takes_every_letter_a_case_blind_pattern_takes_for_an_ascii_one() -> None:
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    folded = fold(every)
    assert len(folded) == len(every)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        for match in re.finditer(f"(?i){letter}", every):
            assert folded[match.start()] == letter, hex(ord(match.group()))


_HEAD_WORDS = ["pass", "password", "passwd", "pw", "pwd", "token", "api", "apikey", "api-key"]


@_FAST
@given(text=_TEXTS, asked=st.lists(st.lists(st.sampled_from(_HEAD_WORDS), max_size=4), max_size=6))
def test_folded_text_finds_heads_as_a_search_of_each_does(
    text: str, asked: list[list[str]]
) -> None:
    """Whatever heads were asked before (`password` after `pass` is picked from its places)."""
    folded = Folded(fold(text))
    for heads in asked:
        plain = sorted(
            {m.start() for h in heads for m in re.finditer(f"(?={re.escape(h)})", fold(text))}
        )
        assert positions(folded, heads) == plain
    assert folded == fold(text)


def test_matches_from_skips_what_a_match_covered() -> None:
    pattern = re.compile(r"ab+")
    assert [m.span() for m in matches_from(pattern, "abbb ab", [0, 1, 2, 5])] == [(0, 4), (5, 7)]


def test_a_value_that_is_a_known_shape_adds_no_forms() -> None:
    token = "ghp_" + "Zq8rT2mN4xLp" * 3
    shapes_ = KnownShapes()
    shapes_.add(token, "T")
    size = len(shapes_)
    shapes_.add_unless_a_shape(token[::-1], "T")
    assert len(shapes_) == size
    shapes_.add_unless_a_shape("Qw7eRt9yUi2oPa5sDf", "T")
    assert len(shapes_) > size


def test_a_secret_replaced_once_is_found_in_another_shape_next_time() -> None:
    vault = SecretVault()
    first = vault.scrub("--password S3cr3tPassw0rd!x")
    assert "S3cr3tPassw0rd!x" not in first
    assert "x!dr0wssaPt3rc3S" not in vault.scrub("printed backwards: x!dr0wssaPt3rc3S")


def _corpus_texts() -> list[str]:
    path = corpus_file("secrets.jsonl")
    if path is None:
        pytest.skip("secrets corpus not found: set AISH_CORPUS_DIR or keep ../shared/corpus")
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


def test_on_the_corpus_every_fast_path_finds_what_its_regex_finds() -> None:
    texts = _corpus_texts()
    texts.append("\n".join(texts))  # and all of it at once: matches crowd, lines are long
    for text in texts:
        for name, rule in _ANCHORED.items():
            assert _found(rule.finditer(text)) == _found(rule.pattern.finditer(text)), name
        for name, fast in _LITERAL_FIRST.items():
            written = re.compile(_as_written(fast.pattern), fast.flags)
            assert _found(fast.finditer(text)) == _found(written.finditer(text)), name
        assert _found(shapes._prefixes(text)) == _found(shapes._PREFIXES.finditer(text))
        assert list(patterns.token_spans(text)) == list(patterns.plain_token_spans(text))


# Value judgements asked the fast way answer as the plain regexes answer.

_VALUE_CHARS = "aAeExX9_-./~$%{}()[]<>*#:\u212a\u017f\u0131\u0130é"
_VALUES = st.one_of(
    st.text(alphabet=_VALUE_CHARS, max_size=12),
    st.lists(
        st.sampled_from(
            [
                "example", "EXAMPLE", "Change_Me", "changethis", "change-this", "CHANGE_THIS",
                "chaNge_thıs", "change-thiſ", "placeholder", "REDACTED", "xxxx", "xXxX", "***",
                "...", "your-", "YOUR_", "yOur ", "<", ">", "[", "]", "{", "}", "(", ")", "%s",
                "%S", "$", "${", "$(", "{{", "}}", "<%", "%>", "#{", "%(x)s", "%PATH%",
                "process.env", "os.environ", "ENV[", "getenv(", "AISH_SECRET_X_1", "aaaa",
                "aA", "2024-01-02", "12.5", "get_token(", "./", "../", "/", "~", "-", "Zq8rT2mN",
                "\u212a", "\u0130", "\u0131", "\u017f", " ", "\t",
            ]
        )
        | st.text(alphabet=_VALUE_CHARS, max_size=3),
        max_size=8,
    ).map("".join),
)  # fmt: skip


def _plain_not_a_value(value: str) -> bool:
    lowered = value.lower()
    return bool(
        not value
        or any(map(str.isspace, value))
        or values.PLACEHOLDER.search(value)
        or values._REFERENCE.search(value)
        or lowered in values._DUMMY_WORDS
        or values._DUMMY_MARKERS.search(value)
        or values._NUMBER.fullmatch(value)
        or values._DATE.match(value)
        or values._CODE.match(value)
        or value[0] in "/~"
        or value.startswith(("./", "../"))
        or value.startswith("-")
    )


@settings(max_examples=2000, deadline=None)
@given(value=_VALUES)
def test_not_a_value_answers_as_its_plain_regexes_do(value: str) -> None:
    assert values._is_reference(value) == bool(values._REFERENCE.search(value))
    assert values._has_dummy_marker(value) == bool(values._DUMMY_MARKERS.search(value))
    assert values._not_a_value(value) == _plain_not_a_value(value)


def _plain_case_runs(value: str) -> float:
    kinds = [
        "u" if c.isupper() else "l" if c.islower() else "d" if c.isdigit() else "s" for c in value
    ]
    return (1 + sum(1 for a, b in pairwise(kinds) if a != b)) / len(value)


@settings(max_examples=500, deadline=None)
@given(value=st.text(min_size=1, max_size=40) | st.text(alphabet="aZ9_-é", min_size=1))
def test_case_runs_counts_as_the_plain_loop_does(value: str) -> None:
    assert values._case_runs(value) == _plain_case_runs(value)


def test_fold_gives_an_ascii_letter_only_for_what_a_case_blind_pattern_takes_for_it() -> None:
    """The converse of the test above: a word found in folded text is one a case-blind
    pattern finds in the text."""
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        folded = fold(char)
        if folded.isascii() and folded.isalpha():
            assert re.fullmatch(f"(?i){folded}", char), hex(code)


def test_a_word_character_is_what_isalnum_or_underscore_says() -> None:
    """Findings are widened to whole words with `\\w*` on the right and `str.isalnum` on the
    left: the two must agree on every character."""
    word = re.compile(r"\w")
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        assert bool(word.match(char)) == (char.isalnum() or char == "_"), hex(code)


def test_a_scrub_reads_assignment_lines_once_and_finds_what_find_secrets_finds() -> None:
    text = "export API_TOKEN=Zq8rT2mN4xLpQw7e\nsecret: hunter2hunter2X\n"
    from aish.safety.secrets.finder import find_secrets

    vault = SecretVault()
    scrubbed = vault.scrub(text)
    assert "Zq8rT2mN4xLpQw7e" not in scrubbed and "hunter2hunter2X" not in scrubbed
    lines = values.assignment_lines(text)
    assert find_secrets(text, {}, None, lines) == find_secrets(text)


_SKELETONS = st.text(min_size=0, max_size=80) | st.text(alphabet="ab\u0130\udc80é", max_size=7000)


@_FAST
@given(skel=_SKELETONS, data=st.data())
def test_samples_cut_by_struct_are_the_six_character_pieces_a_regex_cuts(
    skel: str, data: st.DataObject
) -> None:
    """Every `_GRAM` characters from the start, a shorter rest left out, each hit where it
    stands; lone surrogates
    (text decoded with `surrogateescape`) and rows of 1,024 samples and their rest too."""
    pieces = re.findall(r".{6}", skel, re.DOTALL)
    asked = data.draw(st.lists(st.sampled_from(pieces) | st.text(max_size=6))) if pieces else []
    index = dict.fromkeys(shapes._encoded(p) for p in asked)
    expected = [(6 * n, shapes._encoded(p)) for n, p in enumerate(pieces)]
    assert shapes._hit_samples(skel, index.keys()) == [h for h in expected if h[1] in index]
    every = {shapes._encoded(skel[i : i + 6]) for i in range(len(skel) - 5)}
    assert set(shapes._ALL_SAMPLES.findall(shapes._encoded(skel))) == every


def _plain_text_offset(text: str, offset: int) -> int:
    """A skeleton offset in the text, by a map of every separator run."""
    prefixes = shapes._prefixes(text) if shapes._has_prefixes(text) else []
    middle = shapes._without(text, prefixes)
    separators = shapes._Removals(shapes._SEPARATOR_RUNS.finditer(middle))
    return shapes._Removals(prefixes).before(separators.before(offset))


@_FAST
@given(text=_TEXTS, chunk=st.integers(min_value=1, max_value=40))
def test_a_position_map_made_chunk_by_chunk_maps_as_the_whole_map_does(
    text: str, chunk: int
) -> None:
    """At every skeleton offset and one past the last, asked in any order, across the
    edges of chunks (small ones here) and of separator runs that straddle them."""
    mapped = shapes._PositionMap(text, chunk)
    offsets = list(range(len(shapes.skeleton(text)) + 2))
    for offset in offsets[::-1] + offsets:
        assert mapped.start(offset) == _plain_text_offset(text, offset), offset


def test_a_known_value_in_another_shape_is_placed_where_it_stands_in_a_long_text() -> None:
    token = "Zq8rT2mN4xLpQw7eRt9yUi2o"
    text = "ls -la, a-b; c_d.\n" * 2000
    shaped = text + " ".join(token[::-1]) + "\n" + text + token.encode().hex() + "\n"
    vault = SecretVault()
    vault.learn({token: "TOKEN"})
    scrubbed = vault.scrub(shaped)
    assert len(re.findall(r"\bAISH_SECRET_TOKEN_\d\b", scrubbed)) == 2
    assert re.sub(r"AISH_SECRET_TOKEN_\d", "", scrubbed) == text + "\n" + text + "\n"


_LINE_PIECES = [
    "\n", "\n", "\r\n", " ", "\t", ":", ":", "=", '"', "'", "#", " #", "*", "5432", "db.host",
    "user", "S3cr3t!pw", "export ", "set -x ", "setenv ", "API_TOKEN", "password", "x://y",
    "db.host:5432:app:user:", "*:*:*:*:", "\nlocalhost:*:*:me:",
]  # fmt: skip
_LINES = st.lists(st.sampled_from(_LINE_PIECES) | st.sampled_from(_PIECES), max_size=30).map(
    "".join
)


@pytest.mark.parametrize(
    "pattern", [values._ASSIGNMENT_LINE, structures._PGPASS], ids=["assignment", "pgpass"]
)
@_FAST
@given(text=_LINES)
def test_a_line_pattern_tried_at_line_starts_finds_what_it_finds_everywhere(
    pattern: re.Pattern[str], text: str
) -> None:
    assert _found(AtLineStarts(pattern).finditer(text)) == _found(pattern.finditer(text))


def test_line_patterns_are_tried_at_line_starts() -> None:
    assert values._ASSIGNMENT_LINES.pattern is values._ASSIGNMENT_LINE
    assert structures._PGPASS_LINES.pattern is structures._PGPASS
    with pytest.raises(ValueError):
        AtLineStarts(re.compile("a$", re.MULTILINE))
