"""Repository shapes of issue 13: signing. With commit.gpgSign (here with an ssh key made
for the test: gpg.format=ssh), session commits are signed as git signs its own and pass
`git verify-commit`; snapshots stay unsigned; `teddy.sign` overrides; a key that cannot
sign stops a command before it writes anything."""

import shutil
from pathlib import Path

import pytest

from testing.commands import Result, Teddy, git, run
from testing.plans import create
from testing.sessions import kept_snapshots, start
from testing.signing import sign_with_a_new_ssh_key

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen")


@pytest.fixture
def signing(repo: Path, env: dict, tmp_path: Path) -> Path:
    """The repository set to sign every commit with a fresh ssh key, and to verify them."""
    sign_with_a_new_ssh_key(repo, env, tmp_path)
    return repo


def fsck_clean(repo: Path, env: dict) -> None:
    git(repo, env, "fsck", "--strict", "--no-progress")


def session_commits(repo: Path, env: dict, session: str) -> list[str]:
    return git(repo, env, "rev-list", f"refs/heads/teddy/{session}/main").split()


def snapshot_commits(repo: Path, env: dict, session: str) -> list[str]:
    tips = kept_snapshots(repo, env, session)
    return git(repo, env, "rev-list", *tips, "--not", "main").split()


def verifies(repo: Path, env: dict, commit: str) -> bool:
    return run(["git", "verify-commit", commit], repo, env).returncode == 0


def is_signed(repo: Path, env: dict, commit: str) -> bool:
    return "\ngpgsig" in git(repo, env, "cat-file", "commit", commit)


def a_turn(repo: Path, teddy: Teddy) -> str:
    session = start(repo, teddy, create("a.txt", "a\n"))
    teddy.ok(repo, "execute", "-y")
    return session


def test_session_commits_are_signed_as_git_would_sign_them(
    signing: Path, env: dict, teddy: Teddy
) -> None:
    session = a_turn(signing, teddy)
    commits = session_commits(signing, env, session)
    assert len(commits) == 3  # new, plan, report
    for commit in commits:
        assert verifies(signing, env, commit), git(signing, env, "cat-file", "commit", commit)
    snapshots = snapshot_commits(signing, env, session)
    assert snapshots  # the turn's result
    assert not [c for c in snapshots if is_signed(signing, env, c)]  # the user's state: unsigned
    assert (signing / "a.txt").read_text() == "a\n"
    teddy.ok(signing, "restore", "01")
    assert "01" in teddy.ok(signing, "show", f"{session}/01").stdout
    fsck_clean(signing, env)


@pytest.mark.parametrize(
    ("gpgsign", "sign", "signed"),
    [("true", "never", False), ("false", "always", True), ("false", "auto", False)],
)
def test_teddy_sign_overrides_commit_gpgsign(
    signing: Path, env: dict, teddy: Teddy, gpgsign: str, sign: str, signed: bool
) -> None:
    git(signing, env, "config", "commit.gpgSign", gpgsign)
    git(signing, env, "config", "teddy.sign", sign)
    session = a_turn(signing, teddy)
    commits = session_commits(signing, env, session)
    assert [is_signed(signing, env, c) for c in commits] == [signed] * 3
    assert all(verifies(signing, env, c) for c in commits) == signed
    fsck_clean(signing, env)


def refs(repo: Path, env: dict) -> str:
    return git(repo, env, "for-each-ref", "--format=%(refname) %(objectname)")


def refused(result: Result) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    assert "error: could not sign the session commit, so nothing was written" in result.stderr
    assert "hint: " in result.stderr and "teddy.sign never" in result.stderr


def break_key(repo: Path, env: dict, tmp_path: Path) -> None:
    git(repo, env, "config", "user.signingKey", str(tmp_path / "no-such-key.pub"))


def test_a_key_that_cannot_sign_stops_new_before_it_writes(
    signing: Path, env: dict, teddy: Teddy, tmp_path: Path
) -> None:
    break_key(signing, env, tmp_path)
    (signing / "app.py").write_text("print('dirty')\n")  # the base would be a new snapshot
    before = refs(signing, env)
    refused(teddy(signing, "new", "work"))
    assert refs(signing, env) == before
    fsck_clean(signing, env)


def test_a_key_that_cannot_sign_stops_plan_and_execute_before_they_write(
    signing: Path, env: dict, teddy: Teddy, tmp_path: Path
) -> None:
    session = start(signing, teddy, create("a.txt", "a\n"))
    break_key(signing, env, tmp_path)
    before, status = refs(signing, env), git(signing, env, "status", "--porcelain")
    refused(teddy(signing, "execute", "-y"))
    assert refs(signing, env) == before
    assert git(signing, env, "status", "--porcelain") == status
    assert not (signing / "a.txt").exists()  # the result was not applied

    git(signing, env, "config", "user.signingKey", str(tmp_path / "key.pub"))
    teddy.ok(signing, "execute", "-y")  # mended: the turn goes on where it stopped
    assert all(verifies(signing, env, c) for c in session_commits(signing, env, session))
    break_key(signing, env, tmp_path)
    (signing / "b.txt").write_text("the user's\n")  # the next base would be a new snapshot
    before = refs(signing, env)
    plan_file = tmp_path / "next.md"
    plan_file.write_text((tmp_path / "plan.md").read_text())
    refused(teddy(signing, "plan", "-m", "more", "--from-file", str(plan_file)))
    assert refs(signing, env) == before
    fsck_clean(signing, env)
