"""The labelled redaction corpus (issue 25): secrets of 30+ kinds in their real formats, and
look-alikes that are not secrets. Made at run time from a seeded generator, so that the
repository holds no secret-looking literal; every token is fake.

`SECRETS`: the kind, a text holding the secret, and the part that must be redacted.
`LOOKALIKES`: texts with nothing to redact (git ids, UUIDs, lock-file hashes, base64 images,
placeholders, code, file names).
"""

import base64
import hashlib
import random
import string
import uuid
from collections.abc import Callable
from typing import NamedTuple

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UPPER = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"
BASE64 = ALNUM + "+/"

# How a token is written where people paste it; each kind cycles through these.
WHERE = (
    "{t}",
    "export TOKEN_VALUE={t}",
    "token: {t}",
    "curl -H 'X-Auth: {t}' https://api.example.com",
    "config['key'] = \"{t}\"",
)


class Secret(NamedTuple):
    kind: str
    text: str
    secret: str


class LookAlike(NamedTuple):
    kind: str
    text: str


_random = random.Random(20261127)


def _s(length: int, alphabet: str = ALNUM) -> str:
    return "".join(_random.choices(alphabet, k=length))


def _jwt() -> str:
    def part(raw: str) -> str:
        return base64.urlsafe_b64encode(raw.encode()).rstrip(b"=").decode()

    header = part('{"alg":"HS256","typ":"JWT"}')
    claims = part('{"sub":"' + _s(10) + '","iat":1516239022}')
    return f"{header}.{claims}.{_s(43, URLSAFE)}"


# kind -> how one token of it is made (four of each, in the WHERE shapes)
TOKENS: dict[str, Callable[[], str]] = {
    "aws-access-key": lambda: "AKIA" + _s(16, UPPER),
    "github-token": lambda: _random.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + _s(36),
    "github-fine-grained": lambda: "github_pat_" + _s(22) + "_" + _s(59),
    "gitlab-token": lambda: "glpat-" + _s(20, URLSAFE),
    "slack-token": lambda: f"xoxb-{_s(11, string.digits)}-{_s(13, string.digits)}-{_s(24)}",
    "stripe-key": lambda: _random.choice(["sk_", "rk_"]) + "live_" + _s(24),
    "huggingface-token": lambda: "hf_" + _s(34),
    "npm-token": lambda: "npm_" + _s(36),
    "pypi-token": lambda: "pypi-AgEIcHlwaS5vcmc" + _s(80, URLSAFE),
    "openai-key": lambda: "sk-proj-" + _s(48, URLSAFE) + "T3BlbkFJ" + _s(20),
    "anthropic-key": lambda: "sk-ant-api03-" + _s(93, URLSAFE) + "AA",
    "gcp-api-key": lambda: "AIza" + _s(35, URLSAFE),
    "sendgrid-key": lambda: f"SG.{_s(22, URLSAFE)}.{_s(43, URLSAFE)}",
    "twilio-key": lambda: "SK" + _s(32, HEX),
    "discord-token": lambda: f"{_random.choice('MNO')}{_s(23)}.{_s(6, URLSAFE)}.{_s(27, URLSAFE)}",
    "telegram-token": lambda: f"{_s(10, string.digits)}:AA{_s(33, URLSAFE)}",
    "mailchimp-key": lambda: f"{_s(32, HEX)}-us{_random.randint(1, 20)}",
    "jwt": _jwt,
    "shopify-token": lambda: _random.choice(["shpat_", "shpss_"]) + _s(32, HEX),
    "digitalocean-token": lambda: "dop_v1_" + _s(64, HEX),
    "square-token": lambda: "sq0atp-" + _s(22, URLSAFE),
    "databricks-token": lambda: "dapi" + _s(32, HEX),
}


def _in_context(kind: str, shapes: list[str], make: Callable[[], str]) -> list[Secret]:
    found = []
    for shape in shapes:
        token = make()
        found.append(Secret(kind, shape.format(t=token), token))
    return found


def _secrets() -> list[Secret]:
    found: list[Secret] = []
    for kind, make in TOKENS.items():
        found += _in_context(kind, [WHERE[i % len(WHERE)] for i in range(4)], make)
    stripe = "sk_" + "live_" + _s(24)
    found.append(Secret("stripe-key", f"STRIPE_KEY={stripe}", stripe))
    found += _in_context(
        "aws-secret-key",
        [
            "aws_secret_access_key = {t}",
            "my AWS secret is {t}",
            "AWS_SECRET_ACCESS_KEY={t}",
            "the aws secret key: {t}",
        ],
        lambda: _s(40, BASE64),
    )
    found += _in_context(
        "slack-webhook",
        ["webhook: {t}", "{t}", "SLACK_URL={t}", "post to {t}"],
        lambda: f"https://hooks.slack.com/services/T{_s(8, UPPER)}/B{_s(8, UPPER)}/{_s(24)}",
    )
    found += _in_context(
        "password-assignment",
        ["DB_PASSWORD={t}", 'password: "{t}"', "secret_key = '{t}'", "api_key: {t}"],
        lambda: _s(20) + _random.choice("!#%") + _s(6),
    )
    found += _in_context(
        "prose-secret",
        [
            "the token is {t}",
            "my password is {t} please keep it",
            "use this api key: {t}",
            "The secret is {t}.",
        ],
        lambda: _s(24),
    )
    found += _in_context(
        "base64-token",
        ["auth: {t}", "echo {t} | base64 -d", "GITHUB_B64={t}", "{t}"],
        lambda: base64.b64encode(("ghp_" + _s(36)).encode()).decode(),
    )
    found += _in_context(
        "azure-storage-key",
        ["DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={t};EndpointSuffix=x"] * 4,
        lambda: _s(86, BASE64) + "==",
    )
    found += _in_context("bearer-token", ["Authorization: Bearer {t}"] * 4, lambda: _s(32))
    for _ in range(4):
        password = _s(14)
        url = f"postgres://app:{password}@db.internal:5432/prod"
        found.append(Secret("url-password", f"DATABASE_URL={url}", password))
    for cut in range(18, 22):  # a token cut over two lines of string literals
        token = "ghp_" + _s(36)
        found.append(
            Secret("split-token", f'token = "{token[:cut]}" +\n    "{token[cut:]}"', token[cut:])
        )
    for _ in range(4):
        body = "\n".join(_s(64, BASE64) for _ in range(6))
        block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
        found.append(Secret("private-key", block, body.splitlines()[0]))
    for folder in ("backups", "keys", "tmp/old", "exports"):
        token = "ghp_" + _s(36) if folder != "keys" else "AKIA" + _s(16, UPPER)
        found.append(Secret("file-name", f"{folder}/{token}.txt", token))
    return found


def _hashes() -> list[LookAlike]:
    found = []
    for i in range(10):
        digest = hashlib.sha512(_s(10).encode()).digest()
        sha1 = hashlib.sha1(digest).hexdigest()
        sha256 = hashlib.sha256(digest).hexdigest()
        b64 = base64.b64encode(digest).decode()
        found += [
            LookAlike(
                "git-id", [f"commit {sha1}", f"Fixes {sha1[:12]}", f"object {sha256}"][i % 3]
            ),
            LookAlike(
                "lockfile-hash",
                [
                    f'      "integrity": "sha512-{b64}"',
                    f"  integrity sha512-{b64}",
                    f"example.com/mod v1.2.3 h1:{base64.b64encode(digest[:32]).decode()}",
                    f"    --hash=sha256:{sha256}",
                    f'checksum = "{sha256}"',
                ][i % 5],
            ),
            LookAlike("uuid", f"request_id={uuid.UUID(int=_random.getrandbits(128))}"),
            LookAlike("docker-digest", f"FROM python:3.11@sha256:{sha256}"),
        ]
        image = base64.b64encode(bytes(_random.getrandbits(8) for _ in range(60))).decode()
        found.append(LookAlike("base64-image", f'<img src="data:image/png;base64,{image}">'))
    return found


PLAIN = {
    "placeholder": [
        "aws_access_key_id: ${AWS_ACCESS_KEY_ID}",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",  # AWS's documented example, alone
        "password = 'changeme'",
        "api_key: your-api-key-here",
        "token: <YOUR_TOKEN>",
        "PASSWORD=${DB_PASSWORD}",
        "secret = os.environ['SECRET_KEY']",
        'password: "{{ vault_password }}"',
        "token = get_token()",
        "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxx",
    ],
    "code": [
        "def test_password_reset_sends_email(client):",
        "class TokenRefreshSerializer(serializers.Serializer):",
        "const secretManagerClient = new SecretManagerServiceClient();",
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "if (token === undefined) throw new Error('missing token');",
        "self.assertEqual(response.status_code, 401)",
        "getAuthorizationHeaderValueFromRequestContext",
        "export const API_BASE_URL = 'https://api.example.com/v1';",
        "SECRET_KEY_SETTING_NAME = 'DJANGO_SECRET_KEY'",
        "token_type_hint: refresh_token",
    ],
    "misc": [
        "#3b82f6",
        "https://user@example.com/repo.git",
        "git@github.com:owner/repo.git",
        "version 1.24.0-rc.1+build.20261127",
        "e-mail: jane.doe@example.com",
        "sk-learn is scikit-learn",
        "ghp_ prefix marks a personal access token",
        "np.random.seed(1234567890)",
        "0x7fffffffffffffff",
        "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 user@host",
        "script-src 'sha256-B2yPHKaXnvFWtRChIbabYmUBFZdVfKKXHbWtWidDVF8='",
        "/usr/lib/python3.11/site-packages/requests/adapters.py",
        "aHR0cHM6Ly9leGFtcGxlLmNvbS8=",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGbsrL7aHjhJ3p0pLhT9Y1 user@laptop",
        "localhost:5432/postgres",
        "Bearer token required",
        "Basic authentication is disabled",
        "sk_test_ prefixed keys are for test mode",
        "MIT License Copyright (c) 2026",
        "The quick brown fox jumps over the lazy dog",
    ],
    "file-name": [
        "src/components/PasswordResetForm.tsx",
        "tests/test_token_refresh.py",
        "docs/secrets-management.md",
        "config/credentials.example.yml",
        "migrations/0042_add_api_key_field.py",
        "assets/logo-3b82f6a1c9e04d7f.png",
        "dist/app.4f9a2c1e.js",
        "fixtures/aws_keys_redacted.json",
        "lib/jwt_decoder.rb",
        "cmd/secretsctl/main.go",
    ],
}


def _lookalikes() -> list[LookAlike]:
    plain = [LookAlike(kind, text) for kind, texts in PLAIN.items() for text in texts]
    return _hashes() + plain


SECRETS = _secrets()
LOOKALIKES = _lookalikes()
