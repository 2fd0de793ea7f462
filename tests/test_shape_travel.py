"""Repository shapes of issue 13: sessions that travel by plain git. Session branches are
ordinary branches, so `git push --all` and a clone carry them without their snapshot refs;
`git teddy fetch` then brings the snapshots of every session branch it can see (and says
which ones the remote lacks too), and the pre-push hook warns of such a plain push. Pushing
only sessions to an empty remote warns that a clone of it would check out nothing."""

from pathlib import Path

import pytest

from testing.commands import Result, Teddy, git, run
from testing.plans import create
from testing.sessions import kept_snapshots, start

FAKE_TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"  # the shape of a GitHub token


def fsck_clean(repo: Path, env: dict) -> None:
    git(repo, env, "fsck", "--strict", "--no-progress", "--no-dangling")


def snapshot_ids(repo: Path, env: dict, session: str) -> list[str]:
    return kept_snapshots(repo, env, session)


def has_object(repo: Path, env: dict, sha: str) -> bool:
    return run(["git", "cat-file", "-e", sha], repo, env).returncode == 0


@pytest.fixture
def remote(tmp_path: Path, env: dict) -> Path:
    bare = tmp_path / "remote.git"
    git(tmp_path, env, "init", "-q", "--bare", str(bare))
    return bare


@pytest.fixture
def author(repo: Path, remote: Path, env: dict, teddy: Teddy) -> tuple[Path, str]:
    """User A: a session with one executed turn, then a plain `git push --all`."""
    git(repo, env, "remote", "add", "origin", str(remote))
    session = start(repo, teddy, create("a.txt", "from the model\n"))
    teddy.ok(repo, "execute", "-y")
    git(repo, env, "push", "-q", "--all", "origin")
    return repo, session


def clone_of(remote: Path, tmp_path: Path, env: dict, shape: str) -> Path:
    """User B's copy: a normal clone (session branches as refs/remotes/origin/teddy/...), or
    a mirror clone (as local refs/heads/teddy/...) with a worktree to run git teddy in; its
    own objects only (--no-local), as over a network."""
    if shape == "clone":
        clone = tmp_path / "b"
        git(tmp_path, env, "clone", "-q", "--no-local", str(remote), str(clone))
        return clone
    mirror = tmp_path / "b.git"
    git(tmp_path, env, "clone", "-q", "--mirror", "--no-local", str(remote), str(mirror))
    git(mirror, env, "worktree", "add", "-q", str(tmp_path / "b"), "main")
    return tmp_path / "b"


def hinted(result: Result, *words: str) -> None:
    assert "Traceback" not in result.stderr
    assert "hint: " in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


@pytest.mark.parametrize("shape", ["clone", "mirror"])
def test_a_session_pushed_by_plain_git_is_repaired_by_teddy_push_and_fetch(
    author: tuple[Path, str], remote: Path, tmp_path: Path, env: dict, teddy: Teddy, shape: str
) -> None:
    mine, session = author
    theirs = clone_of(remote, tmp_path, env, shape)
    branches = git(theirs, env, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes")
    assert f"teddy/{session}/main" in branches  # the branch came ...
    assert not snapshot_ids(theirs, env, session)  # ... its snapshots did not

    refused = teddy(theirs, "restore", "01", "-s", session)
    assert refused.returncode == 1
    hinted(refused, "is not in this repository", "git teddy fetch")
    assert not (theirs / "a.txt").exists()

    # Nothing to fetch yet: fetch says which snapshots the remote lacks, and who can push them.
    fetched = teddy.ok(theirs, "fetch")
    wanted = snapshot_ids(mine, env, session)
    absent = [sha for sha in wanted if not has_object(theirs, env, sha)]
    assert absent  # the turn's result (the base is the user's commit, which came along)
    for sha in absent:
        assert sha[:12] in fetched.stderr, fetched.stderr
    assert f"warning: session {session}:" in fetched.stderr
    hinted(fetched, "git teddy push", "git teddy fetch origin")
    assert teddy(theirs, "restore", "01", "-s", session).returncode == 1

    teddy.ok(mine, "push")
    fetched = teddy.ok(theirs, "fetch")
    assert "warning" not in fetched.stderr, fetched.stderr
    assert sorted(snapshot_ids(theirs, env, session)) == sorted(wanted)
    teddy.ok(theirs, "restore", "01", "-s", session)
    assert (theirs / "a.txt").read_text() == "from the model\n"
    blamed = teddy.ok(theirs, "blame", "a.txt").stdout.split()
    assert blamed[:2] == ["1", f"{session}/01"]
    assert f"{session}/01" in teddy.ok(theirs, "show", f"{session}/01").stdout
    fsck_clean(theirs, env)
    fsck_clean(mine, env)


def test_the_pre_push_hook_warns_of_a_plain_push_of_sessions(
    author: tuple[Path, str], remote: Path, env: dict, teddy: Teddy
) -> None:
    mine, session = author
    teddy.ok(mine, "hooks", "install", "pre-push")
    start(mine, teddy, create("b.txt", "b\n"))  # a second session: new branch, new snapshots
    plain = run(["git", "push", "--all", "origin"], mine, env)
    assert plain.returncode == 0, plain  # a warning, not a refusal
    assert "warning: git push carries session branches without their snapshots" in plain.stderr
    assert "hint: share sessions with `git teddy push`" in plain.stderr
    assert not [r for r in git(remote, env, "for-each-ref", "refs/teddy").split() if r]
    # Ordinary branches alone: not a word.
    git(mine, env, "switch", "-q", "-c", "topic")
    topic = run(["git", "push", "origin", "topic"], mine, env)
    assert topic.returncode == 0 and "warning" not in topic.stderr, topic
    # git teddy push marks its push: the hook's output reaches the user when the push is
    # refused, so make the hook refuse it (a secret on the branch) and read what it said.
    teddy.ok(mine, "push", "origin", session)  # its snapshots are there: next, a branch alone
    ref = f"refs/heads/teddy/{session}/main"
    tip = git(mine, env, "rev-parse", ref).strip()
    tree = git(mine, env, "rev-parse", f"{ref}^{{tree}}").strip()
    blob = run(["git", "hash-object", "-w", "--stdin"], mine, env, input=f"{FAKE_TOKEN}\n")
    listing = git(mine, env, "ls-tree", tree) + f"100644 blob {blob.stdout.strip()}\tleak.txt\n"
    leaky = run(["git", "mktree"], mine, env, input=listing, check=True).stdout.strip()
    commit = git(mine, env, "commit-tree", leaky, "-p", tip, "-m", "by hand").strip()
    git(mine, env, "update-ref", ref, commit, tip)
    refused = teddy(mine, "push", "origin", session)
    assert refused.returncode == 1 and "contains a secret" in refused.stderr, refused
    assert "without their snapshots" not in refused.stderr
    git(mine, env, "update-ref", ref, tip, commit)
    fsck_clean(mine, env)


def test_pushing_only_sessions_to_an_empty_remote_warns_that_a_clone_gets_nothing(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    git(repo, env, "remote", "add", "origin", str(remote))
    session = teddy.ok(repo, "new", "lonely").stdout.strip()
    pushed = teddy.ok(repo, "push")
    assert f"pushed 1 session(s) to origin: {session}" in pushed.stdout
    assert "warning: origin has no branch of the project, only sessions" in pushed.stderr
    hinted(pushed, "git push -u origin HEAD")
    # What it warns of, as git shows it: a clone checks out nothing (sessions are outside
    # refs/heads, so to a clone the remote is empty).
    empty = run(["git", "clone", str(remote), str(tmp_path / "empty")], tmp_path, env)
    assert empty.returncode == 0 and "cloned an empty repository" in empty.stderr
    assert not (tmp_path / "empty" / "README.md").exists()

    # Following the hint mends it; pushing again is then quiet.
    git(repo, env, "push", "-q", "-u", "origin", "HEAD")
    again = teddy.ok(repo, "push")
    assert "warning" not in again.stderr, again.stderr
    clone = tmp_path / "full"
    git(tmp_path, env, "clone", "-q", str(remote), str(clone))
    assert (clone / "README.md").read_text() == "# demo\n"
    fsck_clean(repo, env)
    fsck_clean(clone, env)


def test_push_to_a_remote_with_branches_of_the_project_is_quiet(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    """The remote's branches are asked of the remote when no remote-tracking ref tells."""
    git(repo, env, "remote", "add", "origin", str(remote))
    git(repo, env, "push", "-q", "origin", "main")  # no -u: no refs/remotes/origin/main ...
    git(repo, env, "update-ref", "-d", "refs/remotes/origin/main")  # ... for sure
    teddy.ok(repo, "new", "work")
    pushed = teddy.ok(repo, "push")
    assert "warning" not in pushed.stderr, pushed.stderr
    fsck_clean(repo, env)
