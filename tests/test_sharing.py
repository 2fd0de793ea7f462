"""Sessions shared through a bare remote: push from one clone, fetch in another, read,
restore and branch there; pushing again; a rejected non-fast-forward."""

import json
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.plans import create, edit, plan_text
from testing.sessions import queue


@pytest.fixture
def clones(tmp_path: Path, repo: Path, env: dict) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    git(tmp_path, env, "init", "-q", "--bare", str(remote))
    git(repo, env, "remote", "add", "origin", str(remote))
    git(repo, env, "push", "-q", "origin", "main")
    other = tmp_path / "other"
    git(tmp_path, env, "clone", "-q", str(remote), str(other))
    return repo, other


def turns(repo: Path, teddy: Teddy, replies: Path, *plans: str, session: str = "") -> None:
    """Plan and execute `plans` in `session` (named with -s), else the current session."""
    queue(replies, *plans)
    named = ["-s", session] if session else []
    for number in range(len(plans)):
        teddy.ok(repo, "plan", "-m", f"message {number}", *named)
        teddy.ok(repo, "execute", "-y")


def test_push_fetch_read_restore_and_branch(
    clones: tuple[Path, Path], teddy: Teddy, env: dict, replies: Path, tmp_path: Path
) -> None:
    mine, theirs = clones
    session = teddy.ok(mine, "new", "shared").stdout.strip()
    turns(
        mine, teddy, replies, plan_text(create("a.txt", "a\n")), plan_text(create("b.txt", "b\n"))
    )
    result = teddy.ok(mine, "push")
    assert f"pushed 1 session(s) to origin: {session}" in result.stdout
    remote_refs = git(mine, env, "ls-remote", "origin").split()
    assert f"refs/teddy/sessions/{session}/main" in remote_refs  # outside refs/heads
    assert f"refs/teddy/keep/{session}" in remote_refs
    assert "refs/heads/feature" not in remote_refs  # nothing else is pushed

    fetched = teddy.ok(theirs, "fetch")
    assert session in fetched.stdout
    assert git(theirs, env, "for-each-ref", "--format=%(refname)", "refs/remotes/origin/teddy/")
    listed = json.loads(teddy.ok(theirs, "list", "--json").stdout)
    assert [(s["id"], s["turns"]) for s in listed] == [(session, 2)]
    assert "02" in teddy.ok(theirs, "log", session).stdout
    shown = json.loads(teddy.ok(theirs, "show", f"{session}/02", "--json").stdout)
    assert shown["files"]["user_prompt.txt"] == "message 1\n"

    teddy.ok(theirs, "restore", "02", "-s", session)
    assert (theirs / "a.txt").read_text() == "a\n" and (theirs / "b.txt").read_text() == "b\n"
    teddy.ok(theirs, "restore", "01", "-s", session)
    assert (theirs / "a.txt").read_text() == "a\n" and not (theirs / "b.txt").exists()
    queue(replies, plan_text(create("c.txt", "c\n")))
    teddy.ok(theirs, "branch", "02", "-s", session, "-m", "another way")
    local = git(theirs, env, "branch", "--list", "teddy/*", "--format=%(refname:short)").split()
    assert f"teddy/{session}/02-branch-01" in local


def test_push_again_after_new_turns_and_non_fast_forward(
    clones: tuple[Path, Path], teddy: Teddy, env: dict, replies: Path
) -> None:
    mine, theirs = clones
    session = teddy.ok(mine, "new", "race").stdout.strip()
    turns(mine, teddy, replies, plan_text(create("a.txt", "a\n")))
    teddy.ok(mine, "push")
    teddy.ok(theirs, "fetch")
    # They continue the fetched session, named (a fetched session is never current by
    # itself), on a local branch made from the fetched one ...
    turns(theirs, teddy, replies, plan_text(create("t.txt", "theirs\n")), session=session)
    teddy.ok(theirs, "push", "origin", session)
    # ... while I continue mine: my push is now a non-fast-forward.
    turns(mine, teddy, replies, plan_text(edit("a.txt", "a", "mine")))
    rejected = teddy(mine, "push")
    assert rejected.returncode == 1
    assert "has turns of these sessions that you do not have" in rejected.stderr
    assert "hint: run `git teddy fetch origin`" in rejected.stderr
    there = f"refs/teddy/sessions/{session}/main"
    remote_tip = git(mine, env, "ls-remote", "origin", there).split()[0]
    assert remote_tip == git(theirs, env, "rev-parse", f"teddy/{session}/main").strip()


def test_push_needs_a_remote(repo: Path, teddy: Teddy) -> None:
    teddy.ok(repo, "new", "lonely")
    result = teddy(repo, "push")
    assert result.returncode == 1 and "no remote named 'origin'" in result.stderr


def test_a_session_that_came_by_plain_git_says_what_is_missing(
    clones: tuple[Path, Path], teddy: Teddy, env: dict, replies: Path, tmp_path: Path
) -> None:
    """`git push --all` publishes session branches without their snapshot refs: in a fresh
    clone (its own objects only: --no-local), restore says which object is missing
    and how to get it, instead of crashing (exit 3)."""
    mine, _ = clones
    session = teddy.ok(mine, "new", "plain").stdout.strip()
    turns(mine, teddy, replies, plan_text(create("a.txt", "a\n")))
    git(mine, env, "push", "-q", "--all", "origin")
    clone = tmp_path / "by-plain-git"
    git(tmp_path, env, "clone", "-q", "--no-local", str(tmp_path / "remote.git"), str(clone))
    git(clone, env, "fetch", "-q", "origin", "+refs/heads/*:refs/heads/*", "--update-head-ok")
    teddy.ok(clone, "show", f"{session}/01")  # the session branch itself is all here
    result = teddy(clone, "restore", "01", "-s", session)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "is not in this repository" in result.stderr
    assert "hint: " in result.stderr and "git teddy fetch" in result.stderr
    assert not (clone / "a.txt").exists()
    git(clone, env, "fsck", "--strict", "--no-dangling")
