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
characters is not taken. The library is imported on the first scan, not at start-up.
"""

import re
from collections.abc import Iterator
from functools import cache
from importlib import import_module

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


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    found: list[tuple[str, re.Pattern[str]]] = []
    for module, (name, kind) in _PLUGINS.items():
        plugin = getattr(import_module(f"detect_secrets.plugins.{module}"), name)
        found.extend((kind, pattern) for pattern in plugin.denylist)
    found.extend((kind, re.compile(pattern)) for kind, pattern in _OWN)
    return tuple(found)


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
