"""Repository shape: SHA-256 object ids (`git init --object-format=sha256`).

dulwich reads such repositories but writes SHA-1 ids; git-teddy writes their objects and
refs through git's plumbing instead. Each case runs the real `git teddy` in a real SHA-256
repository and ends with `git fsck --strict` clean and every ref a 64-hex id.
"""

import json
import re
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create, edit, plan_text
from testing.repos import commit_files
from testing.sessions import queue

SHA256_ID = re.compile(r"[0-9a-f]{64}")


@pytest.fixture
def repo(tmp_path: Path, env: dict[str, str]) -> Path:
    """A SHA-256 repository with one commit of two files."""
    path = tmp_path / "sha256"
    made = run(["git", "init", "-q", "--object-format=sha256", str(path)], tmp_path, env)
    if made.returncode != 0:
        pytest.skip(f"this git cannot create a SHA-256 repository: {made.stderr.strip()}")
    commit_files(path, env, {"README.md": "# demo\n", "app.py": "one\ntwo\nthree\n"})
    return path


def refs(repo: Path, env: dict[str, str]) -> dict[str, str]:
    lines = git(repo, env, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()
    return dict(line.split(" ") for line in lines)


def assert_healthy(repo: Path, env: dict[str, str]) -> None:
    """git can read everything git-teddy wrote: fsck is clean, gc works, ids are 64-hex."""
    fsck = run(["git", "fsck", "--strict", "--no-dangling"], repo, env)
    assert fsck.returncode == 0 and not fsck.stderr.strip(), fsck.stderr
    all_refs = refs(repo, env)
    assert all(SHA256_ID.fullmatch(sha) for sha in all_refs.values()), all_refs
    git(repo, env, "gc", "-q")
    assert refs(repo, env) == all_refs


def test_a_sha256_repository_is_what_the_fixture_makes(repo: Path, env: dict) -> None:
    assert git(repo, env, "rev-parse", "--show-object-format").strip() == "sha256"
    assert SHA256_ID.fullmatch(git(repo, env, "rev-parse", "HEAD").strip())


def test_new_plan_execute_restore_blame_in_a_sha256_repository(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(
        replies,
        plan_text(create("notes.txt", "1\n")),
        plan_text(edit("app.py", "two", "TWO by the model")),
    )
    session = teddy.ok(repo, "new", "hashes").stdout.strip()
    assert SHA256_ID.fullmatch(refs(repo, env)[f"refs/heads/teddy/{session}/main"])
    for message in ("first", "second"):
        teddy.ok(repo, "plan", "-m", message)
        teddy.ok(repo, "execute", "-y")
    assert (repo / "app.py").read_text() == "one\nTWO by the model\nthree\n"
    assert (repo / "notes.txt").read_text() == "1\n"
    assert_healthy(repo, env)

    # (app.py's line 2 is not asked: with the sealed env's fixed dates both turns' snapshots
    # tie as "newest", and blame may pick turn 01's, in SHA-1 repositories too)
    blamed = teddy.ok(repo, "blame", "notes.txt").stdout.split(None, 2)
    assert blamed[:2] == ["1", f"{session}/01"]

    commits = json.loads(teddy.ok(repo, "log", "--json").stdout)
    snapshots = [c["snapshot"] for c in commits if c["phase"] == "report"]
    assert len(snapshots) == 2 and all(SHA256_ID.fullmatch(s) for s in snapshots)
    restored = teddy.ok(repo, "restore", "01")
    assert "restored turn 01" in restored.stdout
    assert (repo / "app.py").read_text() == "one\ntwo\nthree\n"
    # the user's state before restore is kept as a snapshot; its 64-hex id restores it
    saved = re.search(r"\b[0-9a-f]{7,64}\b", restored.stdout.split("to return to them: ")[1])
    assert saved, restored.stdout
    back = restored.stdout.split("to return to them: ")[1].strip()
    teddy.ok(repo, *back.split()[2:])
    assert (repo / "app.py").read_text() == "one\nTWO by the model\nthree\n"
    assert_healthy(repo, env)

    # after `git gc` every object is in a pack: read and written on top of there alike
    queue(replies, plan_text(create("more.txt", "more\n")))
    teddy.ok(repo, "plan", "-m", "after gc")
    teddy.ok(repo, "execute", "-y")
    assert (repo / "more.txt").read_text() == "more\n"
    assert teddy.ok(repo, "blame", "notes.txt").stdout.split(None, 2)[:2] == ["1", f"{session}/01"]
    assert_healthy(repo, env)


def test_plan_from_a_file_and_a_hand_edit_blamed_in_a_sha256_repository(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = teddy.ok(repo, "new", "by-hand").stdout.strip()
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(edit("app.py", "three", "THREE")))
    teddy.ok(repo, "plan", "-m", "edit", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    with (repo / "app.py").open("a") as handle:
        handle.write("four, by hand\n")
    rows = [line.split(None, 2) for line in teddy.ok(repo, "blame", "app.py").stdout.splitlines()]
    origins = {int(number): origin for number, origin, _ in rows}
    assert origins[3] == f"{session}/01" and origins[4] == "not"  # "not committed (your edit)"
    assert_healthy(repo, env)


def test_hooks_push_fetch_restore_and_branch_between_sha256_clones(
    repo: Path, teddy: Teddy, env: dict, replies: Path, tmp_path: Path
) -> None:
    remote, theirs = tmp_path / "remote.git", tmp_path / "theirs"
    git(tmp_path, env, "init", "-q", "--bare", "--object-format=sha256", str(remote))
    git(repo, env, "remote", "add", "origin", str(remote))
    git(repo, env, "push", "-q", "origin", "main")
    git(tmp_path, env, "clone", "-q", str(remote), str(theirs))
    teddy.ok(repo, "hooks", "install")
    queue(replies, plan_text(create("a.txt", "a\n")), plan_text(create("b.txt", "b\n")))
    session = teddy.ok(repo, "new", "shared").stdout.strip()
    for message in ("first", "second"):
        teddy.ok(repo, "plan", "-m", message)
        teddy.ok(repo, "execute", "-y")
    # the prepare-commit-msg hook credits the applied result to its turn
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "take the model's files")
    credited = git(repo, env, "log", "-1", "--format=%(trailers:only,unfold)")
    assert f"Teddy-Session: {session}" in credited
    pushed = teddy.ok(repo, "push")  # through the pre-push hook
    assert f"pushed 1 session(s) to origin: {session}" in pushed.stdout

    assert session in teddy.ok(theirs, "fetch").stdout
    teddy.ok(theirs, "restore", "01", "-s", session)
    assert (theirs / "a.txt").read_text() == "a\n" and not (theirs / "b.txt").exists()
    queue(replies, plan_text(create("c.txt", "c\n")))
    teddy.ok(theirs, "branch", "02", "-s", session, "-m", "another way")
    branches = refs(theirs, env)
    assert f"refs/heads/teddy/{session}/02-branch-01" in branches
    for clone in (repo, theirs, remote):
        assert_healthy(clone, env)
