"""The secrets scrubber: findings, the vault's placeholders, encodings, and what it leaves alone."""

from __future__ import annotations

import base64
import itertools
import json
import re
from urllib.parse import quote

import pytest

from aish.safety.secrets.scrubber import (
    PLACEHOLDER,
    Finding,
    SecretVault,
    UnknownPlaceholder,
    env_file_values,
    find_secrets,
    sensitive_environment,
)

GH = "ghp_" + "Q7rT4vWz8NpB3yC1dEfGhIjKlMnOpQrStUvW"
GH2 = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AKIA = "AKIAQ7RT4VWZ8NPB3YC1"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"[:36] + "Zx9Q"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def _types(text: str) -> list[tuple[str, str]]:
    return [(f.type, f.value) for f in find_secrets(text)]


# --- what is found -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret", "type_"),
    [
        (f"export GITHUB_TOKEN={GH}", GH, "GITHUB_TOKEN"),
        (f"aws_access_key_id = {AKIA}", AKIA, "AWS_ACCESS_KEY"),
        (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "AWS_SECRET_KEY"),
        (f"AWS Secret Access Key [None]: {AWS_SECRET}", AWS_SECRET, "AWS_SECRET_KEY"),
        (f'curl -H "Authorization: Bearer {JWT}" https://x', JWT, "JWT"),
        (
            "git clone https://bob:Zq8rT2mN4xLp@git.example.com/r.git",
            "Zq8rT2mN4xLp",
            "URL_PASSWORD",
        ),
        ("redis-cli -u redis://:Zq8rT2mN4xLp@cache:6379 ping", "Zq8rT2mN4xLp", "URL_PASSWORD"),
        (
            "curl -H 'Authorization: Basic Ym9iOlpxOHJUMm1ONHg=' x",
            "Ym9iOlpxOHJUMm1ONHg=",
            "AUTH_HEADER",
        ),
        ("curl -u bob:Zq8rT2mN4x https://x", "Zq8rT2mN4x", "PASSWORD"),
        ("mysql -uroot -pZq8rT2mN4x+ shop", "pZq8rT2mN4x+", "PASSWORD"),
        ("docker login -u bob -p 'Zq8rT2mN4x*' ghcr.io", "Zq8rT2mN4x*", "PASSWORD"),
        ("mongodump --password=Zq8rT2mN4x# --db crm", "Zq8rT2mN4x#", "PASSWORD"),
        ("wget --password 'Zq8rT2mN4x!' https://x", "Zq8rT2mN4x!", "PASSWORD"),
        ("npx vercel deploy --token Xk9LmQ7rT4vWz8NpB3yC1dE", "Xk9LmQ7rT4vWz8NpB3yC1dE", "TOKEN"),
        (
            "ngrok config add-authtoken 2dh4BpxUTVIPL1jd4pfgTpiKZ",
            "2dh4BpxUTVIPL1jd4pfgTpiKZ",
            "TOKEN",
        ),
        (
            "./uploader -t de50260b-83b4-487f-b976-d33825b8c1fc -f x",
            "de50260b-83b4-487f-b976-d33825b8c1fc",
            "TOKEN",
        ),
        ("export DB_PASSWORD='Violet-Bramble61*'", "Violet-Bramble61*", "PASSWORD"),
        ('"refresh_token": "jJitAqUbR5E9Ck3sYV1OqvXB",', "jJitAqUbR5E9Ck3sYV1OqvXB", "TOKEN"),
        (
            "kubectl create secret generic x --from-literal=password=Acpy5Nox40aB",
            "Acpy5Nox40aB",
            "PASSWORD",
        ),
        ("htpasswd -b -c /etc/.htpasswd admin 'MapleHazel34*'", "MapleHazel34*", "PASSWORD"),
        ("sk-ant-api03-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7" * 3, None, "ANTHROPIC_KEY"),
        ("xoxb-21506647532-1885673241688-d8xncwjxTZVcUOpdxfWE", None, "SLACK_TOKEN"),
        (
            "https://hooks.slack.com/services/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",
            None,
            "SLACK_WEBHOOK",
        ),
        ("AIzaSyvE9rwLbAtf6e9cpCGybY9lMR4pAwBp3GV", None, "GOOGLE_API_KEY"),
        ("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", None, "NPM_TOKEN"),
        ("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", None, "HUGGINGFACE_TOKEN"),
        ("glpat-aOyXQVmM0Xofz07QVTSi", None, "GITLAB_TOKEN"),
        ("rk_live_51bULWINkvXk5fnjx8zmpz805jj5oG8mkOuA", None, "STRIPE_KEY"),
    ],
)
def test_secret_is_found(text: str, secret: str | None, type_: str) -> None:
    secret = secret if secret is not None else text
    findings = find_secrets(text)
    covering = [
        f
        for f in findings
        if f.start <= text.index(secret) and f.end >= text.index(secret) + len(secret)
    ]
    assert covering, f"{secret!r} not found in {text!r}: {findings}"
    assert covering[0].type == type_


def test_private_key_body_is_the_span_and_the_armour_stays() -> None:
    body = "MIIEpAIBAAKCAQEAf/DZ6LmCUbPc0oJfV08oNehF/7/HIN9shU1cJiX7mzyom5JX\nY3ZA8v3dZkgy8v1C\n"
    text = (
        f"$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\n$ ls"
    )
    (finding,) = find_secrets(text)
    assert finding.type == "PRIVATE_KEY" and finding.value == body.strip()
    scrubbed = SecretVault().scrub(text)
    assert "-----BEGIN RSA PRIVATE KEY-----\nAISH_SECRET_PRIVATE_KEY_1\n-----END" in scrubbed


def test_private_key_cut_short_and_json_escaped() -> None:
    cut = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAA\n"
    )
    assert find_secrets(cut)[0].value.startswith("b3BlbnNzaC1rZXkt")
    escaped = (
        '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'
        '\\n-----END PRIVATE KEY-----\\n"}'
    )
    (finding,) = find_secrets(escaped)
    # The `n` of the escaped line break joins the span: a placeholder must stand alone.
    assert finding.value == "nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
    vault = SecretVault()
    scrubbed = vault.scrub(escaped)
    assert vault.unknown_placeholders(scrubbed) == [] and vault.rehydrate(scrubbed) == escaped


@pytest.mark.parametrize(
    "text",
    [
        "commit 8860be9ac8a8534fa386b05f342f1e70354e3f7e",
        "UUID=bea4c699-2578-40e4-8338-03e9313e5c07 TYPE=ext4",
        "c9dd289c5a4a26acaf6fc7c8dad960bb49d472aac3a1767a92ecac8418142213  node.tar.xz",
        "postgres@sha256:090fb254c2a992a5bb364573692435359de37f11e9577d7d5abfdcb64f3f0468",
        'curl -H "Authorization: Bearer ${GITHUB_TOKEN}" https://api.github.com',
        'mysql -h "$DB_HOST" -u "$DB_USER" -p"$DB_PASSWORD" -e "select 1"',
        "export GITHUB_TOKEN=$GITHUB_TOKEN",
        "TOKEN_TTL_SECONDS=3600\nPASSWORD_STORE_DIR=~/.password-store\nPASSWORD_MIN_LENGTH=12",
        "SECRET_MANAGER=aws-secrets-manager\nAPI_KEY_HEADER=X-Api-Key\nKEYTIMEOUT=1",
        '"api_key": "<your-token>",\npassword: changeme\ntoken: xxxxxxxxxxxxxxxx',
        'echo "$REGISTRY_PASSWORD" | docker login ghcr.io -u "$REGISTRY_USER" --password-stdin',
        "docker run -u 1000:1000 -p 8080:80 -t alpine:3.20 sh",
        "ssh -p 2222 deploy@10.0.0.5 && mkdir -p build/out",
        "git commit -m 'fix: handle empty password field; bump jsonwebtoken to 9.0.2'",
        "secret = secrets.token_hex(32)\npassword = os.environ['DB_PASSWORD']",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINs6hUS7cxbZrYHhy2XHycYYrtIHV/lgmLMlE7QDBEuJ me@x",
        '"integrity": "sha512-hs44ioe/6CU/xr6+rh/DNu39z4nJZPlSzT6WtyAXqMTKLqBw6+901lwsoRMgQ1IJ'
        'XrIivXZtd+yxHdOXESAwyA=="',
        "SSH_AUTH_SOCK=/tmp/ssh-xzgzCuAcLguC/agent.2840\nSESSION_MANAGER=local/h:@/tmp/.ICE-unix/1690",
    ],
)
def test_harmless_text_is_left_alone(text: str) -> None:
    assert find_secrets(text, env_file_values(text)) == []
    assert SecretVault().scrub(text) == text


# --- known values --------------------------------------------------------------------------


def test_known_values_in_plain_and_encoded_forms() -> None:
    value = "s3cr3t/Value+with=odd&chars"
    known = {value: "ENV_APP_SECRET"}
    forms = [
        value,
        base64.b64encode(value.encode()).decode(),
        base64.urlsafe_b64encode(value.encode()).decode(),
        quote(value, safe=""),
        json.dumps(value)[1:-1].replace("/", "\\/"),
        base64.b64encode(b"user:" + value.encode()).decode(),  # inside a longer blob
    ]
    vault = SecretVault()
    vault.learn(known)
    for form in forms:
        text = f"before {form} after"
        assert [f.type for f in find_secrets(text, known)] == ["ENV_APP_SECRET"], form
        scrubbed = vault.scrub(text)
        assert value not in scrubbed
        assert PLACEHOLDER.search(scrubbed)


def test_values_first_seen_in_context_are_known_afterwards() -> None:
    vault = SecretVault()
    vault.scrub("npx vercel deploy --token Xk9LmQ7rT4vWz8NpB3yC1dE")
    assert vault.scrub("it printed Xk9LmQ7rT4vWz8NpB3yC1dE") == "it printed AISH_SECRET_TOKEN_1"


def test_env_file_lines_are_learned_by_scrub() -> None:
    vault = SecretVault()
    vault.scrub("$ cat .env\nSMTP_PASSWORD=JasperKelp93+\nPORT=25\n")
    assert vault.scrub("login with JasperKelp93+") == "login with AISH_SECRET_PASSWORD_1"


def test_sensitive_environment_judges_name_and_value() -> None:
    env = {
        "GITHUB_TOKEN": GH,
        "OPENAI_API_KEY": "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7",
        "DATABASE_URL": "postgres://app:Zq8rT2mN4x@db:5432/app",
        "TOKEN_TTL_SECONDS": "3600",
        "PASSWORD_STORE_DIR": "/home/me/.password-store",
        "SSH_AUTH_SOCK": "/tmp/ssh-abc/agent.1",
        "GITHUB_TOKEN_REF": "$GITHUB_TOKEN",
        "SECRET_FLAG": "true",
        "HOME": "/home/me",
        "SHORT_PASSWORD": "abc1",
        "my-weird.name": "Xk9LmQ7rT4vWz8NpB3yC1dE",
    }
    found = sensitive_environment(env)
    assert found == {
        GH: "ENV_GITHUB_TOKEN",
        env["OPENAI_API_KEY"]: "ENV_OPENAI_API_KEY",
        env["DATABASE_URL"]: "ENV_DATABASE_URL",
    }


def test_env_file_values_take_the_whole_value() -> None:
    text = (
        "SECRET_KEY='django-insecure-l5=85h7v%7@l+8zei)c5p&2ct0'\n"
        'export API_TOKEN="Xk9LmQ7rT4vWz8NpB3yC1dE"  \n'
        "password: FalconViolet90#\n"
        "JWT_EXPIRATION_HOURS=24\nLOG_LEVEL=debug\n"
    )
    assert env_file_values(text) == {
        "django-insecure-l5=85h7v%7@l+8zei)c5p&2ct0": "SECRET",
        "Xk9LmQ7rT4vWz8NpB3yC1dE": "TOKEN",
        "FalconViolet90#": "PASSWORD",
    }


# --- the vault -----------------------------------------------------------------------------


def test_placeholders_are_stable_and_counted_per_type() -> None:
    vault = SecretVault()
    first = vault.scrub(f"a {GH} b {AKIA} c {GH2}")
    assert first == (
        "a AISH_SECRET_GITHUB_TOKEN_1 b AISH_SECRET_AWS_ACCESS_KEY_1 c AISH_SECRET_GITHUB_TOKEN_2"
    )
    assert (
        vault.scrub(f"again {GH2} and {GH}")
        == "again AISH_SECRET_GITHUB_TOKEN_2 and AISH_SECRET_GITHUB_TOKEN_1"
    )
    assert vault.placeholders() == {"GITHUB_TOKEN": 2, "AWS_ACCESS_KEY": 1}
    assert len(vault) == 3 and GH in vault and "AISH_SECRET_GITHUB_TOKEN_2" in vault
    assert "AISH_SECRET_GITHUB_TOKEN_3" not in vault


def test_learned_types_are_sanitised_into_placeholders() -> None:
    vault = SecretVault()
    vault.learn({"Xk9LmQ7rT4vWz8NpB3yC1dE": "env my-token"})
    assert vault.scrub("x Xk9LmQ7rT4vWz8NpB3yC1dE") == "x AISH_SECRET_ENV_MY_TOKEN_1"


def test_rehydrate_round_trip() -> None:
    text = f"export GITHUB_TOKEN={GH}\ncurl -u bob:Zq8rT2mN4x https://x\n{JWT}"
    vault = SecretVault()
    scrubbed = vault.scrub(text)
    assert GH not in scrubbed and "Zq8rT2mN4x" not in scrubbed and JWT not in scrubbed
    assert vault.rehydrate(scrubbed) == text
    command = "gh api -H 'Authorization: token AISH_SECRET_GITHUB_TOKEN_1' /user"
    assert vault.rehydrate(command) == f"gh api -H 'Authorization: token {GH}' /user"


def test_unknown_placeholder_raises_naming_all_of_them() -> None:
    vault = SecretVault()
    vault.scrub(GH)
    text = (
        "echo AISH_SECRET_GITHUB_TOKEN_1 AISH_SECRET_GITHUB_TOKEN_9 AISH_SECRET_AWS_KEY_1 "
        "AISH_SECRET_GITHUB_TOKEN_9"
    )
    assert vault.unknown_placeholders(text) == [
        "AISH_SECRET_GITHUB_TOKEN_9",
        "AISH_SECRET_AWS_KEY_1",
    ]
    with pytest.raises(UnknownPlaceholder) as raised:
        vault.rehydrate(text)
    assert raised.value.names == ["AISH_SECRET_GITHUB_TOKEN_9", "AISH_SECRET_AWS_KEY_1"]
    assert vault.rehydrate("no placeholders here") == "no placeholders here"


def test_placeholders_stand_alone_as_words() -> None:
    vault = SecretVault()
    vault.learn({"s3cr3t/Value+x": "ENV_X"})
    blob = base64.b64encode(b"user:s3cr3t/Value+x").decode()
    for text in ("mysql -uroot -pNectarHarbor50+ shop", f"Basic {blob}"):
        scrubbed = vault.scrub(text)
        assert PLACEHOLDER.search(scrubbed), scrubbed
        assert vault.rehydrate(scrubbed) == text
    assert vault.scrub("mysql -uroot -pNectarHarbor50+") == "mysql -uroot -AISH_SECRET_PASSWORD_1"


def test_scrubbing_is_idempotent_and_placeholders_are_never_findings() -> None:
    text = (
        f"export GITHUB_TOKEN={GH}\nDB_PASSWORD=VioletWalnut24+\n"
        "psql postgresql://app:Zq8rT2mN4x@db/app\nmysql -uroot -pNectarHarbor50+\n"
    )
    vault = SecretVault()
    once = vault.scrub(text)
    assert vault.scrub(once) == once
    assert SecretVault().scrub(once) == once  # a fresh vault does not re-scrub placeholders
    assert find_secrets("export API_TOKEN=AISH_SECRET_TOKEN_12 -pAISH_SECRET_PASSWORD_3") == []


def test_placeholder_shape() -> None:
    vault = SecretVault()
    vault.learn({"Xk9LmQ7rT4vWz8NpB3yC1dE": "ENV_KEY_2"})
    scrubbed = vault.scrub("'Xk9LmQ7rT4vWz8NpB3yC1dE'")
    assert scrubbed == "'AISH_SECRET_ENV_KEY_2_1'"
    assert re.fullmatch(r"'[A-Z0-9_]+'", scrubbed)
    assert PLACEHOLDER.fullmatch("AISH_SECRET_ENV_KEY_2_1")


def test_findings_do_not_overlap_and_are_sorted() -> None:
    text = f"DATABASE_URL=postgres://app:Zq8rT2mN4x@db/app {GH} Authorization: Bearer {JWT}"
    findings = find_secrets(text, {"postgres://app:Zq8rT2mN4x@db/app": "ENV_DATABASE_URL"})
    assert all(isinstance(f, Finding) and text[f.start : f.end] == f.value for f in findings)
    assert all(a.end <= b.start for a, b in itertools.pairwise(findings))
    assert [f.type for f in findings] == ["ENV_DATABASE_URL", "GITHUB_TOKEN", "JWT"]


@pytest.mark.parametrize(
    "text",
    [
        "a" * 1_000_000,
        "key=" * 250_000,
        "eyJ" * 333_333,
        "https://u:" * 100_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" * 30_000,
        base64.b64encode(bytes(range(256)) * 3000).decode(),
        ("token " + "Ab1" * 10 + " ") * 20_000,
    ],
    ids=["letters", "assignments", "jwt-heads", "url-heads", "pem-heads", "base64", "tokens"],
)
def test_a_megabyte_scrubs_without_catastrophic_backtracking(text: str) -> None:
    vault = SecretVault()
    vault.learn({"Xk9LmQ7rT4vWz8NpB3yC1dE": "ENV_TOKEN"})
    assert isinstance(vault.scrub(text), str)
