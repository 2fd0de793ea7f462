"""Where sessions live on a remote (issue 16, scale picture): `git teddy push` puts them under
refs/teddy/sessions/, outside refs/heads, so a plain `git fetch` or `git clone` of the project
never lists them (protocol v2 asks the server for refs/heads/ and refs/tags/ alone);
`git teddy fetch` reads that layout and the one before (session branches as branches: an
older push, `teddy.pushAsBranches`, or a plain `git push` of a session branch) into the same
remote-tracking branches, taking the one that has the other's turns."""

from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create, plan_text
from testing.repos import bare_remote, refs
from testing.sessions import kept_snapshots, session_with_a_turn


@pytest.fixture
def remote(tmp_path: Path, repo: Path, env: dict) -> Path:
    return bare_remote(tmp_path, repo, env)


def clone(remote: Path, tmp_path: Path, env: dict, name: str = "theirs") -> Path:
    """A teammate's clone, its own objects only (--no-local), as over a network."""
    there = tmp_path / name
    git(tmp_path, env, "clone", "-q", "--no-local", str(remote), str(there))
    return there


def turn(repo: Path, teddy: Teddy, path: str, text: str) -> None:
    """One more planned and executed turn of the current session."""
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create(path, text)))
    teddy.ok(repo, "plan", "-m", f"make {path}", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")


def tip(repo: Path, env: dict, ref: str) -> str:
    return git(repo, env, "rev-parse", ref).strip()


def listed(repo: Path, teddy: Teddy) -> list[str]:
    """The words of `git teddy list`: session ids among them."""
    return teddy.ok(repo, "list").stdout.split()


def test_a_plain_fetch_and_clone_never_see_sessions_teddy_fetch_brings_them(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    session = session_with_a_turn(repo, teddy)
    teddy.ok(repo, "push")
    assert list(refs(remote, env, "refs/heads")) == ["refs/heads/main"]
    assert set(refs(remote, env, "refs/teddy")) == {
        f"refs/teddy/keep/{session}",
        f"refs/teddy/sessions/{session}/main",
    }
    assert refs(remote, env)[f"refs/teddy/sessions/{session}/main"] == tip(
        repo, env, f"teddy/{session}/main"
    )
    # git push updated no remote-tracking session branch here: nothing reads twice.
    assert not refs(repo, env, "refs/remotes/origin/teddy")

    theirs = clone(remote, tmp_path, env)
    assert not [r for r in refs(theirs, env) if "teddy" in r]
    # A plain fetch: the server does not even list the sessions (protocol v2's ref-prefix).
    trace = tmp_path / "packets.txt"
    traced = dict(env, GIT_TRACE_PACKET=str(trace))
    git(theirs, traced, "fetch", "origin")
    packets = trace.read_text()
    assert "ref-prefix refs/heads/" in packets  # protocol v2: the filter is the server's
    assert "refs/heads/main" in packets
    assert "refs/teddy" not in packets
    assert session not in listed(theirs, teddy)

    fetched = teddy.ok(theirs, "fetch")
    assert f"new: {session}" in fetched.stdout
    assert "warning" not in fetched.stderr, fetched.stderr
    assert refs(theirs, env, "refs/remotes/origin/teddy") == {
        f"refs/remotes/origin/teddy/{session}/main": tip(repo, env, f"teddy/{session}/main")
    }
    assert not refs(theirs, env, "refs/teddy/arriving")  # no branch of the old layout there
    # The remote's keep ref stays, as a remote-tracking ref does: a fetch of nothing new
    # finds it unchanged and writes nothing.
    keep = f"refs/teddy/keep/{session}"
    assert refs(theirs, env, "refs/teddy/incoming") == {
        f"refs/teddy/incoming/origin/{session}": refs(remote, env)[keep]
    }
    assert refs(theirs, env)[keep] == refs(remote, env)[keep]
    assert sorted(kept_snapshots(theirs, env, session)) == sorted(
        kept_snapshots(repo, env, session)
    )
    assert session in listed(theirs, teddy)
    logged = teddy.ok(theirs, "log", session).stdout
    assert f"session {session}" in logged and "01    main    report  success" in logged
    teddy.ok(theirs, "show", f"{session}/01")
    teddy.ok(theirs, "restore", "01", "-s", session)
    assert (theirs / "a.txt").read_text() == "from the model\n"
    git(theirs, env, "fsck", "--strict", "--no-progress", "--no-dangling")


def test_teddy_fetch_of_one_session_brings_that_one(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    first = session_with_a_turn(repo, teddy, "a.txt")
    second = session_with_a_turn(repo, teddy, "b.txt")
    teddy.ok(repo, "push")
    theirs = clone(remote, tmp_path, env)
    teddy.ok(theirs, "fetch", "origin", second)
    assert list(refs(theirs, env, "refs/remotes/origin/teddy")) == [
        f"refs/remotes/origin/teddy/{second}/main"
    ]
    assert second in listed(theirs, teddy) and first not in listed(theirs, teddy)
    assert not refs(theirs, env, "refs/teddy/arriving")
    assert list(refs(theirs, env, "refs/teddy/incoming")) == [
        f"refs/teddy/incoming/origin/{second}"
    ]
    missing = teddy(theirs, "fetch", "origin", "20990101-nothing")
    assert missing.returncode == 1 and "has no session 20990101-nothing" in missing.stderr


def test_push_as_branches_keeps_the_layout_before_and_teddy_fetch_reads_it(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    """teddy.pushAsBranches: the layout of older git-teddy versions, read by fetch still."""
    session = session_with_a_turn(repo, teddy)
    git(repo, env, "config", "teddy.pushAsBranches", "true")
    teddy.ok(repo, "push")
    assert f"refs/heads/teddy/{session}/main" in refs(remote, env)
    assert not refs(remote, env, "refs/teddy/sessions")

    theirs = clone(remote, tmp_path, env)  # a clone carries it, as any branch
    assert f"refs/remotes/origin/teddy/{session}/main" in refs(theirs, env)
    assert not kept_snapshots(theirs, env, session)
    fetched = teddy.ok(theirs, "fetch")
    assert "warning" not in fetched.stderr, fetched.stderr
    teddy.ok(theirs, "restore", "01", "-s", session)
    assert (theirs / "a.txt").read_text() == "from the model\n"

    bad = run(["git", "teddy", "push"], repo, dict(env, TEDDY_PUSH_AS_BRANCHES="sometimes"))
    assert bad.returncode == 1 and "teddy.pushAsBranches" in bad.stderr, bad
    assert "Traceback" not in bad.stderr


def test_a_branch_in_both_layouts_is_fetched_at_its_latest_turn(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    """A plain `git push` of a session branch lands among the remote's branches (the old
    layout), beside what `git teddy push` put under refs/teddy/sessions/: fetch takes
    whichever of the two has the other's turns, then reads the session as usual."""
    session = session_with_a_turn(repo, teddy)
    main = f"teddy/{session}/main"
    git(repo, env, "push", "-q", "origin", main)  # turn 01, as a branch
    turn(repo, teddy, "b.txt", "b\n")
    teddy.ok(repo, "push")  # turn 02, outside refs/heads
    theirs = clone(remote, tmp_path, env, "theirs")
    teddy.ok(theirs, "fetch")
    assert tip(theirs, env, f"origin/{main}") == tip(repo, env, main)

    turn(repo, teddy, "c.txt", "c\n")
    git(repo, env, "push", "-q", "origin", main)  # turn 03 by plain git: newest as a branch
    fetched = teddy.ok(theirs, "fetch")
    assert tip(theirs, env, f"origin/{main}") == tip(repo, env, main)
    # Its newest snapshot did not travel with the plain push: fetch says so.
    assert f"warning: session {session}:" in fetched.stderr

    # A clone made now gets the session branch by plain git (it is among the branches);
    # once the author shares the snapshots, teddy fetch completes both clones.
    other = clone(remote, tmp_path, env, "other")
    assert f"refs/remotes/origin/{main}" in refs(other, env)
    teddy.ok(repo, "push")
    for there in (theirs, other):
        assert "warning" not in teddy.ok(there, "fetch").stderr
        assert tip(there, env, f"origin/{main}") == tip(repo, env, main)
        teddy.ok(there, "restore", "03", "-s", session)
        assert (there / "c.txt").read_text() == "c\n"


def test_when_the_two_layouts_diverged_fetch_takes_what_git_teddy_pushed(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    session = session_with_a_turn(repo, teddy)
    main = f"teddy/{session}/main"
    teddy.ok(repo, "push")
    pushed = tip(repo, env, main)
    tree = tip(repo, env, f"{main}^{{tree}}")
    aside = git(repo, env, "commit-tree", tree, "-p", f"{main}^", "-m", "by hand").strip()
    git(repo, env, "push", "-q", "origin", f"{aside}:refs/heads/{main}")
    theirs = clone(remote, tmp_path, env)
    teddy.ok(theirs, "fetch")
    assert tip(theirs, env, f"origin/{main}") == pushed
    # The old-layout branch stays where it arrived (as a remote-tracking ref does), unused.
    assert refs(theirs, env, "refs/teddy/arriving") == {
        f"refs/teddy/arriving/origin/heads/{session}/main": aside
    }


def test_pushing_in_the_new_layout_retires_the_branches_of_the_old_one(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    """A remote that got sessions as branches (an older git-teddy, or pushAsBranches) stops
    costing every plain fetch once they are pushed in the new layout: each old branch is
    deleted there when the new one holds its turns, and kept when it has turns we lack."""
    session = session_with_a_turn(repo, teddy)
    main = f"teddy/{session}/main"
    git(repo, env, "config", "teddy.pushAsBranches", "true")
    teddy.ok(repo, "push")
    assert f"refs/heads/{main}" in refs(remote, env)

    git(repo, env, "config", "teddy.pushAsBranches", "false")
    turn(repo, teddy, "b.txt", "b\n")
    pushed = teddy.ok(repo, "push")
    assert f"refs/heads/{main}" not in refs(remote, env), pushed.stdout
    assert refs(remote, env)[f"refs/teddy/sessions/{session}/main"] == tip(repo, env, main)
    theirs = clone(remote, tmp_path, env)
    assert not refs(theirs, env, "refs/remotes/origin/teddy")
    teddy.ok(theirs, "fetch")
    teddy.ok(theirs, "restore", "02", "-s", session)
    assert (theirs / "b.txt").read_text() == "b\n"

    # A turn pushed there as a branch by plain git, which this clone no longer has: kept.
    aside = git(repo, env, "commit-tree", tip(repo, env, f"{main}^{{tree}}"), "-p", main,
                "-m", "a turn made elsewhere").strip()  # fmt: skip
    git(repo, env, "push", "-q", "origin", f"{aside}:refs/heads/{main}")
    git(repo, env, "update-ref", "-d", "refs/remotes/origin/" + main)
    git(repo, env, "prune", "--expire=now")  # this clone does not have it
    turn(repo, teddy, "d.txt", "d\n")  # and goes on elsewhere
    teddy.ok(repo, "push", "origin", session)
    assert refs(remote, env)[f"refs/heads/{main}"] == aside
    assert refs(remote, env)[f"refs/teddy/sessions/{session}/main"] == tip(repo, env, main)
