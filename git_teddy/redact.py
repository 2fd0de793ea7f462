"""Secret redaction: known secret formats in text become `[REDACTED:<kind>]`.

Pure functions, no I/O. `redact` is run on everything before it is committed to a session
(context log, prompts, replies, command output); `find_secrets` is what the pre-push hook
checks; `summarize` shapes findings for reports.

Linear in the size of the text. Python's `re` backtracks, so every pattern is built so that
each position is tried a bounded number of times:
- runs are matched with bounded possessive quantifiers (`{m,n}+`), which never give back
  characters, so a failed match costs at most its bound;
- a token must not start inside a run of token characters (a lookbehind), so a long run is
  entered once, not once per character;
- patterns begin with a literal (`ghp_`, `://`), which sre finds with a fast search; key names
  are found from their secret-ish word, and each key is looked at once; in prose ("my
  password is ..."), a value is looked at once, and a bare AWS secret key is looked for only
  in merged windows around the words "aws" and "secret";
- private key blocks (unbounded, multi-line) are found with plain searches, and a missing END
  marker is searched for once, never once per BEGIN.
`benchmarks/bench_redact.py` measures throughput and how it grows with size.
"""

import base64
import binascii
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from git_teddy.secret_formats import FORMAT_KINDS, format_spans

MARKER = "[REDACTED:{kind}]"
MARKER_PREFIX = "[REDACTED:"

# The generic `KEY=value` rule: a value must look random to be called a secret.
MIN_SECRET_LENGTH = 12
MIN_ENTROPY = 3.5  # bits per character, lowered for short values (see _entropy_threshold)


@dataclass(frozen=True)
class Finding:
    kind: str  # e.g. "github-token"; also the <kind> in its [REDACTED:<kind>] marker
    line: int  # 1-based line in the original text where the secret starts


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    kind: str
    rank: int  # which kind wins when spans start at the same place: lower wins


# --- helpers ---------------------------------------------------------------------------


def shannon_entropy(value: str) -> float:
    """Bits per character of the value's own character distribution."""
    if not value:
        return 0.0
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in Counter(value).values())


def _entropy_threshold(length: int) -> float:
    # A string of n characters can't exceed log2(n) bits per character, and a random
    # 12-character key has repeats: short values get a threshold they can actually reach.
    return min(MIN_ENTROPY, math.log2(length) - 0.5)


_PLACEHOLDER_WORDS = (
    "changeme",
    "change_me",
    "example",
    "placeholder",
    "your_",
    "your-",
    "xxxx",
    "****",
    "dummy",
    "redacted",
    "<",
    "${",
    "{{",
    "%(",
    "$(",
)


def _is_placeholder(value: str) -> bool:
    lowered = value.lower()
    return (
        value.startswith(("$", "%", MARKER_PREFIX))
        or any(word in lowered for word in _PLACEHOLDER_WORDS)
        or len(set(lowered)) <= 2  # "xxx", "---", "0000"
    )


def _looks_random(value: str) -> bool:
    """Letters and digits mixed (or three character classes) with high entropy. Plain words,
    identifiers and numbers don't qualify, so `token_count = 1234` or
    `auth = self.auth_header` stay as they are."""
    if len(value) < MIN_SECRET_LENGTH or _is_placeholder(value):
        return False
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    # Separators are what identifiers, paths and prose are made of: not a class of their own.
    symbol = any(not c.isalnum() and c not in "_-. /" for c in value)
    mixed = (digit and (lower or upper)) or sum((lower, upper, digit, symbol)) >= 3
    return mixed and shannon_entropy(value) >= _entropy_threshold(len(value))


_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*+(?:\.[A-Za-z_$][\w$]*+)*+")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _looks_like_code(value: str) -> bool:
    """`self._token_from_keyring2`, `config.authToken`: an identifier or dotted path made of
    words. Random keys break into words of one or two letters: measured on random base62 and
    base64url strings, under 0.2% pass these thresholds."""
    if not _IDENTIFIER.fullmatch(value):
        return False
    words = _WORD.findall(value)
    mean = sum(map(len, words)) / len(words) if words else 0.0
    return mean >= (3.5 if "_" in value or "." in value else 5.0)


def _mixed_case_and_digits(value: str) -> bool:
    # Real OpenAI keys are random base62; kebab-case names after "sk-" are not.
    return (
        any(c.islower() for c in value)
        and any(c.isupper() for c in value)
        and any(c.isdigit() for c in value)
    )


# --- fixed formats ---------------------------------------------------------------------

_TOKEN_CHAR = "[A-Za-z0-9_-]"


def _token(prefix: str, width: int, body: str) -> re.Pattern[str]:
    """A token that starts with `prefix` (`width` characters) and is not part of a longer run
    of token characters. The prefix comes first so that sre searches for it quickly; the
    lookbehind after it checks the character before it."""
    before = rf"(?<!{_TOKEN_CHAR}.{{{width}}})"
    return re.compile(prefix + before + body + rf"(?!{_TOKEN_CHAR})", re.DOTALL)


@dataclass(frozen=True)
class _Format:
    kind: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None = None  # tests group 1 (or the match if none)
    group: int = 0  # the part that is replaced


_FORMATS: tuple[_Format, ...] = (
    _Format(
        "aws-access-key",
        re.compile(r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])(?<![A-Z0-9].{4})[A-Z0-9]{16}(?![A-Z0-9])"),
    ),
    _Format("gcp-api-key", _token("AIza", 4, r"[0-9A-Za-z_-]{35}")),
    _Format("github-token", _token("gh[pousr]_", 4, r"[A-Za-z0-9]{36,251}+")),
    _Format("github-token", _token("github_pat_", 11, r"[A-Za-z0-9_]{22,244}+")),
    _Format(
        "gitlab-token",
        _token("gl", 2, r"(?:pat|dt|rt|ptt|ft|cbt|soat|agent)-[A-Za-z0-9_-]{20,250}+"),
    ),
    _Format("anthropic-key", _token("sk-ant-", 7, r"[A-Za-z0-9_-]{20,250}+")),
    _Format(
        "openai-key",
        _token("sk-", 3, r"(?!ant-)(?:(?:proj|svcacct|admin)-)?([A-Za-z0-9_-]{32,250}+)"),
        check=_mixed_case_and_digits,
    ),
    _Format("slack-token", _token("xox", 3, r"[baprs]-[A-Za-z0-9-]{10,250}+")),
    _Format(
        "jwt",
        _token(
            "eyJ", 3, r"[A-Za-z0-9_-]{5,16384}+\.[A-Za-z0-9_-]{5,65536}+\.[A-Za-z0-9_-]{10,16384}+"
        ),
    ),
    # `Authorization: Bearer <token>`: the header's name alone gives the generic rule nothing.
    _Format(
        "bearer-token",
        _token("[Bb]earer", 6, r"[ \t]{1,4}+([A-Za-z0-9._~+/=-]{16,4096}+)(?![.~+/=])"),
        check=_looks_random,
        group=1,
    ),
    _Format(
        "basic-auth",
        _token("Basic", 5, r"[ \t]{1,4}+([A-Za-z0-9+/]{8,4096}+={0,2}+)(?![.~+/=])"),
        check=_looks_random,
        group=1,
    ),
)

# Ranks: fixed formats before passwords in URLs before the generic assignment rule.
_RANK_PRIVATE_KEY = 0
_RANK_FORMAT = 1
_RANK_URL = 2
_RANK_AWS_SECRET = 3
_RANK_ASSIGNMENT = 4
_RANK_PROSE = 5


def _formats(text: str) -> Iterator[_Span]:
    for fmt in _FORMATS:
        for match in fmt.pattern.finditer(text):
            subject = match.group(1) if fmt.pattern.groups else match.group(0)
            if fmt.check is not None and not fmt.check(subject):
                continue
            yield _Span(match.start(fmt.group), match.end(fmt.group), fmt.kind, _RANK_FORMAT)


# --- private key blocks ----------------------------------------------------------------

_LABEL = r"(?:[A-Z0-9]{1,20}+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
_KEY_BEGIN = re.compile(r"-----BEGIN " + _LABEL)
_KEY_END = re.compile(r"-----END " + _LABEL)
# A block cut short (a truncated log, say) still leaks its body: take the base64 lines (and
# PEM headers, and single blank lines) that follow the BEGIN line.
_KEY_BODY = re.compile(
    r"(?:\r?\n(?:[ \t]{0,16}+\r?\n)?[ \t]{0,16}+"
    r"(?:[A-Za-z0-9+/=\\]{1,1024}+|[A-Za-z-]{1,32}+: [^\n]{0,256}+)[ \t]{0,16}+(?=\r?\n|\Z))*+"
)


def _private_keys(text: str) -> Iterator[_Span]:
    position = 0
    end_missing = False  # once no END follows a BEGIN, none follows a later one either
    while begin := _KEY_BEGIN.search(text, position):
        end = None if end_missing else _KEY_END.search(text, begin.end())
        if end is not None:
            stop = end.end()
        else:
            end_missing = True
            body = _KEY_BODY.match(text, begin.end())
            stop = body.end() if body else begin.end()
        yield _Span(begin.start(), stop, "private-key", _RANK_PRIVATE_KEY)
        position = stop


# --- passwords in URLs -----------------------------------------------------------------

# Anchored on "://" (a literal sre finds fast); a scheme character must come before it.
_URL_PASSWORD = re.compile(
    r"://(?<=[A-Za-z0-9+.-]://)"
    r"[^\s:/?#@\[\]]{0,256}+:"  # user
    r"(?P<password>[^\s/?#@]{1,256}+)@"
)


def _url_passwords(text: str) -> Iterator[_Span]:
    for match in _URL_PASSWORD.finditer(text):
        password = match.group("password")
        if not _is_placeholder(password):
            start, end = match.span("password")
            yield _Span(start, end, "url-password", _RANK_URL)


# --- KEY=value assignments -------------------------------------------------------------

# Keys are found from the secret-ish word in them, searched in an ASCII-lowercased bytes copy
# of the text (same offsets, and far faster than a case-insensitive pattern).
_KEY_WORD = re.compile(
    rb"password|passwd|passphrase|secret|token|api[_.-]?key|access[_.-]?key"
    rb"|private[_.-]?key|credential|auth(?!or(?!iz))"  # not author/authority; authorization
)
_KEY_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.-")
_KEY_RUN = re.compile(rb"[a-z0-9_.-]*+")
MAX_KEY_LENGTH = 64

# After the key: separator and value. Bare values exclude separators, so a value never runs
# into the next `key=`; the scan goes on inside a value that is not a secret (`a=x&token=...`).
_VALUE = re.compile(
    r"[\"']?[ \t]{0,8}+(?::=|=>|[:=])[ \t]{0,8}+"
    r"(?:\"(?P<dq>[^\"\n]{1,512}+)\"|'(?P<sq>[^'\n]{1,512}+)'"
    r"|(?P<bare>[^\s\"'`,;:=(){}\[\]<>&]{1,512}+={0,3}+)(?P<after>[(\[]?))"
)

# Keys that name something about a secret rather than the secret: its file, size, URL...
_NOT_SECRET_KEY = re.compile(
    r"(?:file|path|url|uri|dir|endpoint|name|type|count|limit|length|len|size|id|env|var"
    r"|header|field|method|mode|provider|expiry|expires|ttl|timeout|version|format)s?$"
    r"|tokeniz"
)
_AWS_SECRET_KEY = re.compile(r"secretaccesskey|awssecretkey")
_AWS_SECRET_VALUE = re.compile(r"[A-Za-z0-9/+]{40}")


def _normalized_key(key: str) -> str:
    # API_KEY, api-key, apiKey and api.key all read "apikey".
    return re.sub(r"[^a-z0-9]", "", key.lower())


def _secret_keys(text: str) -> Iterator[tuple[str, int]]:
    """(key, end) for each key-like run of characters holding a secret-ish word."""
    lowered = text.encode("ascii", "replace").lower()  # one byte per character
    position = 0
    while hit := _KEY_WORD.search(lowered, position):
        start = hit.start()
        floor = max(0, start - MAX_KEY_LENGTH)
        while start > floor and lowered[start - 1] in _KEY_BYTES:
            start -= 1
        run = _KEY_RUN.match(lowered, hit.end())
        end = run.end() if run else hit.end()
        position = end  # each run is looked at once, however many words it holds
        too_long = start > 0 and lowered[start - 1] in _KEY_BYTES
        if not too_long and end - start <= MAX_KEY_LENGTH:
            yield text[start:end], end


def _assignments(text: str) -> Iterator[_Span]:
    for raw_key, key_end in _secret_keys(text):
        match = _VALUE.match(text, key_end)
        if match is None:
            continue
        key = _normalized_key(raw_key)
        group = next(name for name in ("dq", "sq", "bare") if match.group(name) is not None)
        value = match.group(group)
        start, end = match.span(group)
        if _AWS_SECRET_KEY.search(key) and _AWS_SECRET_VALUE.fullmatch(value):
            yield _Span(start, end, "aws-secret-key", _RANK_AWS_SECRET)
        elif _NOT_SECRET_KEY.search(key) or "://" in value or value.startswith(("/", "./", "~/")):
            continue
        elif group == "bare" and (match.group("after") or _looks_like_code(value)):
            continue  # `password = get_password(...)`, `token = os.environ[...]`: code
        elif _looks_random(value):
            yield _Span(start, end, "secret-assignment", _RANK_ASSIGNMENT)


# --- secrets in prose ------------------------------------------------------------------

# "my password is <value>", "password <value>", "pwd=<value>": a secret-ish word on its own,
# then `is`, `:`, `=` or only a space, then a value. Prose has no syntax to lean on, so the
# value alone decides: it must mix character classes and look random, which words ("the
# password field", "password reset flow") and code (`request.form[...]`) do not.
_PROSE_KEY = re.compile(rb"(?:pass(?:word|wd|phrase)|pwd|secret|token|api[ _-]?key)(?![a-z0-9_])")
_ALNUM_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_PROSE_VALUE = re.compile(
    r"(?:[ \t]{0,8}+[:=][ \t]{0,8}+|[ \t]{1,8}+(?:[Ii][Ss]|[Ww]as)[ \t]{1,8}+|[ \t]{1,8}+)"
    r"[\"'`]?(?P<value>[^\s\"'`<>()\[\]{},;]{1,256}+)"
)
MIN_PROSE_SECRET_LENGTH = 8  # passwords are shorter than keys
_TRAILING_PUNCTUATION = ".!?:"


def _prose_value(value: str) -> bool:
    if len(value) < MIN_PROSE_SECRET_LENGTH or _is_placeholder(value):
        return False
    if "://" in value or value.startswith(("/", "./", "~/")):
        return False
    if _IDENTIFIER.fullmatch(value) and ("_" in value or "." in value):
        return False  # `token = token_v2`, `key = settings.API_KEY2`: code
    letter = any(c.isalpha() for c in value)
    digit = any(c.isdigit() for c in value)
    classes = (
        any(c.islower() for c in value),
        any(c.isupper() for c in value),
        digit,
        any(not c.isalnum() and c not in "_-./" for c in value),
    )
    mixed = (letter and digit) or sum(classes) >= 3
    return mixed and shannon_entropy(value) >= _entropy_threshold(len(value))


def _prose_secrets(text: str, lowered: bytes) -> Iterator[_Span]:
    scanned = 0  # a word inside a value already looked at starts nothing: each value once
    for hit in _PROSE_KEY.finditer(lowered):
        inside = hit.start() < scanned or (hit.start() and lowered[hit.start() - 1] in _ALNUM_BYTES)
        match = None if inside else _PROSE_VALUE.match(text, hit.end())
        if match is None:
            continue
        scanned = match.end()
        start, end = match.span("value")
        while end > start and text[end - 1] in _TRAILING_PUNCTUATION:
            end -= 1  # the full stop after "my password is ...", not the password's
        code = end == match.end() and text[end : end + 1] in ("(", "[")
        if not code and _prose_value(text[start:end]):
            yield _Span(start, end, "secret-assignment", _RANK_PROSE)


# A bare AWS secret access key (40 base64 characters) near "aws" or "secret": it has no
# prefix of its own, so only what is written near it says what it is.
_AWS_CONTEXT = re.compile(rb"aws|secret")  # a literal first: sre searches for it fast
_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_BASE64_40 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}")
AWS_CONTEXT_DISTANCE = 100  # characters between the word and the key, either side
MIN_AWS_ENTROPY = 4.0  # random 40-character base64 has about 4.6 bits per character
MAX_AWS_WORD_LENGTH = 4.25  # mean word length: 3.7 at most for random keys; paths have more


def _near(lowered: bytes, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Merged windows around each context word: each character is scanned once."""
    low = high = -1
    for hit in _AWS_CONTEXT.finditer(lowered, start, end):
        a, b = max(0, hit.start() - AWS_CONTEXT_DISTANCE), hit.end() + AWS_CONTEXT_DISTANCE
        if a <= high:
            high = b
            continue
        if high >= 0:
            yield low, high
        low, high = a, b
    if high >= 0:
        yield low, high


def _aws_key_value(value: str) -> bool:
    classes = (
        any(c.islower() for c in value),
        any(c.isupper() for c in value),
        any(c.isdigit() for c in value),
        "+" in value or "/" in value,
    )
    words = _WORD.findall(value)
    mean = sum(map(len, words)) / len(words) if words else 0.0
    return (
        sum(classes) >= 3  # a git id is hex: one case only
        and shannon_entropy(value) >= MIN_AWS_ENTROPY
        and mean <= MAX_AWS_WORD_LENGTH
    )


def _context_word_near(lowered: bytes, start: int, end: int) -> bool:
    """The word outside the key itself, within the distance before or after it."""
    before = _AWS_CONTEXT.search(lowered, max(0, start - AWS_CONTEXT_DISTANCE), start)
    return before is not None or (
        _AWS_CONTEXT.search(lowered, end, end + AWS_CONTEXT_DISTANCE) is not None
    )


def _bare_aws_secrets(text: str, lowered: bytes) -> Iterator[_Span]:
    for low, high in _near(lowered, 0, len(lowered)):
        for match in _BASE64_40.finditer(text, low, min(len(text), high + 41)):
            start, end = match.span()
            if start >= high:
                break
            if end < len(text) and text[end] in _BASE64_CHARS:
                continue  # part of a longer run: not a 40-character key
            if _aws_key_value(match.group()) and _context_word_near(lowered, start, end):
                yield _Span(start, end, "aws-secret-key", _RANK_AWS_SECRET)


def _prose(text: str) -> Iterator[_Span]:
    lowered = text.encode("ascii", "replace").lower()  # one byte per character
    yield from _prose_secrets(text, lowered)
    yield from _bare_aws_secrets(text, lowered)


# --- detect-secrets' formats, and tokens split or encoded -------------------------------


def _known_formats(text: str) -> Iterator[_Span]:
    for start, end, kind in format_spans(text):
        yield _Span(start, end, kind, _RANK_FORMAT)


def _token_formats(text: str) -> Iterator[_Span]:
    """Fixed token formats only (no context words): what a piece of a token can be."""
    yield from _formats(text)
    yield from _known_formats(text)


# A string literal continued on the next line: `"ghp_abc" +\n    "def"` (Python, JS, Java, C).
_SEAM = re.compile(r"[\"'][ \t]{0,8}+\+?[ \t]{0,8}+\\?\r?\n[ \t]{0,64}+\+?[ \t]{0,8}+[\"']")
SEAM_REACH = 300  # characters looked at on each side of a seam (a token is shorter)


def _split_tokens(text: str) -> Iterator[_Span]:
    """A token cut in two by a line break inside a string literal: each seam is closed up
    (with at most SEAM_REACH characters each side, and never past the next seam, so the
    cost stays linear) and a format that crosses it is redacted in both parts."""
    seams = [m.span() for m in _SEAM.finditer(text)]
    for index, (start, end) in enumerate(seams):
        left_from = max(seams[index - 1][1] if index else 0, start - SEAM_REACH)
        right_to = min(
            seams[index + 1][0] if index + 1 < len(seams) else len(text), end + SEAM_REACH
        )
        left, right = text[left_from:start], text[end:right_to]
        for span in _token_formats(left + right):
            if span.start < len(left) < span.end:
                yield _Span(left_from + span.start, start, span.kind, _RANK_FORMAT)
                yield _Span(end, end + span.end - len(left), span.kind, _RANK_FORMAT)


# Standard base64 of at least 24 characters, not inside a longer run; longer than
# MAX_ENCODED it is data (an image, a bundle), not a token.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,4097}+={0,2}+(?![A-Za-z0-9+/=])")
MAX_ENCODED = 4096


def _encoded_tokens(text: str) -> Iterator[_Span]:
    """A token written in base64 (`echo Z2hwX... | base64 -d`, a Basic credential): runs
    that decode to printable ASCII are decoded and looked at for token formats."""
    for match in _BASE64.finditer(text):
        run = match.group()
        if len(run) > MAX_ENCODED or len(run) % 4:
            continue
        try:
            decoded = base64.b64decode(run, validate=True).decode("ascii")
        except (binascii.Error, UnicodeDecodeError):
            continue
        if decoded.isprintable() and any(True for _ in _token_formats(decoded)):
            yield _Span(match.start(), match.end(), "base64-secret", _RANK_FORMAT)


# --- putting it together ---------------------------------------------------------------

# Every kind a Finding can have, for reports and documentation.
KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            *(fmt.kind for fmt in _FORMATS),
            *FORMAT_KINDS,
            "base64-secret",
            "private-key",
            "url-password",
            "aws-secret-key",
            "secret-assignment",
        )
    )
)

_DETECTORS: tuple[Callable[[str], Iterator[_Span]], ...] = (
    _private_keys,
    _formats,
    _known_formats,
    _split_tokens,
    _encoded_tokens,
    _url_passwords,
    _assignments,
    _prose,
)


def _merge(spans: Iterable[_Span]) -> list[_Span]:
    """Overlapping spans become one, of the kind that starts first (or ranks first): no
    part of a secret is left behind when two detectors disagree on its extent."""
    merged: list[_Span] = []
    for span in sorted(spans, key=lambda s: (s.start, s.rank, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            if span.end > last.end:
                merged[-1] = _Span(last.start, span.end, last.kind, last.rank)
        else:
            merged.append(span)
    return merged


def _spans(text: str) -> list[_Span]:
    return _merge(span for detect in _DETECTORS for span in detect(text))


def _findings(text: str, spans: list[_Span]) -> list[Finding]:
    findings = []
    line, counted = 1, 0
    for span in spans:  # sorted by start: newlines are counted once in all
        line += text.count("\n", counted, span.start)
        counted = span.start
        findings.append(Finding(span.kind, line))
    return findings


def redact(text: str) -> tuple[str, list[Finding]]:
    """The text with every secret replaced by [REDACTED:<kind>], and what was replaced.
    Idempotent: redacting redacted text changes nothing."""
    spans = _spans(text)
    if not spans:
        return text, []
    pieces = []
    position = 0
    for span in spans:
        pieces.append(text[position : span.start])
        pieces.append(MARKER.format(kind=span.kind))
        position = span.end
    pieces.append(text[position:])
    return "".join(pieces), _findings(text, spans)


def find_secrets(text: str) -> list[Finding]:
    """What `redact` would replace, without building the redacted text."""
    return _findings(text, _spans(text))


def summarize(findings_by_file: dict[str, list[Finding]]) -> list[dict[str, object]]:
    """One row per file and kind, for reports: how many and on which lines."""
    rows: list[dict[str, object]] = []
    for file in sorted(findings_by_file):
        lines_by_kind: dict[str, list[int]] = {}
        for finding in findings_by_file[file]:
            lines_by_kind.setdefault(finding.kind, []).append(finding.line)
        for kind in sorted(lines_by_kind):
            lines = lines_by_kind[kind]
            rows.append(
                {"file": file, "kind": kind, "count": len(lines), "lines": sorted(set(lines))}
            )
    return rows
