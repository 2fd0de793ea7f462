"""One keep ref per session (session/keep.py): the refs of a session stay two (its branch
and its keep ref) however many turns and snapshots it has; a push carries every snapshot,
so a clone with its own objects only restores any turn; `git gc --prune=now` keeps them."""

from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.plans import create, plan_text
from testing.repos import bare_remote
from testing.sessions import kept_snapshots, queue

SNAPSHOT_SUBJECTS = ("teddy: base snapshot", "teddy: state before", "teddy: snapshot after")


@pytest.fixture
def remote(tmp_path: Path, repo: Path, env: dict) -> Path:
    return bare_remote(tmp_path, repo, env)


def session_refs(repo: Path, env: dict, session: str) -> list[str]:
    names = git(repo, env, "for-each-ref", "--format=%(refname)").split()
    return sorted(n for n in names if f"/{session}" in n)


def turn(repo: Path, teddy: Teddy, replies: Path, session: str, plan: str, n: int) -> None:
    queue(replies, plan)
    teddy.ok(repo, "plan", "-s", session, "-m", f"message {n}")
    teddy.ok(repo, "execute", "-s", session, "-y")


def session_with_turns(repo: Path, teddy: Teddy, replies: Path, count: int) -> str:
    """`count` turns, each after a hand edit (a `state before` snapshot of its own)."""
    session = teddy.ok(repo, "new", "many").stdout.strip()
    for n in range(1, count + 1):
        (repo / "hand.txt").write_text(f"edited by hand {n}\n")
        turn(repo, teddy, replies, session, plan_text(create(f"f{n}.txt", f"{n}\n")), n)
    return session


def gc_now(repo: Path, env: dict) -> None:
    git(repo, env, "reflog", "expire", "--expire=now", "--all")
    git(repo, env, "gc", "-q", "--prune=now")


def clone_own_objects(tmp_path: Path, remote: Path, env: dict, name: str) -> Path:
    """A clone with objects of its own (--no-local: no hard links, no alternates)."""
    there = tmp_path / name
    git(tmp_path, env, "clone", "-q", "--no-local", str(remote), str(there))
    return there


def test_refs_stay_two_however_many_turns_and_snapshots(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    session = teddy.ok(repo, "new", "many").stdout.strip()
    expected = [f"refs/heads/teddy/{session}/main", f"refs/teddy/keep/{session}"]
    assert session_refs(repo, env, session) == expected
    counts = []
    for n in range(1, 5):
        (repo / "hand.txt").write_text(f"edited by hand {n}\n")
        turn(repo, teddy, replies, session, plan_text(create(f"f{n}.txt", f"{n}\n")), n)
        assert session_refs(repo, env, session) == expected
        counts.append(len(kept_snapshots(repo, env, session)))
    (repo / "hand.txt").write_text("edited again\n")
    teddy.ok(repo, "restore", "-s", session, "01", "--force")  # saves the user's files
    assert session_refs(repo, env, session) == expected
    assert counts == sorted(set(counts)) and counts[-1] >= 9  # base + 2 a turn, growing
    kept = kept_snapshots(repo, env, session)
    assert len(kept) > counts[-1] and len(set(kept)) == len(kept)
    # `git log` of the branch reads as the turns: no snapshot, no keep commit in it.
    subjects = git(repo, env, "log", "--format=%s", f"teddy/{session}/main").splitlines()
    assert len(subjects) == 9 and not [s for s in subjects if s.startswith(SNAPSHOT_SUBJECTS)]
    assert not [s for s in subjects if s.startswith("teddy: keep snapshots")]
    # The keep commit has each snapshot among its ancestors.
    ancestry = set(git(repo, env, "rev-list", f"refs/teddy/keep/{session}").split())
    assert set(kept) <= ancestry


def test_gc_keeps_every_snapshot_and_restore_works(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    session = session_with_turns(repo, teddy, replies, 3)
    kept = kept_snapshots(repo, env, session)
    gc_now(repo, env)
    for sha in kept:
        git(repo, env, "cat-file", "-e", f"{sha}^{{commit}}")
    teddy.ok(repo, "restore", "-s", session, "01", "--force")
    assert (repo / "f1.txt").read_text() == "1\n" and not (repo / "f2.txt").exists()
    git(repo, env, "fsck", "--strict", "--no-progress", "--no-dangling")


def test_a_push_carries_a_complete_session_to_a_clone(
    repo: Path, teddy: Teddy, env: dict, replies: Path, remote: Path, tmp_path: Path
) -> None:
    session = session_with_turns(repo, teddy, replies, 2)
    other = teddy.ok(repo, "new", "other").stdout.strip()
    teddy.ok(repo, "push", "origin", session, other)
    remote_refs = git(repo, env, "ls-remote", str(remote)).split()[1::2]
    assert sorted(r for r in remote_refs if session in r) == [
        f"refs/teddy/keep/{session}",
        f"refs/teddy/sessions/{session}/main",
    ]
    gc_now(remote, env)  # the remote keeps them too

    # A clone of its own fetches just that session, and has all its snapshots.
    there = clone_own_objects(tmp_path, remote, env, "there")
    teddy.ok(there, "fetch", "origin", session)
    assert sorted(kept_snapshots(there, env, session)) == sorted(kept_snapshots(repo, env, session))
    assert not kept_snapshots(there, env, other)  # (git clone brought its branch: plain git)
    # merged into ours; the remote's own stays as a remote-tracking ref does
    incoming = git(there, env, "for-each-ref", "--format=%(refname)", "refs/teddy/incoming/")
    assert incoming.split() == [f"refs/teddy/incoming/origin/{session}"]
    gc_now(there, env)
    teddy.ok(there, "restore", "-s", session, "02", "--force")
    assert (there / "f2.txt").read_text() == "2\n" and (there / "f1.txt").read_text() == "1\n"
    teddy.ok(there, "restore", "-s", session, "01", "--force")
    assert not (there / "f2.txt").exists()
    # A second fetch of everything: nothing to merge, the keep ref is left as it is.
    keep = git(there, env, "rev-parse", f"refs/teddy/keep/{session}")
    teddy.ok(there, "fetch", "origin")
    assert git(there, env, "rev-parse", f"refs/teddy/keep/{session}") == keep
    assert kept_snapshots(there, env, other)
    refused = teddy(there, "fetch", "origin", "20990101-nothing")
    assert refused.returncode == 1 and "has no session 20990101-nothing" in refused.stderr
    assert "hint: " in refused.stderr and "Traceback" not in refused.stderr


def test_diverged_keep_refs_are_merged_by_fetch(
    repo: Path, teddy: Teddy, env: dict, replies: Path, remote: Path, tmp_path: Path
) -> None:
    """Two people keep snapshots of one session: fetch makes a keep commit with both."""
    session = session_with_turns(repo, teddy, replies, 1)
    teddy.ok(repo, "push", "origin", session)
    there = clone_own_objects(tmp_path, remote, env, "there")
    teddy.ok(there, "fetch", "origin", session)
    turn(there, teddy, replies, session, plan_text(create("t.txt", "theirs\n")), 2)
    teddy.ok(there, "push", "origin", session)
    (repo / "mine.txt").write_text("mine\n")
    teddy.ok(repo, "restore", "-s", session, "01", "--force")  # saves my files: mine diverges
    teddy.ok(repo, "fetch", "origin", session)
    mine = set(kept_snapshots(repo, env, session))
    assert set(kept_snapshots(there, env, session)) <= mine
    parents = git(repo, env, "rev-list", "--parents", "-n1", f"refs/teddy/keep/{session}").split()
    assert len(parents) == 3  # the merge: mine and theirs
    # My keep ref now descends from the remote's: pushing it is a fast-forward.
    keep = f"refs/teddy/keep/{session}"
    git(repo, env, "push", "-q", "origin", f"{keep}:{keep}")
