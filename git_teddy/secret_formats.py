"""Known token formats from detect-secrets' plugins, as spans for git-teddy's redactor (pure,
but for the cache of the library's patterns).

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
characters is not taken.

The library is imported on the first scan of a process whose cache is cold: importing it
(and `requests`, which it loads) costs 20-80 ms, so the patterns taken from it are kept in
the user's cache folder, keyed by the installed library's version and plugin files, and a
later command compiles them from there without importing it: in
`$XDG_CACHE_HOME/git-teddy-secret-formats.json`, else in `~/.cache/` (beside the scratch
worktrees' `git-teddy/` folder of pools, not among them). A cache that cannot be read or
written is a cold cache, never an error.
"""

import json
import os
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


# (kind, pattern, flags) of one of the library's patterns, as the cache keeps it
Source = tuple[str, str, int]


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    library = library_patterns(_cache_file())
    found = [(kind, re.compile(text, flags)) for kind, text, flags in library]
    found.extend((kind, re.compile(pattern)) for kind, pattern in _OWN)
    return tuple(found)


def _cache_file() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # as gitstore.pool
    return base / "git-teddy-secret-formats.json"


def library_patterns(cache_file: Path) -> list[Source]:
    """The library's patterns: from `cache_file` when it was written for the library
    installed now, else from the library (and then written there)."""
    key = _library_key()
    if key is not None and (cached := _read(cache_file, key)) is not None:
        return cached
    found = [
        (kind, pattern.pattern, pattern.flags)
        for module, (name, kind) in _PLUGINS.items()
        for pattern in getattr(import_module(f"detect_secrets.plugins.{module}"), name).denylist
    ]
    if key is not None:
        _write(cache_file, key, found)
    return found


def _library_key() -> str | None:
    """What the patterns are taken from: the installed library's folder, version and plugin
    files (size and time), and which plugins git-teddy takes. Found without importing it
    (find_spec of a top-level package runs none of its code); None when it is not there."""
    spec = find_spec("detect_secrets")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = [folder / "__version__.py"] + [folder / "plugins" / f"{m}.py" for m in _PLUGINS]
    try:
        version = files[0].read_text(encoding="utf-8").strip()
        stats = [(s.st_size, s.st_mtime_ns) for s in map(os.stat, files)]
    except OSError:
        return None
    return json.dumps([str(folder), version, stats, sorted(_PLUGINS.items())])


def _read(cache_file: Path, key: str) -> list[Source] | None:
    try:
        data = json.loads(cache_file.read_bytes())
        if data["key"] != key:
            return None
        return [(str(kind), str(text), int(flags)) for kind, text, flags in data["patterns"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing, damaged or another version's: taken from the library again


def _write(cache_file: Path, key: str, found: list[Source]) -> None:
    """Atomically (a concurrent reader sees the old file or the new one); a folder that
    cannot be written leaves the cache cold."""
    import tempfile  # only when the cache is written

    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=cache_file.name, dir=cache_file.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"key": key, "patterns": found}, out)
            os.replace(tmp, cache_file)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


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
