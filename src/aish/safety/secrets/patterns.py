"""Secret-shaped strings recognised by their own form: provider key formats, private key
blocks, JWTs, webhook URLs.

Each rule is a regex with a literal prefilter (a substring that must occur for the rule to
run) and, where a format's prefix is too common on its own, a check of the matched token. A
rule that opens with no literal says where its matches can start (`anchors`). A rule that
opens with a literal (its head: `sk-`, `ghp_`) is tried only where its head stands, and the
heads of all rules are found in one pass per first letter (`_HeadScan`): one regex scan for
each letter instead of one for each rule.
Quantifiers are bounded or possessive and never nested, so a megabyte of text scans in linear
time. A span is `(start, end, type)`; `text[start:end]` is what gets replaced.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from aish.safety.secrets.anchors import Starts, before_hits, literal_first, matches_from
from aish.safety.secrets.values import looks_like_random_token

Span = tuple[int, int, str]


@dataclass(frozen=True)
class TokenFormat:
    type: str
    pattern: re.Pattern[str]
    keyword: str | None = None  # must occur in the text (case-sensitive) for the rule to run
    check: Callable[[str], bool] | None = None
    starts: Starts | None = None  # where a match can start, for a rule with no literal first
    # Every match starts with one of these (in its case): the rule is tried only there. A
    # match holds its keyword, so a rule with heads needs no keyword check.
    heads: tuple[str, ...] = ()


def _format(
    type_: str,
    pattern: str,
    keyword: str | None,
    check: Callable[[str], bool] | None = None,
    starts: Starts | None = None,
    heads: tuple[str, ...] | None = None,
) -> TokenFormat:
    compiled = re.compile(literal_first(pattern))
    if heads is None:
        heads = () if starts is not None else _literal_head(compiled)
    return TokenFormat(type_, compiled, keyword, check, starts, heads)


# The literal a pattern opens with (`\.` and the like unescaped); a character that a
# quantifier follows is not part of it (`https?` opens with `http`).
_OPENING_LITERAL = re.compile(r"(?:[A-Za-z0-9_-]|\\[.\[(])+(?![*+?{])")


def _literal_head(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The literal every match of `pattern` starts with, if it opens with one (none of these
    patterns has a top-level `|` or ignores case, which would break that)."""
    opening = _OPENING_LITERAL.match(pattern.pattern)
    if opening is None or pattern.flags & re.IGNORECASE or "|" in _top_level(pattern.pattern):
        return ()
    return (re.sub(r"\\(.)", r"\1", opening.group()),)


def _top_level(pattern: str) -> str:
    """`pattern` without what stands inside brackets and parentheses."""
    depth, kept, escaped, in_class = 0, [], False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0:
            kept.append(char)
    return "".join(kept)


def _random_tail(token: str) -> bool:
    """`sk-…` is also the start of ordinary words: the rest must look machine-made."""
    tail = token.split("-", 1)[1]
    return "T3BlbkFJ" in token or looks_like_random_token(tail.replace("-", "").replace("_", ""))


def _pem_in_base64(token: str) -> bool:
    """Base64 of a PEM block (kubeconfig `client-key-data`): a secret only if it is a key."""
    head = token[: len(token) // 4 * 4][:80]
    try:
        return b"PRIVATE KEY" in base64.b64decode(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return False


_END = r"(?![A-Za-z0-9_-])"

# Order matters only for ties: the first format to claim a span names its type.
TOKEN_FORMATS: tuple[TokenFormat, ...] = (
    _format("ANTHROPIC_KEY", r"\bsk-ant-[A-Za-z0-9_-]{20,400}+", "sk-ant-"),
    _format("OPENROUTER_KEY", r"\bsk-or-v\d-[A-Za-z0-9]{20,200}+", "sk-or-"),
    _format(
        "OPENAI_KEY", r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,400}+", "sk-", _random_tail
    ),
    _format("API_KEY", r"\bsk-[A-Za-z0-9][A-Za-z0-9_-]{19,300}+", "sk-", _random_tail),
    _format("GITHUB_TOKEN", r"\bgh[pousr]_[A-Za-z0-9]{30,255}+" + _END, "_"),
    _format("GITHUB_TOKEN", r"\bgithub_pat_[A-Za-z0-9_]{40,255}+", "github_pat_"),
    _format(
        "GITLAB_TOKEN",
        r"\bgl(?:pat|dt|rt|ptt|cbt|ft|oas|soat|imt|agent|ffct|wt)-[A-Za-z0-9_-]{20,200}+"
        r"(?:\.[A-Za-z0-9_-]{2,100}+)*+",
        "gl",
    ),
    _format("GITLAB_TOKEN", r"\bGR1348941[A-Za-z0-9_-]{20,100}+", "GR1348941"),
    _format("SLACK_TOKEN", r"\bxox[abposre]-[A-Za-z0-9-]{10,250}+", "xox"),
    _format("SLACK_TOKEN", r"\bxapp-\d-[A-Za-z0-9-]{10,250}+", "xapp-"),
    _format(
        "SLACK_WEBHOOK",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,300}+",
        "hooks.slack.com",
    ),
    _format(
        "DISCORD_WEBHOOK",
        r"https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_-]{20,200}+",
        "/api/webhooks/",
    ),
    _format(
        "WEBHOOK_URL",
        r"https://[A-Za-z0-9.-]{1,100}\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_-]{20,400}+",
        ".webhook.office.com",
    ),
    _format(
        "AWS_ACCESS_KEY",
        r"\bA(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}\b",
        "A",
        heads=("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),  # `A` alone is every capital A
    ),
    _format("GOOGLE_API_KEY", r"\bAIza[A-Za-z0-9_-]{35}" + _END, "AIza"),
    _format("GOOGLE_OAUTH", r"\bya29\.[A-Za-z0-9_-]{20,500}+", "ya29."),
    _format("GOOGLE_OAUTH", r"\bGOCSPX-[A-Za-z0-9_-]{20,100}+", "GOCSPX-"),
    _format("STRIPE_KEY", r"\bsk_(?:live|test)_[A-Za-z0-9]{16,250}+", "sk_"),
    _format("STRIPE_KEY", r"\brk_(?:live|test)_[A-Za-z0-9]{16,250}+", "rk_"),
    _format("STRIPE_KEY", r"\bwhsec_[A-Za-z0-9+/=]{24,100}+", "whsec_"),
    _format("NPM_TOKEN", r"\bnpm_[A-Za-z0-9]{36}" + _END, "npm_"),
    _format("PYPI_TOKEN", r"\bpypi-AgE[A-Za-z0-9_-]{40,1000}+", "pypi-AgE"),
    _format("HUGGINGFACE_TOKEN", r"\bhf_[A-Za-z0-9]{30,100}+" + _END, "hf_"),
    _format("HUGGINGFACE_TOKEN", r"\bapi_org_[A-Za-z0-9]{30,100}+" + _END, "api_org_"),
    _format("TWILIO_KEY", r"\bSK[0-9a-fA-F]{32}\b", "SK"),
    _format("SENDGRID_KEY", r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}+", "SG."),
    _format("MAILGUN_KEY", r"\bkey-[0-9a-f]{32}\b", "key-"),
    _format(
        "MAILCHIMP_KEY",
        r"\b[0-9a-f]{32}-us\d{1,2}\b",
        "-us",
        starts=before_hits(re.compile(r"-us\d"), 32, 32),
    ),
    _format(
        "DISCORD_TOKEN",
        r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b",
        ".",
        starts=before_hits(re.compile(r"\.(?=[A-Za-z0-9_-]{6}\.)"), 24, 28),
    ),
    _format(
        "TELEGRAM_TOKEN",
        r"(?<![0-9])\d{8,10}:[A-Za-z0-9_-]{35}" + _END,
        ":",
        starts=before_hits(re.compile(r":(?<=\d{8}:)(?=[A-Za-z0-9_-]{35})"), 8, 10),
    ),
    _format("SHOPIFY_TOKEN", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", "shp"),
    _format("DIGITALOCEAN_TOKEN", r"\bdo[opr]_v1_[a-f0-9]{64}\b", "_v1_"),
    _format("DATABRICKS_TOKEN", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", "dapi"),
    _format("DOPPLER_TOKEN", r"\bdp\.(?:st|sa|ct|pt|scim|audit)\.[A-Za-z0-9_.-]{40,200}+", "dp."),
    _format("VAULT_TOKEN", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,300}+", "hv"),
    _format("DOCKER_TOKEN", r"\bdckr_pat_[A-Za-z0-9_-]{20,100}+", "dckr_pat_"),
    _format("POSTMAN_KEY", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", "PMAK-"),
    _format("LINEAR_KEY", r"\blin_api_[A-Za-z0-9]{40}\b", "lin_api_"),
    _format("NOTION_TOKEN", r"\bsecret_[A-Za-z0-9]{43}\b", "secret_"),
    _format("NOTION_TOKEN", r"\bntn_[A-Za-z0-9]{40,60}\b", "ntn_"),
    _format("ATLASSIAN_TOKEN", r"\bATATT3[A-Za-z0-9_=-]{100,300}+", "ATATT3"),
    _format("GRAFANA_TOKEN", r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b", "glsa_"),
    _format("GRAFANA_TOKEN", r"\bglc_[A-Za-z0-9+/]{32,400}+={0,2}", "glc_"),
    _format("NEWRELIC_KEY", r"\bNRAK-[A-Z0-9]{27}\b", "NRAK-"),
    _format("SENTRY_TOKEN", r"\bsntr[ysu]_[A-Za-z0-9_=+/]{40,400}+", "sntr"),
    _format("AGE_SECRET_KEY", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", "AGE-SECRET-KEY-"),
    _format("AZURE_STORAGE_KEY", r"(?<=AccountKey=)[A-Za-z0-9+/]{86}==", "AccountKey="),
    _format("SUPABASE_TOKEN", r"\bsbp_[a-f0-9]{40}\b", "sbp_"),
    _format("REPLICATE_TOKEN", r"\br8_[A-Za-z0-9]{37}\b", "r8_"),
    _format("GROQ_KEY", r"\bgsk_[A-Za-z0-9]{48,60}\b", "gsk_"),
    _format("XAI_KEY", r"\bxai-[A-Za-z0-9]{60,100}\b", "xai-"),
    _format("PERPLEXITY_KEY", r"\bpplx-[A-Za-z0-9]{40,60}\b", "pplx-"),
    _format("LANGSMITH_KEY", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", "lsv2_"),
    _format("TAVILY_KEY", r"\btvly-(?:dev-|prod-)?[A-Za-z0-9]{20,60}\b", "tvly-"),
    _format("HEROKU_KEY", r"\bHRKU-[A-Za-z0-9_-]{20,100}+", "HRKU-"),
    _format("PULUMI_TOKEN", r"\bpul-[a-f0-9]{40}\b", "pul-"),
    _format("RUBYGEMS_KEY", r"\brubygems_[a-f0-9]{48}\b", "rubygems_"),
    _format("JFROG_KEY", r"\bAKCp[A-Za-z0-9]{69}\b", "AKCp"),
    _format("ALIBABA_KEY", r"\bLTAI[A-Za-z0-9]{20}\b", "LTAI"),
    _format("BITBUCKET_TOKEN", r"\bATBB[A-Za-z0-9_=.-]{32,100}+", "ATBB"),
    _format("TERRAFORM_TOKEN", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,200}+", ".atlasv1."),
    _format("PLANETSCALE_TOKEN", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,100}+", "pscale_"),
    _format("MAPBOX_TOKEN", r"\bsk\.eyJ[A-Za-z0-9_-]{20,300}+\.[A-Za-z0-9_-]{20,100}+", "sk.eyJ"),
    _format("APP_KEY", r"\bbase64:[A-Za-z0-9+/]{40,88}+={0,2}", "base64:"),  # Laravel
    _format("FACEBOOK_TOKEN", r"\bEAA[A-Za-z0-9]{90,300}+", "EAA"),
    _format(
        "JWT",
        r"\beyJ[A-Za-z0-9_-]{8,4000}+\.[A-Za-z0-9_-]{8,8000}+\.[A-Za-z0-9_-]{0,2000}+"
        r"(?:\.[A-Za-z0-9_-]{1,8000}+\.[A-Za-z0-9_-]{1,2000}+)?",
        "eyJ",
    ),
    _format(
        "PRIVATE_KEY",
        r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/=]{20,20000}+",
        "LS0tLS1CRUdJTi",
        _pem_in_base64,
    ),
)


class _HeadScan:
    """Where the heads of the token rules stand in a text. A `str.find` per head costs a pass
    over the text per rule (about a millisecond a megabyte each, sixty rules); one regex per
    first letter (`s(?=k-|k_|ecret_|…)`) finds the heads that share it in one pass, at the
    speed of scanning for that letter."""

    def __init__(self, heads: Iterable[str]) -> None:
        by_letter: dict[str, set[str]] = {}
        for head in heads:
            by_letter.setdefault(head[0], set()).add(head)
        self._scans = {
            letter: re.compile(
                re.escape(letter)
                + "(?="
                + "|".join(re.escape(h[1:]) for h in sorted(hs, key=len, reverse=True))
                + ")"
            )
            for letter, hs in by_letter.items()
        }

    def positions(self, text: str) -> Callable[[tuple[str, ...]], list[int]]:
        """A function of a rule's heads: where in `text` any of them starts, sorted."""
        found: dict[str, list[int]] = {}

        def at(heads: tuple[str, ...]) -> list[int]:
            starts: list[int] = []
            for head in heads:
                letter = head[0]
                if letter not in found:
                    found[letter] = [m.start() for m in self._scans[letter].finditer(text)]
                starts.extend(p for p in found[letter] if text.startswith(head, p))
            return sorted(starts) if len(heads) > 1 else starts

        return at


_HEAD_SCAN = _HeadScan(head for rule in TOKEN_FORMATS for head in rule.heads)


def token_spans(text: str) -> Iterator[Span]:
    """Every match of every provider format (overlaps are resolved by the caller)."""
    at_heads = _HEAD_SCAN.positions(text)
    for rule in TOKEN_FORMATS:
        if rule.heads:
            matches = matches_from(rule.pattern, text, at_heads(rule.heads))
        elif rule.keyword is not None and rule.keyword not in text:
            continue
        elif rule.starts is None:
            matches = rule.pattern.finditer(text)
        else:
            matches = matches_from(rule.pattern, text, rule.starts(text, None))
        for match in matches:
            if rule.check is None or rule.check(match.group()):
                yield match.start(), match.end(), rule.type


def plain_token_spans(text: str) -> Iterator[Span]:
    """`token_spans` as each rule's keyword check and `finditer` find them: the reference
    that the tests hold the head scan to."""
    for rule in TOKEN_FORMATS:
        if rule.keyword is not None and rule.keyword not in text:
            continue
        for match in rule.pattern.finditer(text):
            if rule.check is None or rule.check(match.group()):
                yield match.start(), match.end(), rule.type


_PEM_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----")
_BASE64_LINE = re.compile(r"(?![ \t]*-----)[ \t]*[A-Za-z0-9+/=:,\- ]{16,}[ \t]*\r?\n")  # not armour


def private_key_spans(text: str) -> Iterator[Span]:
    """The body between `-----BEGIN … PRIVATE KEY-----` and its END line (RSA, EC, OpenSSH,
    PKCS#8, PGP, encrypted ones with headers). The BEGIN and END lines stay, so the reader still
    sees what the placeholder is. Without an END line (output cut short), the base64-looking
    lines that follow; inside JSON the line breaks are the two characters `\\n`."""
    if "PRIVATE KEY" not in text:
        return
    position = 0
    unended: set[str] = set()  # labels with no END line after some BEGIN: none after later ones
    while begin := _PEM_BEGIN.search(text, position):
        start = position = begin.end()
        end_marker = f"-----END {begin.group(1)}-----"
        end = -1 if end_marker in unended else text.find(end_marker, start)
        if end == -1:
            unended.add(end_marker)
            end = _base64_lines_end(text, start)
        body_start, body_end = _trim_line_breaks(text, start, end)
        if body_end > body_start:
            yield body_start, body_end, "PRIVATE_KEY"
            position = max(position, body_end)


# A key's armour seen from its other side: `rev` (each line reversed), `tac` (the END line
# first), or both. The base64 lines right after such a line are the key's body.
_OTHER_ARMOUR = re.compile(
    r"-----(?:END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?"
    r"|(?:KCOLB )?YEK ETAVIRP[A-Z0-9 ]{0,40} (?:NIGEB|DNE))-----"
)


def turned_key_spans(text: str) -> Iterator[Span]:
    """The body of a private key printed reversed (`rev`), upside down (`tac`) or both."""
    if "PRIVATE KEY" not in text and "YEK ETAVIRP" not in text:
        return
    for armour in _OTHER_ARMOUR.finditer(text):
        start = armour.end()
        body_start, body_end = _trim_line_breaks(text, start, _base64_lines_end(text, start))
        if body_end > body_start:
            yield body_start, body_end, "PRIVATE_KEY"


def _base64_lines_end(text: str, start: int) -> int:
    position = start + 1 if text.startswith("\n", start) else start
    while match := _BASE64_LINE.match(text, position):
        position = match.end()
    return position


def _trim_line_breaks(text: str, start: int, end: int) -> tuple[int, int]:
    """Keep the line breaks (real, or JSON-escaped `\\n`) next to the BEGIN and END lines."""
    while start < end and text[start] in "\r\n \t":
        start += 1
    while text.startswith("\\n", start) and start < end:
        start += 2
    while end > start and text[end - 1] in "\r\n \t":
        end -= 1
    while end - 2 >= start and text[end - 2 : end] == "\\n":
        end -= 2
    return start, end
