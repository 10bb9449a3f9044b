"""Known values that leave in another shape (issue 17, item 5): the outputs are made by the real
tools (`rev`, `base32`, `xxd`, `od`, `fold`, `tr`, `sed`, `cut`, `hexdump`) from a real
environment, scrubbed, and searched for every form of the value by code that shares nothing
with the scrubber's own search."""

from __future__ import annotations

import base64
import codecs
import json
import os
import random
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from aish.safety.secrets.scrubber import SecretVault, sensitive_environment
from aish.safety.secrets.shapes import KnownShapes, _PositionMap, secret_core, shape_forms, skeleton

from ..corpus_files import corpus_file

TOKEN = "ghp_" + "Q7rT4vWz8NpB3yC1dEfGhIjKlMnOpQrStUvW"
PASSWORD = "Violet-Bramble61*"
SHORT_PASSWORD = "Zq8rT2mN"
ENV = {"GITHUB_TOKEN": TOKEN, "DB_PASSWORD": PASSWORD, "SMTP_PASSWORD": SHORT_PASSWORD}


def _run(command: str, cwd: Path | None = None) -> str:
    """`command`'s output, run by bash with the secrets in its environment."""
    for word in re.findall(r"(?:^|\| *)([a-z0-9]+)", command):
        if shutil.which(word) is None and word not in ("printenv", "echo", "printf"):
            pytest.skip(f"{word} is not installed")
    result = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
        cwd=cwd,
        check=True,
    )
    assert result.stdout, f"{command} printed nothing"
    return result.stdout


def _vault() -> SecretVault:
    vault = SecretVault()
    vault.learn(sensitive_environment(ENV))
    vault.learn({SHORT_PASSWORD: "PASSWORD"})  # eight characters: too short for the env rule
    return vault


def _alnum(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _windows(form: str, width: int) -> set[str]:
    return {form[i : i + width] for i in range(len(form) - width + 1)} if form else set()


def leftovers(scrubbed: str, value: str) -> list[str]:
    """Pieces of `value` still readable in `scrubbed` in any of the shapes: eight characters
    as they are, reversed or rot13 (case, separators and each line's first word ignored), eight
    bytes in hex, decimal or octal, twelve characters of the base64 or base32 of it or of it
    reversed, at any byte alignment, either way round."""
    without_first_words = re.sub(r"(?m)^[ \t]*\S+[ \t]", "", scrubbed)  # line numbers, offsets
    text = " ".join(
        _alnum(variant)
        for variant in (scrubbed, re.sub(r"0x|\\x", "", scrubbed), without_first_words)
    )
    raw = value.encode()
    char_forms = [_alnum(form) for form in (value, value[::-1])]
    char_forms += [_alnum(codecs.encode(form, "rot13")) for form in (value, value[::-1])]
    digit_forms = [raw.hex(), raw.hex()[::-1], raw[::-1].hex(), "".join(str(b) for b in raw)]
    digit_forms.append("".join(f"{b:03o}" for b in raw))
    encoded_forms = []
    for data in (raw, raw[::-1]):
        for shift in range(5):
            padded = b"\0" * shift + data
            if shift < 3:
                encoded_forms.append(_alnum(base64.b64encode(padded).decode()[4:-4]))
            encoded_forms.append(_alnum(base64.b32encode(padded).decode()[8:-8]))
    encoded_forms += [f[::-1] for f in encoded_forms]
    width = min(8, len(_alnum(value)))
    found = [w for f in char_forms for w in _windows(f, width) if w in text]
    found += [w for f in digit_forms for w in _windows(f, 16) if w in text]
    found += [w for f in encoded_forms for w in _windows(f, 12) if w in text]
    return found


TOKEN_COMMANDS = [
    "printenv GITHUB_TOKEN | rev",
    "printenv GITHUB_TOKEN | base32",
    "printenv GITHUB_TOKEN | base32 | rev",
    "printenv GITHUB_TOKEN | base64",
    "printenv GITHUB_TOKEN | base64 | rev",
    "printenv GITHUB_TOKEN | rev | base64",
    "printenv GITHUB_TOKEN | xxd -p",
    "printenv GITHUB_TOKEN | xxd -p | rev",
    "printenv GITHUB_TOKEN | rev | xxd -p",
    "printenv GITHUB_TOKEN | xxd -u -p",
    "printenv GITHUB_TOKEN | xxd",
    "printenv GITHUB_TOKEN | hexdump -C",
    "printenv GITHUB_TOKEN | od -c",
    "printenv GITHUB_TOKEN | od -An -tx1",
    "printenv GITHUB_TOKEN | od -tx1",
    "printenv GITHUB_TOKEN | od -An -tu1",
    "printenv GITHUB_TOKEN | od -b",
    "printenv GITHUB_TOKEN | fold -w4",
    "printenv GITHUB_TOKEN | fold -w1",
    "printenv GITHUB_TOKEN | sed 's/./& /g'",
    "printenv GITHUB_TOKEN | sed 's/./&-/g'",
    "printenv GITHUB_TOKEN | sed 's/./&\\n/g'",
    "printenv GITHUB_TOKEN | cut -c1-20",
    "printenv GITHUB_TOKEN | cut -c9-21",
    "printenv GITHUB_TOKEN | tr 'A-Za-z' 'N-ZA-Mn-za-m'",
    "printenv GITHUB_TOKEN | tr a-z A-Z",
    "printenv GITHUB_TOKEN | rev | tr 'A-Za-z' 'N-ZA-Mn-za-m' | fold -w7",
    "printenv GITHUB_TOKEN | od -An -tx1 | tr -d ' \\n'",
    "printenv GITHUB_TOKEN | od -An -tx1 | sed 's/ /\\\\x/g'",
    "printenv GITHUB_TOKEN | xxd -i",
    "(printf 'user:'; printenv GITHUB_TOKEN) | base64",
    "(printf 'xy'; printenv GITHUB_TOKEN) | base32",
    "env | od -c",
    "env | xxd",
    "env | base64",
    "env | rev",
    "python3 -c 'import os; print(list(os.environ[\"GITHUB_TOKEN\"]))'",
    "printenv GITHUB_TOKEN | grep -o .",
    "printenv GITHUB_TOKEN | fold -w4 | cat -n",
    "printenv GITHUB_TOKEN | fold -w3 | nl",
    "printenv GITHUB_TOKEN | od -w4 -c",
    "printenv GITHUB_TOKEN | od -w4 -An -tx1",
    "printenv GITHUB_TOKEN | xxd -c 4 -p",
]


@pytest.mark.parametrize("command", TOKEN_COMMANDS)
def test_a_token_in_another_shape_is_scrubbed(command: str) -> None:
    output = _run(command)
    assert leftovers(output, TOKEN), "the test's own search finds nothing in the raw output"
    scrubbed = _vault().scrub(output)
    assert leftovers(scrubbed, TOKEN) == [], scrubbed


@pytest.mark.parametrize(
    "command",
    [
        "printenv DB_PASSWORD | od -c",
        "printenv DB_PASSWORD | rev",
        "printenv DB_PASSWORD | sed 's/./& /g'",
        "printenv DB_PASSWORD | xxd -p",
        "printenv DB_PASSWORD | base32",
        "printenv SMTP_PASSWORD | od -c",
        "printenv SMTP_PASSWORD | rev",
        "printenv SMTP_PASSWORD | fold -w2",
        "printenv SMTP_PASSWORD | xxd",
    ],
)
def test_a_password_in_another_shape_is_scrubbed(command: str) -> None:
    value = PASSWORD if "DB_" in command else SHORT_PASSWORD
    output = _run(command)
    assert leftovers(output, value)
    scrubbed = _vault().scrub(output)
    assert leftovers(scrubbed, value) == [], scrubbed


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    folder = tmp_path_factory.mktemp("keys")
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "rsa", "-b", "1024", "-m", "PEM", "-N", "", "-f", "key.pem"],
        cwd=folder,
        check=True,
    )
    return folder / "key.pem"


def _body(pem: str) -> str:
    return "".join(line for line in pem.splitlines() if not line.startswith("-----"))


@pytest.mark.parametrize("command", ["rev key.pem", "tac key.pem", "tac key.pem | rev"])
def test_a_key_file_turned_around_is_scrubbed_unseen(key_file: Path, command: str) -> None:
    output = _run(command, cwd=key_file.parent)
    scrubbed = SecretVault().scrub(output)  # nothing known: the armour gives it away
    body = _body(key_file.read_text())
    assert "PRIVATE KEY" in scrubbed or "YEK ETAVIRP" in scrubbed
    assert [w for w in _windows(body, 16) if w in scrubbed or w[::-1] in scrubbed] == []


@pytest.mark.parametrize(
    "command",
    [
        "rev key.pem | grep -v -- -----",
        "grep -v -- ----- key.pem | rev | tr 'A-Za-z' 'N-ZA-Mn-za-m'",
        "xxd key.pem",
        "xxd -p key.pem",
        "od -c key.pem",
        "grep -v -- ----- key.pem | cut -c1-20",
    ],
)
def test_a_key_seen_once_is_scrubbed_in_any_shape(key_file: Path, command: str) -> None:
    vault = SecretVault()
    vault.scrub(key_file.read_text())  # `cat key.pem` earlier in the session
    output = _run(command, cwd=key_file.parent)
    scrubbed = vault.scrub(output)
    lines = [line for line in key_file.read_text().splitlines() if not line.startswith("-----")]
    for line in lines:
        assert leftovers(scrubbed, line) == [], (line, scrubbed[:2000])


def test_scrubbed_shapes_round_trip_and_stay_scrubbed() -> None:
    output = "".join(_run(c) for c in TOKEN_COMMANDS[:12])
    vault = _vault()
    scrubbed = vault.scrub(output)
    assert vault.rehydrate(scrubbed) == output
    assert vault.scrub(scrubbed) == scrubbed
    assert vault.unknown_placeholders(scrubbed) == []


# --- what stays untouched ------------------------------------------------------------------


def _negatives() -> list[str]:
    path = corpus_file("secrets.jsonl")
    if path is None:
        pytest.skip("secrets corpus not found")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row["text"] for row in rows if not row["secrets"]]


def test_corpus_negatives_stay_untouched_with_values_known() -> None:
    changed = [text[:80] for text in _negatives() if _vault().scrub(text) != text]
    assert changed == []


@pytest.mark.parametrize(
    "command",
    [
        "head -c 3000 /bin/sh | xxd",
        "head -c 2000 /bin/sh | od -c",
        "head -c 3000 /bin/sh | base64",
        "printf 'the quick brown fox jumps over the lazy dog\\n' | rev | fold -w4",
        "seq 1 2000 | od -An -tx1",
        "printenv HOME | xxd -p",
    ],
)
def test_other_dumps_stay_untouched(command: str) -> None:
    output = _run(command)
    assert _vault().scrub(output) == output


def test_a_urls_host_is_no_secret_only_its_password() -> None:
    url = "postgres://app:Zq8rT2mN4xLp@db.prod.example.com:5432/app"
    assert secret_core(url) == "Zq8rT2mN4xLp"
    vault = SecretVault()
    vault.learn({url: "ENV_DATABASE_URL"})
    assert vault.scrub("connecting to db.prod.example.com:5432/app") == (
        "connecting to db.prod.example.com:5432/app"
    )
    assert "pLx4Nm2Tr8qZ" not in vault.scrub("it printed pLx4Nm2Tr8qZ")  # the password reversed


def test_forms_are_built_once_per_value() -> None:
    shape_forms.cache_clear()
    shapes = KnownShapes()
    shapes.add(TOKEN, "ENV_GITHUB_TOKEN")
    size = len(shapes)
    shapes.add(TOKEN, "ENV_GITHUB_TOKEN")
    assert len(shapes) == size and shape_forms.cache_info().misses == 1


@pytest.mark.parametrize(
    "text",
    [
        "0" * 1_000_000,
        (TOKEN[:11] + " ") * 80_000,
        (TOKEN[::-1][:11] + "\n") * 80_000,
        TOKEN.encode().hex()[:22] * 45_000,
    ],
    ids=["zeros", "near-misses", "reversed-near-misses", "hex-near-misses"],
)
def test_a_megabyte_of_near_misses_stays_fast(text: str) -> None:
    shapes = KnownShapes()
    shapes.add(TOKEN, "T")
    shapes.add("Ab000000Zq8rT2mN4x", "T")
    started = time.perf_counter()
    list(shapes.spans(text))
    # Not a speed claim (bench/scrub.py measures the scrubber's speed): the scan is linear.
    # A megabyte takes up to 4 s here on a busy machine; a quadratic scan (10^12 steps) would
    # take hours, so a generous 40 s still tells them apart.
    assert time.perf_counter() - started < 40


def test_skeleton_offsets_lead_back_to_the_same_characters() -> None:
    rng = random.Random(17)
    alphabet = "ab0xX\\ -_.:\n+=%\t123"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        skel = skeleton(text)
        positions = [_PositionMap(text).start(k) for k in range(len(skel))]
        assert "".join(text[i] for i in positions) == skel, text
        assert positions == sorted(set(positions)), text
