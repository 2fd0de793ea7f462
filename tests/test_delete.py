"""`git teddy delete` (issue 14 item 22): a session's branches, fetched copies, snapshot refs
and local state go in one transaction, each ref's last id is printed so a deletion can be
undone until gc, other sessions are untouched, and the user's own saved files are never
deleted without --force."""

from pathlib import Path

from testing.commands import Teddy, git, run
from testing.plans import create, plan_text
from testing.sessions import kept_snapshots, queue
from testing.terminal import on_terminal


def refs(repo: Path, env: dict) -> dict[str, str]:
    lines = git(repo, env, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()
    return dict(line.split(" ") for line in lines)


def session_refs(repo: Path, env: dict, session: str) -> dict[str, str]:
    return {
        name: sha
        for name, sha in refs(repo, env).items()
        if f"/{session}/" in name or name.endswith(f"/keep/{session}")
    }


def one_turn(repo: Path, teddy: Teddy, replies: Path, name: str, file: str) -> str:
    queue(replies, plan_text(create(file, f"{name}\n")))
    session = teddy.ok(repo, "new", name).stdout.strip()
    teddy.ok(repo, "plan", "-s", session, "-m", "make it")
    teddy.ok(repo, "execute", "-s", session, "-y")
    return session


def assert_refused(result: object, *words: str) -> None:
    assert result.returncode == 1, result.stdout  # type: ignore[attr-defined]
    stderr = result.stderr  # type: ignore[attr-defined]
    assert stderr.startswith("error: ") and "\nhint: " in stderr and "Traceback" not in stderr
    assert all(word in stderr for word in words), stderr


def test_delete_removes_one_session_and_says_how_to_undo(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    kept = one_turn(repo, teddy, replies, "kept", "kept.txt")
    gone = one_turn(repo, teddy, replies, "gone", "gone.txt")
    teddy.ok(repo, "restore", "-s", gone, "01")  # leaves local state: the placed log
    before, kept_refs = session_refs(repo, env, gone), session_refs(repo, env, kept)
    assert any("/keep/" in name for name in before) and any("/heads/" in n for n in before)
    git_dir = Path(git(repo, env, "rev-parse", "--absolute-git-dir").strip())
    assert (git_dir / "teddy" / "sessions" / gone).exists()

    done = teddy.ok(repo, "delete", "--force", gone)
    assert f"deleted session {gone}" in done.stdout
    for name, sha in before.items():
        assert f"{name} (was {sha})" in done.stdout
    assert session_refs(repo, env, gone) == {}
    assert session_refs(repo, env, kept) == kept_refs
    assert not (git_dir / "teddy" / "sessions" / gone).exists()
    listed = teddy.ok(repo, "list").stdout
    assert kept in listed and gone not in listed
    assert (repo / "gone.txt").read_text() == "gone\n"  # the user's files are not touched
    fsck = run(["git", "fsck", "--strict"], repo, env)
    assert fsck.returncode == 0, fsck.stderr

    # Until gc, the printed ids bring it all back.
    for name, sha in before.items():
        git(repo, env, "update-ref", name, sha)
    assert gone in teddy.ok(repo, "list").stdout
    teddy.ok(repo, "show", gone)


def test_without_a_terminal_or_force_nothing_is_deleted(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    session = one_turn(repo, teddy, replies, "work", "a.txt")
    before = refs(repo, env)
    assert_refused(teddy(repo, "delete", session), "no terminal", "--force")
    assert_refused(teddy(repo, "delete", "no-such-session"), "no session matches")
    assert_refused(teddy(repo, "delete"), "--older-than")
    assert_refused(teddy(repo, "delete", session, "--older-than", "3"), "not both")
    assert refs(repo, env) == before


def test_saved_states_of_the_users_files_need_force(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    session = one_turn(repo, teddy, replies, "work", "a.txt")
    (repo / "mine.txt").write_text("typed by hand\n")
    teddy.ok(repo, "restore", "-s", session, "01", "--force")  # saves the hand-typed file first
    assert not (repo / "mine.txt").exists()
    before = refs(repo, env)
    assert_refused(teddy(repo, "delete", session), "saved states of your own files", "--force")
    assert refs(repo, env) == before
    done = teddy.ok(repo, "delete", "--force", session)
    assert f"deleted session {session}" in done.stdout
    assert session_refs(repo, env, session) == {}


def test_a_restore_of_the_models_own_state_is_not_precious(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    """Restoring 01 after turn 02 saves the files (issue 26: `saved` lists what restore
    said it saved), but they are turn 02's result: no work of the user's, so deleting asks
    (no terminal here) and does not refuse."""
    session = one_turn(repo, teddy, replies, "work", "a.txt")
    queue(replies, plan_text(create("b.txt", "b\n")))
    teddy.ok(repo, "plan", "-s", session, "-m", "more")
    teddy.ok(repo, "execute", "-s", session, "-y")
    snapshots_before = kept_snapshots(repo, env, session)
    teddy.ok(repo, "restore", "-s", session, "01")
    (saved,) = set(kept_snapshots(repo, env, session)) - set(snapshots_before)
    trees = {git(repo, env, "rev-parse", f"{s}^{{tree}}") for s in snapshots_before}
    assert git(repo, env, "rev-parse", f"{saved}^{{tree}}") in trees  # nothing new in it
    assert_refused(teddy(repo, "delete", session), "no terminal")


def test_older_than_deletes_only_sessions_idle_that_long(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    old_env = {**env, "GIT_COMMITTER_DATE": "2026-01-01T12:00:00+00:00"}
    old = Teddy(old_env).ok(repo, "new", "old").stdout.strip()
    recent = teddy.ok(repo, "new", "recent").stdout.strip()  # 2026-11-26, the sealed date
    done = teddy.ok(repo, "delete", "--older-than", "90", "--force")
    assert f"deleted session {old}" in done.stdout and recent not in done.stdout
    assert session_refs(repo, env, old) == {} and session_refs(repo, env, recent)
    again = teddy.ok(repo, "delete", "--older-than", "90", "--force")
    assert "no session is older than 90 days" in again.stdout


def test_fetched_copies_go_too(
    repo: Path, teddy: Teddy, env: dict, replies: Path, tmp_path: Path
) -> None:
    session = one_turn(repo, teddy, replies, "shared", "s.txt")
    remote = tmp_path / "remote.git"
    git(tmp_path, env, "init", "-q", "--bare", str(remote))
    git(repo, env, "remote", "add", "origin", str(remote))
    teddy.ok(repo, "push")
    clone = tmp_path / "clone"
    git(tmp_path, env, "clone", "-q", str(remote), str(clone))
    teddy.ok(clone, "fetch")
    assert any(n.startswith("refs/remotes/") for n in session_refs(clone, env, session))
    teddy.ok(clone, "delete", "--force", session)
    assert session_refs(clone, env, session) == {}
    assert not [name for name in refs(clone, env) if session in name]  # incoming/ too
    assert session_refs(repo, env, session)  # the remote and the other clone keep theirs


def test_on_a_terminal_delete_asks_first(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    session = one_turn(repo, teddy, replies, "work", "a.txt")
    for answer, deleted in (("n", False), ("y", True)):
        code, shown = on_terminal(["git", "teddy", "delete", session], repo, env, f"{answer}\n")
        assert code == (0 if deleted else 1), shown
        assert "delete 1 session(s)" in shown
        assert bool(session_refs(repo, env, session)) != deleted
