"""The current session belongs to a worktree, like HEAD (issue 24): parallel worktrees each
plan, execute and restore in their own session, a teammate's newer fetched session never
becomes current until taken up by name, `restore SNAPSHOT` looks in the current session
first, and `list` marks the current session and names the worktrees. Real git, the
installed executable, a bare remote for the teammate."""

import json
from pathlib import Path

from testing.commands import Teddy, git, in_background
from testing.plans import create, execute, plan_text
from testing.repos import bare_remote
from testing.sessions import kept_snapshots, queue
from testing.waits import wait_for


def linked_worktree(repo: Path, env: dict) -> Path:
    """A linked worktree `wt` beside `repo` on a new branch `feature` (`git worktree add`)."""
    linked = repo.parent / "wt"
    git(repo, env, "worktree", "add", "-q", "-b", "feature", str(linked))
    return linked


def plan_from_file(where: Path, teddy: Teddy, *actions: str) -> None:
    plan_file = where.parent / f"plan-{where.name}.md"
    plan_file.write_text(plan_text(*actions))
    teddy.ok(where, "plan", "-m", f"work in {where.name}", "--from-file", str(plan_file))


def listed(where: Path, teddy: Teddy) -> dict[str, dict]:
    return {row["id"]: row for row in json.loads(teddy.ok(where, "list", "--json").stdout)}


def turn_phases(where: Path, teddy: Teddy, session: str) -> list[tuple[str, str]]:
    commits = json.loads(teddy.ok(where, "log", session, "--json").stdout)
    return [(c["turn"], c["phase"]) for c in commits]


def test_each_worktree_executes_its_own_plan_into_its_own_files(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    linked = linked_worktree(repo, env)
    mine = teddy.ok(repo, "new", "alpha").stdout.strip()
    plan_from_file(repo, teddy, create("main-only.txt", "main\n"))
    # The linked worktree's session is the newer one (same time, later id): the old default.
    theirs = teddy.ok(linked, "new", "beta").stdout.strip()
    plan_from_file(linked, teddy, create("wt-only.txt", "wt\n"))

    done = teddy.ok(repo, "execute", "-y")
    assert "turn 01: SUCCESS" in done.stdout
    assert (repo / "main-only.txt").read_text() == "main\n"
    assert not (repo / "wt-only.txt").exists() and not (linked / "main-only.txt").exists()
    assert turn_phases(repo, teddy, mine) == [("01", "plan"), ("01", "report")]
    assert turn_phases(repo, teddy, theirs) == [("01", "plan")]  # still waiting for its own

    teddy.ok(linked, "execute", "-y")
    assert (linked / "wt-only.txt").read_text() == "wt\n"
    assert not (repo / "wt-only.txt").exists() and not (linked / "main-only.txt").exists()
    assert turn_phases(repo, teddy, theirs) == [("01", "plan"), ("01", "report")]

    table = teddy.ok(repo, "list").stdout.splitlines()
    header = ["SESSION", "STATUS", "STARTED", "AUTHOR", "TURNS", "COST", "PARTICIPANTS"]
    assert table[0].split() == [*header, "WORKTREE", "TITLE"]
    assert table[1].startswith(f"* {mine}  ") and f"  {repo}  " in table[1]
    assert table[2].startswith(f"  {theirs}  ") and f"  {linked}  " in table[2]
    rows = listed(linked, teddy)
    assert (rows[mine]["current"], rows[theirs]["current"]) == (False, True)
    assert (rows[mine]["worktrees"], rows[theirs]["worktrees"]) == ([str(repo)], [str(linked)])
    assert (linked.parent / ".git").exists() is False  # nothing written beside the worktrees


def test_the_record_lives_in_each_worktrees_own_git_dir(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    linked = linked_worktree(repo, env)
    mine = teddy.ok(repo, "new", "alpha").stdout.strip()
    theirs = teddy.ok(linked, "new", "beta").stdout.strip()
    own = Path(git(linked, env, "rev-parse", "--absolute-git-dir").strip())
    assert (repo / ".git" / "teddy-session").read_text() == f"{mine}\n"
    assert (own / "teddy-session").read_text() == f"{theirs}\n"
    # -s names another session: it becomes this worktree's current one, said on stderr.
    taken = teddy.ok(linked, "pause", "-s", mine)
    assert f"note: {mine} is now this worktree's current session" in taken.stderr
    assert f"note: it is the current session of the worktree {repo} too" in taken.stderr
    assert (own / "teddy-session").read_text() == f"{mine}\n"
    assert json.loads(teddy.ok(linked, "show", "--json").stdout)["id"] == mine


def test_a_worktree_without_a_record_falls_back_to_a_free_local_session(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """A repository from before the rule: no worktree recorded a session."""
    older = teddy.ok(repo, "new", "older").stdout.strip()
    env["GIT_COMMITTER_DATE"] = "2026-11-26T13:00:00+00:00"
    newer = teddy.ok(repo, "new", "newer").stdout.strip()
    (repo / ".git" / "teddy-session").unlink()
    linked = linked_worktree(repo, env)
    teddy.ok(linked, "pause", "-s", newer)  # the linked worktree works in the newer one
    # The main worktree falls back to the most recent session no other worktree works in
    # (list marks it, and writes nothing), and keeps it from then on.
    rows = listed(repo, teddy)
    assert (rows[older]["current"], rows[newer]["current"]) == (True, False)
    assert not (repo / ".git" / "teddy-session").exists()
    assert json.loads(teddy.ok(repo, "show", "--json").stdout)["id"] == older
    assert (repo / ".git" / "teddy-session").read_text() == f"{older}\n"


def test_a_deleted_current_session_is_an_error_not_another_session(
    repo: Path, teddy: Teddy
) -> None:
    teddy.ok(repo, "new", "kept")
    doomed = teddy.ok(repo, "new", "doomed").stdout.strip()
    deleted = teddy.ok(repo, "delete", "--force", doomed)
    assert "note: that was this worktree's current session" in deleted.stderr
    for args in (["execute", "-y"], ["plan", "-m", "go", "--from-file", "-"], ["show"]):
        refused = teddy.exits(1, repo, *args, input="")
        assert refused.stderr.startswith(
            f"error: this worktree's current session {doomed} no longer exists"
        )
        assert "\nhint: start a session here with `git teddy new NAME`" in refused.stderr
        assert "Traceback" not in refused.stderr


def teammate_session(tmp_path: Path, repo: Path, env: dict, teddy: Teddy) -> str:
    """A teammate's session, newer than any of ours, with one executed turn, pushed to the
    bare remote `origin` of `repo`."""
    bare_remote(tmp_path, repo, env)
    teammate = tmp_path / "teammate"
    git(tmp_path, env, "clone", "-q", str(tmp_path / "remote.git"), str(teammate))
    session = teddy.ok(teammate, "new", "zzz-teammate").stdout.strip()
    plan_from_file(teammate, teddy, create("theirs.txt", "theirs\n"))
    teddy.ok(teammate, "execute", "-y")
    teddy.ok(teammate, "push")
    return session


def test_a_fetched_newer_session_never_becomes_current(
    tmp_path: Path, repo: Path, env: dict, teddy: Teddy
) -> None:
    theirs = teammate_session(tmp_path, repo, env, teddy)
    mine = teddy.ok(repo, "new", "mine").stdout.strip()
    plan_from_file(repo, teddy, create("mine.txt", "mine\n"))
    assert theirs in teddy.ok(repo, "fetch").stdout

    rows = listed(repo, teddy)
    assert (rows[mine]["current"], rows[theirs]["current"]) == (True, False)
    done = teddy.ok(repo, "execute", "-y")  # my pending plan, not "nothing to execute"
    assert "turn 01: SUCCESS" in done.stdout
    assert (repo / "mine.txt").read_text() == "mine\n" and not (repo / "theirs.txt").exists()
    restored = teddy.ok(repo, "restore", "01")
    assert f"restored turn 01 of {mine}" in restored.stdout
    assert not (repo / "theirs.txt").exists()
    plan_from_file(repo, teddy, create("more.txt", "more\n"))
    assert ("02", "plan") in turn_phases(repo, teddy, mine)
    assert turn_phases(repo, teddy, theirs) == [("01", "plan"), ("01", "report")]
    local = git(repo, env, "for-each-ref", "--format=%(refname)", f"refs/heads/teddy/{theirs}")
    assert local == ""  # nothing of ours went into their session


def test_resume_takes_up_a_teammates_session_and_says_where_its_turns_go(
    tmp_path: Path, repo: Path, env: dict, teddy: Teddy, replies: Path
) -> None:
    theirs = teammate_session(tmp_path, repo, env, teddy)
    teddy.ok(repo, "fetch")
    # Only a fetched session here: nothing is current until the user says so.
    refused = teddy.exits(1, repo, "plan", "-m", "go")
    assert refused.stderr.startswith("error: this worktree has no current session")
    assert "-s ID` (or `git teddy resume ID`)" in refused.stderr

    queue(replies, plan_text(create("ours.txt", "ours\n")))
    args = ("-m", "carry on", "--yolo", "--max-turns", "1")
    taken = teddy.ok(repo, "resume", "-s", theirs, *args)
    assert f"note: {theirs} is a teammate's session (fetched from origin)" in taken.stderr
    assert f"its next turns go on your local branch teddy/{theirs}/main" in taken.stderr
    assert "reach origin only when you `git teddy push` it" in taken.stderr
    assert (repo / "ours.txt").read_text() == "ours\n"
    assert listed(repo, teddy)[theirs]["current"] is True
    assert git(repo, env, "rev-parse", "--verify", "-q", f"refs/heads/teddy/{theirs}/main")
    # Once current, it is the default, and not announced again.
    again = teddy.ok(repo, "pause")
    assert f"paused {theirs}" in again.stdout and "note:" not in again.stderr


def test_restore_snapshot_resolves_in_the_current_session_first(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """A snapshot id is looked up in the current session first, and the session used is
    named. (Two sessions from a clean HEAD no longer share a base: a base snapshot is a
    commit of its own, HEAD in its Teddy-Head trailer.)"""
    first = teddy.ok(repo, "new", "aaa").stdout.strip()
    second = teddy.ok(repo, "new", "bbb").stdout.strip()
    bases = {row["id"]: row["base_snapshot"] for row in listed(repo, teddy).values()}
    assert bases[first] in kept_snapshots(repo, env, first)
    assert bases[first] not in kept_snapshots(repo, env, second)
    (repo / "README.md").write_text("changed by hand\n")

    mine = bases[second][:12]
    restored = teddy.ok(repo, "restore", "--force", mine)
    assert f"restored snapshot {mine} of {second}" in restored.stdout
    assert (repo / "README.md").read_text() == "# demo\n"
    saved = restored.stdout.split("to return to them: ")[1].split()
    assert saved[:5] == ["git", "teddy", "restore", "-s", second]
    assert saved[5] in [s[:12] for s in kept_snapshots(repo, env, second)]

    theirs = bases[first][:12]  # kept by the other session only: found there, and named
    assert f"of {first}" in teddy.ok(repo, "restore", "--force", theirs).stdout


def test_a_session_busy_in_another_worktree_names_that_worktree(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path, teddy_exe: str
) -> None:
    linked = linked_worktree(repo, env)
    runs, go = tmp_path / "runs", tmp_path / "go"
    command = f'echo run >> "{runs}"; while [ ! -e "{go}" ]; do sleep 0.05; done'
    session = teddy.ok(repo, "new", "shared").stdout.strip()
    plan_from_file(repo, teddy, execute(command))
    first = in_background(teddy_exe, repo, env, "execute", "-y")
    try:
        wait_for(runs.exists, "the first execute to run its action")
        refused = teddy.exits(1, linked, "execute", "-y", "-s", session)
    finally:
        go.touch()
        first.communicate(timeout=60)
    said = f"\nerror: another git teddy execute of turn 01 in the worktree {repo}, started "
    assert said in refused.stderr
    assert f"(pid {first.pid}) is working on session {session}" in refused.stderr
    assert first.returncode == 0
