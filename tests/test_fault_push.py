"""Fault suite (issue 14, items 20 and 21): secrets on the way to a remote. Secret-looking
untracked files stay out of snapshots and are never touched; the pre-push gate scans every
commit a push carries that the remote lacks (messages, UTF-16 text, an old-shape snapshot's parents,
session commits under any ref or tag), never what the remote already has, and its hints
name commands that work. Real repositories, a real bare remote, real `git push`."""

import codecs
import re
from pathlib import Path

import pytest

from testing.commands import Result, Teddy, git, run
from testing.fake_secrets import fake
from testing.plans import create, plan_text
from testing.sessions import all_kept_snapshots, start

GITHUB = "ghp_" + fake(36, seed=141)
AWS_ID = "AKIA" + fake(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", seed=142)
AWS_SECRET = fake(40, seed=143)


@pytest.fixture
def remote(repo: Path, env: dict[str, str], tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git(tmp_path, env, "init", "-q", "--bare", str(bare))
    git(repo, env, "remote", "add", "origin", str(bare))
    git(repo, env, "push", "-q", "origin", "main")
    return bare


def fsck(*repos: Path, env: dict[str, str]) -> None:
    for where in repos:
        git(where, env, "fsck", "--strict", "--no-progress")


def refused(result: Result) -> None:
    """A refusal: exit 1 (git push: non-zero), `error:` and `hint:`, never a traceback."""
    assert result.returncode != 0, result.stdout + result.stderr
    assert "error:" in result.stderr and "hint:" in result.stderr, result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def remote_refs(remote: Path, env: dict[str, str]) -> str:
    return git(remote, env, "for-each-ref", "--format=%(refname) %(objectname)")


def commit_by_hand(
    repo: Path, env: dict[str, str], ref: str, files: dict[str, bytes], message: str = "by hand"
) -> str:
    """Commit `files` onto `ref` with plumbing, as no git-teddy command would."""
    tip = git(repo, env, "rev-parse", ref).strip()
    listing = git(repo, env, "ls-tree", tip)
    for name, content in files.items():
        source = repo.parent / "by-hand.bin"
        source.write_bytes(content)
        blob = git(repo, env, "hash-object", "-w", str(source)).strip()
        listing += f"100644 blob {blob}\t{name}\n"
    tree = run(["git", "mktree"], repo, env, input=listing, check=True).stdout.strip()
    commit = git(repo, env, "commit-tree", tree, "-p", tip, "-m", message).strip()
    git(repo, env, "update-ref", ref, commit, tip)
    return commit


# ---- item 20: secret-looking untracked files ------------------------------------------------

UNTRACKED_SECRETS = {
    ".env.local": f"AWS_ACCESS_KEY_ID={AWS_ID}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\n",
    "notes/creds.txt": "the staging login\n",  # by name alone
    "notes/todo.txt": f"rotate {GITHUB} on friday\n",  # by content alone
    "keys/deploy.secret": "not secret-looking by default\n",  # teddy.secretFiles
}


def test_untracked_secret_files_are_never_snapshotted_nor_touched(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path
) -> None:
    git(repo, env, "config", "teddy.secretFiles", "*.secret")
    for rel, text in UNTRACKED_SECRETS.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / ".env.example").write_text("AWS_ACCESS_KEY_ID=\n")  # a template: shared
    (repo / "notes" / "plan.txt").write_text("an ordinary untracked file\n")
    (repo / "config.env").write_text(f"TOKEN={GITHUB}\n")
    git(repo, env, "add", "config.env")  # staged by the user: their choice, it stays

    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    assert (repo / "x.txt").read_text() == "x\n"
    (repo.parent / "plan2.md").write_text(plan_text(create("y.txt", "y\n")))
    teddy.ok(repo, "plan", "-m", "more", "--from-file", str(repo.parent / "plan2.md"))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "restore", "01", "-s", session)  # back: y.txt goes
    assert not (repo / "y.txt").exists()
    teddy.ok(repo, "restore", "02", "-s", session)
    assert (repo / "y.txt").read_text() == "y\n"

    for rel, text in UNTRACKED_SECRETS.items():
        assert (repo / rel).read_text() == text, rel  # never touched
    snapshots = all_kept_snapshots(repo, env)
    assert snapshots
    for snapshot in snapshots:
        files = git(repo, env, "ls-tree", "-r", "--name-only", snapshot).split("\n")
        assert not set(UNTRACKED_SECRETS) & set(files), files
        assert {".env.example", "notes/plan.txt", "config.env"} <= set(files)

    teddy.ok(repo, "hooks", "install")
    git(repo, env, "reset", "-q", "config.env")  # now untracked too, and a secret by content
    (repo / "config.env").unlink()
    refusal = teddy(repo, "push", "origin")  # the staged config.env is in the snapshots
    refused(refusal)
    assert "config.env:1 contains a secret (github-token)" in refusal.stderr
    fsck(repo, remote, env=env)


# ---- the gate's way through --------------------------------------------------------------


def hinted_command(stderr: str) -> list[str]:
    found = re.search(r"`(git teddy push [^`]*)`", stderr)
    assert found, stderr
    return found[1].split()


def test_a_refused_push_names_a_command_that_goes_through(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path
) -> None:
    (repo / "tests").mkdir()
    (repo / "tests" / "fixture.txt").write_text(f"token: {GITHUB}\n")
    git(repo, env, "add", "tests/fixture.txt")  # the user's staged test data
    session = teddy.ok(repo, "new", "work").stdout.strip()
    teddy.ok(repo, "hooks", "install")
    before = remote_refs(remote, env)

    result = teddy(repo, "push", "origin")
    refused(result)
    assert result.returncode == 1
    assert "tests/fixture.txt:1 contains a secret (github-token)" in result.stderr
    assert "--no-verify" not in result.stderr and "rewrite" not in result.stderr
    assert remote_refs(remote, env) == before  # nothing was pushed

    plain = run(["git", "push", "origin", f"refs/teddy/keep/{session}:refs/teddy/x/keep"],
                repo, env)  # fmt: skip
    refused(plain)
    assert "git push --no-verify" in plain.stderr and "git teddy push" in plain.stderr

    again = hinted_command(result.stderr)
    assert "--allow-secret" in again
    teddy.ok(repo, *again[2:])
    assert f"refs/teddy/sessions/{session}/main" in remote_refs(remote, env)
    fsck(repo, remote, env=env)


# ---- item 21: what the gate scans -----------------------------------------------------------


@pytest.fixture
def session(repo: Path, teddy: Teddy, remote: Path) -> str:
    """A clean session, pushed, with the gate installed."""
    name = teddy.ok(repo, "new", "work").stdout.strip()
    teddy.ok(repo, "hooks", "install")
    teddy.ok(repo, "push", "origin")
    return name


def test_a_secret_in_a_session_commit_message_is_refused(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path, session: str
) -> None:
    ref = f"refs/heads/teddy/{session}/main"
    commit = commit_by_hand(repo, env, ref, {"n.txt": b"n\n"}, f"note\n\nmy token {GITHUB}\n")
    result = teddy(repo, "push", "origin")
    refused(result)
    assert f"commit {commit[:12]} message:3 contains a secret (github-token)" in result.stderr
    there = f"refs/teddy/sessions/{session}/main"
    assert git(remote, env, "rev-parse", there) != commit
    fsck(repo, remote, env=env)


@pytest.mark.parametrize(
    "encoded",
    [
        codecs.BOM_UTF16_LE + f"token = {GITHUB}\n".encode("utf-16-le"),
        codecs.BOM_UTF16_BE + f"token = {GITHUB}\n".encode("utf-16-be"),
        f"token = {GITHUB}\n".encode("utf-16-le"),  # no BOM: NUL-interleaved ASCII
    ],
    ids=["utf16le-bom", "utf16be-bom", "nul-interleaved"],
)
def test_a_secret_in_utf16_text_is_refused(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path, session: str, encoded: bytes
) -> None:
    ref = f"refs/heads/teddy/{session}/main"
    commit_by_hand(repo, env, ref, {"wide.txt": encoded})
    result = teddy(repo, "push", "origin")
    refused(result)
    assert "wide.txt:1 contains a secret (github-token)" in result.stderr
    fsck(repo, remote, env=env)


def test_a_secret_in_the_history_a_snapshot_was_taken_on_stays_here(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path
) -> None:
    """A snapshot's parents are snapshots only (HEAD is its Teddy-Head trailer): the user's
    unpublished commits, and a secret committed then removed in them, never travel."""
    (repo / "leak.txt").write_text(f"token: {GITHUB}\n")
    git(repo, env, "add", "leak.txt")
    git(repo, env, "commit", "-qm", "local work, not pushed")
    leak = git(repo, env, "rev-parse", "HEAD:leak.txt").strip()
    git(repo, env, "rm", "-q", "leak.txt")  # the snapshot no longer holds leak.txt
    git(repo, env, "commit", "-qm", "remove it again")
    (repo / "wip.txt").write_text("work in progress\n")
    teddy.ok(repo, "new", "work")
    teddy.ok(repo, "hooks", "install")
    teddy.ok(repo, "push", "origin")
    assert run(["git", "cat-file", "-e", leak], remote, env).returncode != 0
    assert "local work" not in git(remote, env, "log", "--all", "--format=%s")
    fsck(repo, remote, env=env)


def test_session_commits_under_another_ref_or_a_tag_are_refused(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path, session: str
) -> None:
    ref = f"refs/heads/teddy/{session}/main"
    trailers = f"teddy: status\n\nTeddy-Session: {session}\nTeddy-Phase: status\n"
    leak = {"Leak.txt": f"token: {GITHUB}\n".encode()}
    commit = commit_by_hand(repo, env, ref, leak, trailers)  # a session commit by its trailers
    git(repo, env, "update-ref", ref, f"{commit}^")  # only the other names carry it
    git(repo, env, "tag", "-a", "-m", "a release", "v1", commit)
    git(repo, env, "tag", "light", commit)
    for refspec in (f"{commit}:refs/heads/backup", "v1", "light"):
        result = run(["git", "push", "origin", refspec], repo, env)
        refused(result)
        assert "Leak.txt:1 contains a secret (github-token)" in result.stderr, refspec
    git(repo, env, "tag", "-a", "-m", f"token {GITHUB}", "v2", "main")  # a tag's message
    result = run(["git", "push", "origin", "v2"], repo, env)
    assert result.returncode == 0, result.stderr  # main is the project's: not the gate's
    snapshot = all_kept_snapshots(repo, env)
    git(repo, env, "tag", "-a", "-m", f"token {GITHUB}", "v3", snapshot[0])
    result = run(["git", "push", "origin", "v3"], repo, env)
    refused(result)  # a snapshot, even of a clean tree, is teddy's: a tag of it is scanned
    assert "refs/tags/v3: tag refs/tags/v3:6 contains a secret" in result.stderr
    assert "backup" not in remote_refs(remote, env)
    fsck(repo, remote, env=env)


def test_history_the_remote_has_is_never_flagged(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path
) -> None:
    """A fixture token in the project's own published history, and a session whose snapshot
    holds the published commit's tree (a clean working tree) or that tree with a change."""
    teddy.ok(repo, "hooks", "install")
    (repo / "tests").mkdir()
    (repo / "tests" / "fixture.txt").write_text(f"token: {GITHUB}\n")
    git(repo, env, "add", "tests/fixture.txt")
    git(repo, env, "commit", "-qm", f"a fixture for the parser ({GITHUB})")
    git(repo, env, "push", "-q", "origin", "main")  # the project's history: not scanned
    clean = teddy.ok(repo, "new", "clean").stdout.strip()
    base = "\n".join(all_kept_snapshots(repo, env))
    assert git(repo, env, "rev-parse", f"{base}^{{tree}}") == git(
        repo, env, "rev-parse", "HEAD^{tree}"
    )
    teddy.ok(repo, "push", "origin")
    (repo / "app.py").write_text("print('changed')\n")
    other = teddy.ok(repo, "new", "edited").stdout.strip()
    teddy.ok(repo, "push", "origin")
    refs = remote_refs(remote, env)
    assert f"sessions/{clean}/main" in refs and f"sessions/{other}/main" in refs
    fsck(repo, remote, env=env)


# ---- issue 25 item 2: a token in a file's name ---------------------------------------------


def test_a_token_in_a_file_name_is_refused_without_printing_it(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path, session: str
) -> None:
    ref = f"refs/heads/teddy/{session}/main"
    commit = commit_by_hand(repo, env, ref, {f"{GITHUB}.txt": b"an ordinary note\n"})
    result = teddy(repo, "push", "origin")
    refused(result)
    assert "the name [REDACTED:github-token].txt:1 contains a secret (github-token)" in (
        result.stderr
    )
    assert GITHUB not in result.stdout + result.stderr
    assert commit not in remote_refs(remote, env)
    fsck(repo, remote, env=env)


def test_an_untracked_file_with_a_token_in_its_name_stays_out_of_snapshots(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    named = f"backups/{GITHUB}.txt"
    (repo / "backups").mkdir()
    (repo / named).write_text("an ordinary note\n")
    start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    for snapshot in all_kept_snapshots(repo, env):
        assert GITHUB not in git(repo, env, "ls-tree", "-r", "--name-only", snapshot)
    assert (repo / named).read_text() == "an ordinary note\n"  # never touched
    assert GITHUB not in teddy.ok(repo, "context").stdout  # nor in the map the model sees


def test_a_blob_the_remote_has_in_older_history_is_never_flagged(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path
) -> None:
    """Issue 26: a fixture token published, deleted, published again (its commit is older
    than the remote's tip, so no tree `rev-list --not` compares holds it), then in the
    working tree again: a session's snapshot carries the blob the remote has."""
    teddy.ok(repo, "hooks", "install")
    fixture = repo / "tests" / "fixture.txt"
    fixture.parent.mkdir()
    fixture.write_text(f"token: {GITHUB}\n")
    git(repo, env, "add", "tests/fixture.txt")
    git(repo, env, "commit", "-qm", "a fixture for the parser")
    git(repo, env, "rm", "-q", "tests/fixture.txt")
    git(repo, env, "commit", "-qm", "the fixture moves away")
    git(repo, env, "push", "-q", "origin", "main")  # the remote has the blob, in main~1
    fixture.parent.mkdir()
    fixture.write_text(f"token: {GITHUB}\n")  # back, staged: a snapshot holds it
    git(repo, env, "add", "tests/fixture.txt")
    session = teddy.ok(repo, "new", "again").stdout.strip()
    pushed = teddy(repo, "push", "origin")
    assert pushed.returncode == 0, pushed.stderr
    assert f"sessions/{session}/main" in remote_refs(remote, env)
    fixture.write_text(f"token: {GITHUB} and {AWS_ID}\n")  # new content: still refused
    git(repo, env, "add", "tests/fixture.txt")
    teddy.ok(repo, "new", "changed")
    refused(teddy(repo, "push", "origin"))
    fsck(repo, remote, env=env)
