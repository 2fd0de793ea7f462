"""Secret redaction: every kind is found and replaced on the right line, ordinary code is left
alone, redaction is idempotent, and adversarial inputs finish.

No secret-looking literal is committed here: fake secrets are built at runtime, from a seeded
random generator (random-looking, for the entropy rule) and concatenated prefixes (so secret
scanners see no token in this file).
"""

import base64
import json
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_teddy.redact import KINDS, Finding, find_secrets, redact, shannon_entropy, summarize
from git_teddy.secret_formats import (
    COPIED_FROM,
    FORMAT_KINDS,
    PLUGIN_PATTERNS,
    installed_version,
    library_patterns,
)
from testing.cpu import cpu_timed
from testing.fake_secrets import ALNUM, fake
from testing.secret_corpus import SECRETS as CORPUS

BASE64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


def jwt() -> str:
    def segment(obj: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    header = segment({"alg": "HS256", "typ": "JWT"})
    payload = segment({"sub": "1234567890", "name": "Test", "iat": 1516239022})
    return f"{header}.{payload}.{fake(43, URLSAFE)}"


def private_key(label: str = "RSA ") -> str:
    dashes = "-" * 5
    body = "\n".join(fake(64, BASE64, seed=n) for n in range(5))
    return (
        f"{dashes}BEGIN {label}PRIVATE KEY{dashes}\n{body}\n{dashes}END {label}PRIVATE KEY{dashes}"
    )


# kind -> (secret, a line holding it); the secret is what must disappear.
SECRETS: dict[str, tuple[str, str]] = {
    "aws-access-key": (a := "AK" + "IA" + fake(16, string.ascii_uppercase + string.digits), a),
    "aws-secret-key": (
        b := fake(40, BASE64),
        f"aws_secret_access_key = {b}",
    ),
    "gcp-api-key": (c := "AI" + "za" + fake(35, URLSAFE), f'key: "{c}"'),
    "github-token": (d := "gh" + "p_" + fake(36), f"GITHUB_TOKEN={d}"),
    "gitlab-token": (e := "gl" + "pat-" + fake(20, URLSAFE), f"using {e} now"),
    "openai-key": (f := "sk" + "-proj-" + fake(120, URLSAFE), f"export OPENAI_API_KEY={f}"),
    "anthropic-key": (g := "sk" + "-ant-api03-" + fake(93, URLSAFE), f"key={g}"),
    "slack-token": (h := "xo" + "xb-" + fake(12, string.digits) + "-" + fake(24), f"slack {h}"),
    "jwt": (i := jwt(), f"cookie: session={i}; Path=/"),
    "bearer-token": (j := fake(40, URLSAFE), f"Authorization: Bearer {j}"),
    "url-password": (k := fake(16), f"DATABASE_URL=postgres://app:{k}@db.internal:5432/app"),
    "secret-assignment": (m := fake(24, ALNUM + "!#%&*"), f'"client_secret": "{m}",'),
}
# The vendors' formats (detect-secrets' and the redactor's own) and base64-encoded tokens:
# one example of each from the labelled corpus.
_FROM_CORPUS = {kind: kind for kind in FORMAT_KINDS} | {"base64-secret": "base64-token"}
for _kind, _corpus_kind in _FROM_CORPUS.items():
    if _kind not in SECRETS:
        _example = next(s for s in CORPUS if s.kind == _corpus_kind)
        SECRETS[_kind] = (_example.secret, _example.text)


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_is_replaced_on_its_line(kind: str) -> None:
    secret, line = SECRETS[kind]
    text = f"first line\nsecond line\n{line}\nlast line\n"
    redacted, findings = redact(text)
    assert secret not in redacted
    assert findings == [Finding(kind, 3)]
    assert redacted == text.replace(secret, f"[REDACTED:{kind}]")
    assert find_secrets(text) == findings


def test_the_copied_plugin_patterns_are_the_installed_librarys() -> None:
    # A newer detect-secrets is used through its import; bring the copy up to it here.
    assert installed_version() == COPIED_FROM
    copied = [(kind, re.compile(pattern, flags)) for kind, pattern, flags in PLUGIN_PATTERNS]
    assert [(kind, p.pattern, p.flags) for kind, p in copied] == [
        (kind, p.pattern, p.flags) for kind, p in library_patterns()
    ]


def test_every_kind_is_tested() -> None:
    assert set(KINDS) == set(SECRETS) | {"private-key", "basic-auth"}


def test_offsets_hold_in_non_ascii_text() -> None:
    # Keys are searched in a one-byte-per-character copy: characters that lowercase to two
    # (İ) or that are not encodable (lone surrogates) must not shift what gets replaced.
    value = fake(20)
    for before in ("é😀İ ", "İİİ\n", "\udcff "):
        text = f"{before}password = {value} ü"
        assert redact(text)[0] == f"{before}password = [REDACTED:secret-assignment] ü"


def test_basic_auth_header() -> None:
    encoded = base64.b64encode(b"admin:" + fake(12).encode()).decode()
    assert redact(f"Authorization: Basic {encoded}")[0] == (
        "Authorization: Basic [REDACTED:basic-auth]"
    )


def test_more_fixed_formats() -> None:
    others = {
        "ASIA" + fake(16, string.ascii_uppercase + string.digits): "aws-access-key",
        "github_pat_" + fake(82, ALNUM + "_"): "github-token",
        "gho_" + fake(36): "github-token",
        "sk-" + fake(48): "openai-key",
        "xoxp-" + fake(30, ALNUM + "-"): "slack-token",
    }
    for secret, kind in others.items():
        assert redact(f"value {secret}.") == (f"value [REDACTED:{kind}].", [Finding(kind, 1)])


def test_line_numbers_for_many_secrets() -> None:
    token = "ghp_" + fake(36)
    text = "\r\n".join(["a", token, "b", "c", f"x {token} y {token}", ""])
    assert [f.line for f in redact(text)[1]] == [2, 5, 5]


def test_private_key_block_is_one_marker() -> None:
    text = f"before\n{private_key()}\nafter\n"
    redacted, findings = redact(text)
    assert redacted == "before\n[REDACTED:private-key]\nafter\n"
    assert findings == [Finding("private-key", 2)]
    for label in ("", "EC ", "OPENSSH ", "ENCRYPTED "):
        assert redact(private_key(label))[0] == "[REDACTED:private-key]"


def test_private_key_in_a_json_string() -> None:
    escaped = json.dumps({"private_key": private_key()})
    assert redact(escaped)[0] == '{"private_key": "[REDACTED:private-key]"}'


def test_truncated_private_key_takes_its_body() -> None:
    cut = private_key().rsplit("\n", 2)[0]  # no END line
    text = f"{cut}\n\nThe key above was cut.\n"
    assert redact(text) == (
        "[REDACTED:private-key]\n\nThe key above was cut.\n",
        [Finding("private-key", 1)],
    )


def test_url_password_keeps_user_and_host() -> None:
    password = fake(14)
    for url in (
        f"https://deploy:{password}@git.example.com/repo.git",
        f"redis://:{password}@cache:6379/0",
        f"amqp://guest:{password}@localhost",
    ):
        scheme_user, host = url.split(password)
        assert redact(f"url {url} end")[0] == f"url {scheme_user}[REDACTED:url-password]{host} end"


@pytest.mark.parametrize(
    "line",
    [
        "API_KEY={v}",
        "export SECRET_TOKEN='{v}'",
        'password: "{v}"',
        "db_password: {v}",
        '{{"apiKey": "{v}"}}',
        "auth_token := {v}",
        "Authorization = {v}",
        "--password={v}",
        "credentials => {v}",
        "X-Api-Key: {v}",
        "name=x&token={v}",
    ],
)
def test_secret_assignments_keep_the_key(line: str) -> None:
    value = fake(20, ALNUM, seed=len(line))
    text = line.format(v=value)
    assert redact(text) == (
        line.format(v="[REDACTED:secret-assignment]"),
        [Finding("secret-assignment", 1)],
    )


def test_entropy_rule() -> None:
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("abcd") == 2.0
    random_value = fake(16)
    assert shannon_entropy(random_value) >= 3.5
    assert redact(f"password = {random_value}")[1]
    for value in (
        "hunter2",  # short
        "aaaaaaaaaaaaaaaaaaaa",  # low entropy
        "abababab12121212",  # low entropy
        "CorrectHorseBatteryStaple",  # words: letters only
        "changeme" + fake(8),  # placeholder
        "${DB_PASSWORD}",
        "<your-api-key>",
        "xxxxxxxxxxxxxxxxxxxx",
    ):
        assert redact(f"password = {value}")[1] == [], value
        assert redact(f'"token": "{value}"')[1] == [], value


NON_SECRETS = [
    "commit da39a3ee5e6b4b0d3255bfef95601890afd80709 (HEAD -> main)",
    'request_id = "123e4567-e89b-12d3-a456-426614174000"',
    '"image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'
    'YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="',
    'password = os.environ["PASSWORD"]',
    "token = os.environ.get('GITHUB_TOKEN')",
    "auth = requests.auth.HTTPBasicAuth(user, password)",
    "secret_key_b64 = base64.b64encode(secret_key_bytes1)",
    "token_count = 1234",
    "max_tokens: 4096",
    'tokenizer = "cl100k_base_2024"',
    "https://github.com/owner/repo/blob/main/README.md",
    "http://localhost:8080/path?user=me&page=2",
    "ssh://git@github.com:22/owner/repo.git",
    "git@github.com:owner/repo.git",
    "the prefix sk- alone, and sk-learn, and task-runner-with-a-long-kebab-case-name-here",
    "def get_token(self) -> str:",
    "    api_key: str | None = None",
    'def login(password: str = "") -> None:',
    "token = self._token_from_keyring2",
    "secret_name: my-app-secret-2024",
    'password_file = "/run/secrets/db_password_v2"',
    'auth_url = "https://auth.example.com/oauth2/v1/token"',
    'author = "Jane Q. Public, 1970-01-01"',
    '"authorization": "{{ auth_header_value_2 }}"',
    "password: ${DB_PASSWORD}",
    "api_key: <your-api-key-1234>",
    'token = "changeme123456"',
    "secret=xxxxxxxxxxxxxxxxxxxxxxx",
    "Bearer tokens expire after an hour; the Basic authentication scheme is older.",
    'hash = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
    "eyJhbGciOiJIUzI1NiJ9 is only a header",
    "AKIA1234 is too short",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
    "Already [REDACTED:github-token] and password = [REDACTED:secret-assignment]",
    'url = "https://user:[REDACTED:url-password]@example.com"',
    'Traceback (most recent call last):\n  File "/usr/lib/python3.11/auth.py", line 12',
]


@pytest.mark.parametrize("text", NON_SECRETS)
def test_ordinary_text_is_untouched(text: str) -> None:
    assert redact(text) == (text, [])


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_redaction_is_idempotent(kind: str) -> None:
    once = redact(SECRETS[kind][1])[0]
    assert redact(once) == (once, [])


FRAGMENTS = [line for _, line in SECRETS.values()] + NON_SECRETS + [private_key(), " ", "\n"]


@settings(max_examples=200, deadline=None)
# Fragments are joined by a separator: two tokens glued together read as one longer token.
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12), st.sampled_from([" ", "\n", " = ", ", "]))
def test_mixed_text_is_redacted_once_and_for_all(parts: list[str], glue: str) -> None:
    text = glue.join(parts)
    once, findings = redact(text)
    assert redact(once) == (once, [])
    assert find_secrets(text) == findings
    for secret, _ in SECRETS.values():
        assert secret not in once


def test_summarize() -> None:
    findings = {
        "_context.log": [Finding("jwt", 9), Finding("github-token", 2), Finding("jwt", 4)],
        "03/reply.md": [Finding("openai-key", 1)],
        "clean.txt": [],
    }
    assert summarize(findings) == [
        {"file": "03/reply.md", "kind": "openai-key", "count": 1, "lines": [1]},
        {"file": "_context.log", "kind": "github-token", "count": 1, "lines": [2]},
        {"file": "_context.log", "kind": "jwt", "count": 2, "lines": [4, 9]},
    ]
    assert summarize({}) == []


MB = 1 << 20
ADVERSARIAL = {
    "one long run": "a" * MB,
    "BEGIN without END": ("-----BEGIN RSA PRIVATE KEY-----" * (MB // 31)),
    "BEGIN lines without END": ("-----BEGIN PRIVATE KEY-----\n" * (MB // 28)),
    "scheme separators": "x://" * (MB // 4),
    "users without host": "x://u:p" * (MB // 7),
    "JWT headers": "eyJ" * (MB // 3),
    "JWT-like segments": "eyJaaaaa." * (MB // 9),
    "token prefixes": "ghp_sk-xoxb-glpat-AIza" * (MB // 22),
    "keys without values": "token" * (MB // 5),
    "dense assignments": "token=" * (MB // 6),
    "open quotes": 'password="x' * (MB // 11),
    "dotted run": "a." * (MB // 2),
    "long base64 line": "QUFB" * (MB // 4),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_inputs_finish(name: str) -> None:
    text = ADVERSARIAL[name]
    (redacted, _), took = cpu_timed(lambda: redact(text))
    assert took < 10, f"{took:.1f} CPU seconds: quadratic again?"
    assert redact(redacted)[0] == redacted
