"""Known token formats from detect-secrets' plugins, as spans for git-teddy's redactor (pure).

detect-secrets (Yelp) keeps the list of vendors' token formats up to date; git-teddy keeps
its own redactor around it for what the plugins do not do: bounded cost on hostile text,
`[REDACTED:kind]` markers, URL passwords, prose, split and base64-encoded tokens. Only the
plugins' regular expressions are used (never their network verification), and only the
plugins whose patterns start from a literal or a short class: the keyword plugins for
Cloudant, IBM and SoftLayer scan every position of the text (10-100x slower) and the generic
`KEY=value` rule already covers what they find. npm's and OpenAI's patterns are left out too:
an unbounded run before a literal makes them quadratic on hostile text (`sk-sk-sk-...`), and
the redactor's own rules for both are bounded.

A plugin pattern has no word boundary of its own (Twilio's `SK[a-z0-9]{32}` matches inside
any longer hex run, a sha256 say), so a match that sits inside a longer run of token
characters is not taken. The patterns are compiled on the first scan, not at start-up; the
library is imported then only when its version is not the one PLUGIN_PATTERNS was copied from
(its version is read from its `__version__.py`).
"""

import re
from collections.abc import Iterator
from functools import cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

# detect-secrets module -> (plugin class, git-teddy's kind for its findings)
_PLUGINS = {
    "aws": ("AWSKeyDetector", "aws-access-key"),
    "discord": ("DiscordBotTokenDetector", "discord-token"),
    "github_token": ("GitHubTokenDetector", "github-token"),
    "gitlab_token": ("GitLabTokenDetector", "gitlab-token"),
    "mailchimp": ("MailchimpDetector", "mailchimp-key"),
    "pypi_token": ("PypiTokenDetector", "pypi-token"),
    "sendgrid": ("SendGridDetector", "sendgrid-key"),
    "slack": ("SlackDetector", "slack-token"),
    "square_oauth": ("SquareOAuthDetector", "square-token"),
    "stripe": ("StripeDetector", "stripe-key"),
    "telegram_token": ("TelegramBotTokenDetector", "telegram-token"),
    "twilio": ("TwilioKeyDetector", "twilio-key"),
}

# Formats detect-secrets 1.5 does not know (or knows only in one file's syntax, like npm's
# `_authToken=` line of .npmrc): same shape, a literal prefix then a bounded body.
_OWN = (
    ("huggingface-token", r"hf_[A-Za-z0-9]{30,40}"),
    ("npm-token", r"npm_[A-Za-z0-9]{36}"),
    ("shopify-token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    ("digitalocean-token", r"do[por]_v1_[a-f0-9]{64}"),
    ("square-token", r"sq0atp-[0-9A-Za-z_-]{22}"),
    ("databricks-token", r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("stripe-key", r"(?:sk|rk)_live_[0-9a-zA-Z]{24,99}"),
    # detect-secrets' Azure pattern takes `AccountKey=` with the key; only the key is secret.
    ("azure-storage-key", r"(?<=AccountKey=)[A-Za-z0-9+/]{86}=="),
)

FORMAT_KINDS = tuple(dict.fromkeys([kind for _, kind in _PLUGINS.values()] + [k for k, _ in _OWN]))

_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_-]")  # as the redactor's own formats


# The plugins' patterns (kind, pattern, flags) as detect-secrets COPIED_FROM has them, in the
# order of _PLUGINS. Importing the library costs about 0.15 s of CPU (it brings in requests,
# multiprocessing and email) in every `plan`; with that version installed its patterns are
# taken from this copy, with any other version from the library itself.
# tests/test_redact.py checks the copy against the installed library.
COPIED_FROM = "1.5.0"
PLUGIN_PATTERNS: tuple[tuple[str, str, int], ...] = (
    ("aws-access-key", r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}", 0),
    (
        "aws-access-key",
        "aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\\'\\\"]([0-9a-zA-Z/+]{40})[\\'\\\"]",
        re.IGNORECASE,
    ),
    ("discord-token", r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}", 0),
    ("github-token", r"(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}", 0),
    ("gitlab-token", r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    ("gitlab-token", r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    ("gitlab-token", r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    ("gitlab-token", r"glimt-[A-Za-z0-9_\-]{25}(?!\w)", 0),
    ("gitlab-token", r"glptt-[A-Za-z0-9_\-]{40}(?!\w)", 0),
    ("gitlab-token", r"glagent-[A-Za-z0-9_\-]{50,1024}(?!\w)", 0),
    ("gitlab-token", r"gloas-[A-Za-z0-9_\-]{64}(?!\w)", 0),
    ("mailchimp-key", r"[0-9a-z]{32}-us[0-9]{1,2}", 0),
    ("pypi-token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}", 0),
    ("pypi-token", r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}", 0),
    ("sendgrid-key", r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}", 0),
    ("slack-token", r"xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+", re.IGNORECASE),
    (
        "slack-token",
        r"https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+",
        re.IGNORECASE | re.VERBOSE,
    ),
    ("square-token", r"sq0csp-[0-9A-Za-z\\\-_]{43}", 0),
    ("stripe-key", r"(?:r|s)k_live_[0-9a-zA-Z]{24}", 0),
    ("telegram-token", r"\d{8,10}:[0-9A-Za-z_-]{35}", 0),
    ("twilio-key", r"AC[a-z0-9]{32}", 0),
    ("twilio-key", r"SK[a-z0-9]{32}", 0),
)


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    found: list[tuple[str, re.Pattern[str]]]
    if installed_version() == COPIED_FROM:
        found = [(kind, re.compile(pattern, flags)) for kind, pattern, flags in PLUGIN_PATTERNS]
    else:
        found = library_patterns()
    found.extend((kind, re.compile(pattern)) for kind, pattern in _OWN)
    return tuple(found)


def library_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """The plugins' patterns, read from the installed detect-secrets."""
    found: list[tuple[str, re.Pattern[str]]] = []
    for module, (name, kind) in _PLUGINS.items():
        plugin = getattr(import_module(f"detect_secrets.plugins.{module}"), name)
        found.extend((kind, pattern) for pattern in plugin.denylist)
    return found


def installed_version() -> str | None:
    """detect-secrets' version, read from its `__version__.py` without importing it."""
    spec = find_spec("detect_secrets")
    folders = list(spec.submodule_search_locations or ()) if spec else []
    try:
        text = (Path(folders[0]) / "__version__.py").read_text(encoding="utf-8")
    except (IndexError, OSError, UnicodeDecodeError):
        return None
    match = re.fullmatch(r"VERSION = ['\"]([^'\"]+)['\"]\s*", text)
    return match.group(1) if match else None


def _inside_a_run(text: str, start: int, end: int) -> bool:
    before = start > 0 and _TOKEN_CHAR.match(text, start - 1) is not None
    after = end < len(text) and _TOKEN_CHAR.match(text, end) is not None
    return before or after


def _secret_part(match: re.Match[str]) -> tuple[int, int]:
    """The span a plugin reports as the secret: its first non-empty group, else the match
    (npm's `//host/:_authToken=TOKEN` line gives the token as a group)."""
    for group in range(1, (match.re.groups or 0) + 1):
        if match.group(group):
            return match.span(group)
    return match.span()


def format_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each known token format in `text`."""
    for kind, pattern in _patterns():
        for match in pattern.finditer(text):
            if _inside_a_run(text, *match.span()):
                continue
            start, end = _secret_part(match)
            yield start, end, kind
