"""Fault suite, secrets (issue 14, items 17-19): secrets written in prose are redacted, the
model is sent what `_context.log` shows (redacted unless `teddy.redactRequests` is off), and
a plan's CREATE runs what the model wrote while its commit holds the redacted plan.

Secret-looking values are built at run time (testing/fake_secrets.py): the repository holds
none, and secret scanners see no token in this file.
"""

from pathlib import Path

import pytest
import yaml

from git_teddy.redact import find_secrets, redact
from testing.commands import Teddy, git
from testing.cpu import cpu_timed
from testing.fake_secrets import ALNUM, fake
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import create, plan_text
from testing.sessions import queue

BASE64 = ALNUM + "+/"
# The shape of an AWS secret access key: 40 base64 characters, both cases and digits.
AWS_SECRET = fake(40, BASE64, seed=17)
PASSWORD = "S3cr3t" + "Passw0rd"  # the example, split so no scanner reads it whole
PASSWORDS = [PASSWORD, fake(12, ALNUM + "!#%", seed=18), fake(9, ALNUM, seed=19)]


def fsck(repo: Path, env: dict[str, str]) -> None:
    git(repo, env, "fsck", "--strict", "--no-dangling")


# ---- item 17: secrets in prose, pure ---------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "password {v}",
        "my password is {v}.",
        "The password is {v}",
        "password: {v}",
        "Password = {v}",
        "pwd={v}",
        "passwd {v}",
        "the secret is {v}, keep it",
        "api key: {v}",
        "my token was {v}",
        'login with password "{v}"',
    ],
)
@pytest.mark.parametrize("value", PASSWORDS)
def test_keyword_introduced_secrets_in_prose(line: str, value: str) -> None:
    text = line.format(v=value)
    redacted, findings = redact(text)
    assert value not in redacted
    assert redacted == line.format(v="[REDACTED:secret-assignment]")
    assert [f.kind for f in findings] == ["secret-assignment"]
    assert redact(redacted) == (redacted, [])


@pytest.mark.parametrize(
    "line",
    [
        "aws secret {k}",
        "the AWS secret access key is {k}",
        "use {k} as the aws key",
        "AWS:\n  access: [REDACTED:aws-access-key]\n  secret: {k}\n",
        "export AWS_SECRET_ACCESS_KEY={k}",
        "my secret for s3 is {k}",
    ],
)
def test_bare_aws_secret_key_near_aws_or_secret(line: str) -> None:
    text = line.format(k=AWS_SECRET)
    redacted, findings = redact(text)
    assert redacted == line.format(k="[REDACTED:aws-secret-key]")
    assert [f.kind for f in findings] == ["aws-secret-key"]
    # The key of AWS's documentation, as the fault run used it, is caught too.
    example = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
    assert example not in redact(line.format(k=example))[0]


PROSE_NON_SECRETS = [
    "the password field is required",
    "password reset flow",
    "Fix the password reset flow for users with 2FA enabled.",
    'password = request.form["password"]',
    "password = get_password(user2024)",
    "token = token_v2",
    "api_key = settings.API_KEY_V2",
    "secret = os.environ['SECRET_2']",
    "the token limit is 128000",
    "the secret sauce",
    "my password is hunter2",  # too short to tell from a word
    "pwd = os.getcwd()",
    "password: ${DB_PASSWORD_2}",
    "password: <your-password-123>",
    "password is changeme2024",
    "the token is [REDACTED:github-token]",
    "token: https://example.com/t0ken/abc123",
    # 40 characters without the word near, or of the wrong kind
    "cache key " + fake(40, BASE64, seed=20),
    "aws commit da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "secret path src/main/java/com/Example/Secret/Handler1",
    "aws " + fake(41, BASE64, seed=21) + " is longer than a key",
    "aws AbstractSingletonProxyFactoryBean2Helper",
]


@pytest.mark.parametrize("text", PROSE_NON_SECRETS)
def test_ordinary_prose_and_code_stay(text: str) -> None:
    assert redact(text) == (text, []), redact(text)


MB = 1 << 20
ADVERSARIAL = {
    "aws words": "aws " * (MB // 4),
    "secret words": "secret" * (MB // 6),
    "password and a space": "password x" * (MB // 10),
    "password is": "password is " * (MB // 12),
    "aws and base64": ("aws " + "QUFB" * 10 + " ") * (MB // 46),
    "secret in base64 runs": ("secret" + "QUFB" * 9) * (MB // 42),
    "pwd chains": "pwd=" * (MB // 4),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_prose_rules_stay_linear(name: str) -> None:
    text = ADVERSARIAL[name]
    (redacted, findings), took = cpu_timed(lambda: redact(text))
    assert took < 20, f"{took:.1f} CPU seconds: quadratic again?"
    assert redact(redacted)[0] == redacted
    assert find_secrets(text) == findings


# ---- item 17: through a turn ------------------------------------------------------------------


def test_prose_secrets_in_a_message_reach_no_commit(
    repo: Path, teddy: Teddy, env: dict[str, str], replies: Path
) -> None:
    queue(replies, plan_text("### `CHAT_WITH_USER`\nNoted.\n"))
    session = teddy.ok(repo, "new", "prose").stdout.strip()
    message = (
        f"my password is {PASSWORD}; the aws secret access key is {AWS_SECRET}; pwd=Xy7{PASSWORD}"
    )
    teddy.ok(repo, "plan", "-m", message)

    branch = f"teddy/{session}/main"
    for name in ("01/user_prompt.txt", "01/_context.log", "session.md"):
        text = git(repo, env, "show", f"{branch}:{name}")
        assert PASSWORD not in text and AWS_SECRET not in text, name
        assert "[REDACTED:aws-secret-key]" in text and "[REDACTED:secret-assignment]" in text
    history = git(repo, env, "log", "-p", "--format=%B", "--all")
    assert PASSWORD not in history and AWS_SECRET not in history
    fsck(repo, env)


# ---- item 18: the model is sent what _context.log shows ---------------------------------------

OPENAI_KEY = "sk" + "-proj-" + fake(48, seed=22)


def _secrets_in_context(repo: Path, env: dict[str, str]) -> None:
    """A context file holding a key and a password, named by the project's global context.
    It is staged: untracked secret-looking files never reach a snapshot (item 20)."""
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("settings.env\n")
    (repo / "settings.env").write_text(f"OPENAI_API_KEY={OPENAI_KEY}\ndb password {PASSWORD}\n")
    git(repo, env, "add", "settings.env")


def _plan_with_the_server(
    repo: Path, teddy: Teddy, env: dict[str, str], server: OpenAIServer
) -> tuple[str, str]:
    """Plans one turn against the local API server: the session and its committed log."""
    env.update(server.env())
    server.push(model_reply(plan_text("### `CHAT_WITH_USER`\nNoted.\n")))
    session = teddy.ok(repo, "new", "request").stdout.strip()
    teddy.ok(repo, "plan", "-m", f"the aws secret is {AWS_SECRET}")
    return session, git(repo, env, "show", f"teddy/{session}/main:01/_context.log")


def test_the_model_receives_no_secret_and_the_log_is_the_request(
    repo: Path, teddy: Teddy, env: dict[str, str], openai_server: OpenAIServer
) -> None:
    _secrets_in_context(repo, env)
    session, log = _plan_with_the_server(repo, teddy, env, openai_server)

    (request,) = openai_server.requests
    for secret in (OPENAI_KEY, PASSWORD, AWS_SECRET):
        assert secret.encode() not in request.body
    messages = request.json["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    for message in messages:
        assert message["content"] in log  # what was sent, byte for byte
    for kind in ("openai-key", "secret-assignment", "aws-secret-key"):
        assert f"[REDACTED:{kind}]" in messages[1]["content"]
    assert "Sent unredacted" not in log
    record = yaml.safe_load(git(repo, env, "show", f"teddy/{session}/main:01/turn.yaml"))
    where = {(row["file"], row["kind"]) for row in record["redactions"]}
    assert {("_context.log", "openai-key"), ("_context.log", "aws-secret-key")} <= where
    assert (repo / "settings.env").read_text().count(OPENAI_KEY) == 1  # the user's file stays
    fsck(repo, env)


def test_opting_out_sends_the_secrets_and_the_log_says_so(
    repo: Path, teddy: Teddy, env: dict[str, str], openai_server: OpenAIServer
) -> None:
    _secrets_in_context(repo, env)
    git(repo, env, "config", "teddy.redactRequests", "false")
    session, log = _plan_with_the_server(repo, teddy, env, openai_server)

    (request,) = openai_server.requests
    for secret in (OPENAI_KEY, PASSWORD, AWS_SECRET):
        assert secret.encode() in request.body
    assert "Sent unredacted (teddy.redactRequests is false)" in log
    history = git(repo, env, "log", "-p", "--format=%B", f"--branches=teddy/{session}/*")
    for secret in (OPENAI_KEY, PASSWORD, AWS_SECRET):
        assert secret not in history  # the commit is redacted all the same
    fsck(repo, env)


def test_a_bad_redact_requests_value_is_refused_before_the_model(
    repo: Path, teddy: Teddy, env: dict[str, str], openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env())
    teddy.ok(repo, "new", "bad-setting")
    git(repo, env, "config", "teddy.redactRequests", "maybe")
    before = git(repo, env, "for-each-ref")
    result = teddy.exits(1, repo, "plan", "-m", "hello")
    assert "error:" in result.stderr and "hint:" in result.stderr
    assert "teddy.redactRequests" in result.stderr and "Traceback" not in result.stderr
    assert openai_server.requests == []
    assert git(repo, env, "for-each-ref") == before  # nothing written
    fsck(repo, env)


# ---- item 19: a CREATE runs what the model wrote; the commit holds it redacted ---------------

GITHUB = "gh" + "p_" + fake(36, seed=23)


def _plan_a_secret_file(repo: Path, teddy: Teddy, replies: Path) -> tuple[str, Path]:
    """A turn whose plan CREATEs `deploy.env` holding a token and a password: the session and
    where the plan is kept as the model wrote it."""
    content = f"GITHUB_TOKEN={GITHUB}\n# the password is {PASSWORD}\n"
    queue(replies, plan_text(create("deploy.env", content)))
    session = teddy.ok(repo, "new", "create-secret").stdout.strip()
    teddy.ok(repo, "plan", "-m", "write the deploy settings")
    return session, repo / ".git" / "teddy" / "sessions" / session / "plans" / "01.md"


def test_create_writes_what_the_model_wrote_and_commits_it_redacted(
    repo: Path, teddy: Teddy, env: dict[str, str], replies: Path
) -> None:
    session, kept = _plan_a_secret_file(repo, teddy, replies)
    committed = git(repo, env, "show", f"teddy/{session}/main:01/plan.md")
    assert GITHUB not in committed and PASSWORD not in committed
    assert "[REDACTED:github-token]" in committed
    assert GITHUB in kept.read_text()  # local derived state only

    result = teddy.ok(repo, "execute", "-y")
    assert "redacted values" not in result.stdout + result.stderr
    written = (repo / "deploy.env").read_text()
    assert written == f"GITHUB_TOKEN={GITHUB}\n# the password is {PASSWORD}\n"
    assert not kept.exists()  # the turn has run: its secrets leave the derived state
    history = git(repo, env, "log", "-p", "--format=%B", f"--branches=teddy/{session}/*")
    assert GITHUB not in history and PASSWORD not in history
    fsck(repo, env)


@pytest.mark.parametrize("copy", ["gone", "stale"])
def test_without_the_original_the_committed_plan_runs_and_says_so(
    repo: Path, teddy: Teddy, env: dict[str, str], replies: Path, copy: str
) -> None:
    # A session fetched from a teammate has no local copy; one that is not the committed
    # plan's original (edited, or left from another plan) is not used either.
    _, kept = _plan_a_secret_file(repo, teddy, replies)
    if copy == "gone":
        kept.unlink()
    else:
        kept.write_text(kept.read_text().replace("deploy.env", "other.env"))
    result = teddy.ok(repo, "execute", "-y")
    assert "contains redacted values" in result.stdout + result.stderr
    assert (repo / "deploy.env").read_text().startswith("GITHUB_TOKEN=[REDACTED:github-token]\n")
    fsck(repo, env)


def test_deleting_the_session_removes_the_kept_plan(
    repo: Path, teddy: Teddy, env: dict[str, str], replies: Path
) -> None:
    session, kept = _plan_a_secret_file(repo, teddy, replies)
    assert kept.exists()
    teddy.ok(repo, "delete", "--force", session)
    assert not kept.exists()
    assert not (repo / "deploy.env").exists()  # never executed: nothing written
    fsck(repo, env)


def test_a_plan_without_secrets_keeps_no_copy(
    repo: Path, teddy: Teddy, env: dict[str, str], replies: Path
) -> None:
    queue(replies, plan_text(create("notes.txt", "nothing secret here\n")))
    session = teddy.ok(repo, "new", "plain").stdout.strip()
    teddy.ok(repo, "plan", "-m", "write notes")
    assert not (repo / ".git" / "teddy" / "sessions" / session / "plans").exists()
    teddy.ok(repo, "execute", "-y")
    assert (repo / "notes.txt").read_text() == "nothing secret here\n"
