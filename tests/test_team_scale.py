"""A team remote with thousands of sessions (issue 31, teams): the first `list` reads every
session in the same few git processes whatever their number, a fetch leaves the index up
to date, so the `list` after it reads no session, and a push that sends nothing reads no
session either. Counted with GIT_TRACE2_EVENT, never timed (benchmarks/bench_team.py times
them at 10, 1,000 and 10,000 sessions)."""

import json
from pathlib import Path

import pytest
from dulwich.objects import Commit, Tree

from git_teddy.artifacts.sessionlog.model import Phase, SessionLog, SessionMeta
from git_teddy.artifacts.sessionlog.parse import parse_log
from git_teddy.artifacts.sessionlog.render import render_log
from git_teddy.errors import TeddyError
from git_teddy.gitstore import batchread
from git_teddy.index.read import parse_log_leniently
from testing.commands import Teddy, git, run
from testing.plans import create, plan_text
from testing.repos import bare_remote
from testing.sessions import session_with_a_turn

SESSION_REFS = "+refs/teddy/sessions/*:refs/remotes/origin/teddy/*"


def team_remote(tmp_path: Path, repo: Path, env: dict, teddy: Teddy) -> tuple[Path, str]:
    """A bare remote holding one real session, pushed by `git teddy push`; its id."""
    remote = bare_remote(tmp_path, repo, env)
    session = session_with_a_turn(repo, teddy)
    teddy.ok(repo, "push")
    return remote, session


def copies(remote: Path, env: dict, session: str, count: int) -> list[str]:
    """`count` sessions on the remote where `git teddy push` puts them, each a copy of
    `session`'s refs under another id (same commits: git reads them once per id all the
    same); their ids."""
    branch = git(remote, env, "rev-parse", f"refs/teddy/sessions/{session}/main").strip()
    kept = git(remote, env, "rev-parse", f"refs/teddy/keep/{session}").strip()
    day = session.split("-")[0]
    ids = [f"{day}-copy-{n:03d}" for n in range(count)]
    lines = "".join(
        f"update refs/teddy/sessions/{sid}/main {branch}\nupdate refs/teddy/keep/{sid} {kept}\n"
        for sid in ids
    )
    run(["git", "update-ref", "--stdin"], remote, env, input=lines, check=True)
    return ids


def traced(teddy: Teddy, repo: Path, *args: str) -> tuple[str, list[list[str]]]:
    """`git teddy ARGS`'s stdout, and the argv of each git process it started."""
    trace = repo.parent / f"{repo.name}-trace2.json"
    trace.unlink(missing_ok=True)
    out = Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).ok(repo, *args).stdout
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return out, [e["argv"][1:] for e in events if e["event"] == "start"]


def listed(out: str) -> dict[str, dict]:
    return {row["id"]: row for row in json.loads(out)}


def test_a_first_list_reads_any_number_of_sessions_in_the_same_git_processes(
    repo: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    remote, session = team_remote(tmp_path, repo, env, teddy)
    original = listed(teddy.ok(repo, "list", "--json").stdout)[session]
    commands = {}
    for count in (5, 50):
        ids = copies(remote, env, session, count)
        clone = tmp_path / f"clone-{count}"
        git(tmp_path, env, "clone", "-q", str(remote), str(clone))
        git(clone, env, "fetch", "-q", "origin", SESSION_REFS)  # plain git: no index yet
        out, started = traced(teddy, clone, "list", "--json")
        rows = listed(out)
        assert set(rows) == {session, *ids}
        for row in rows.values():  # each read whole: its log, turns, root and figures
            same = ("title", "turns", "tokens", "agent", "started", "author", "status")
            assert {k: row.get(k) for k in same} == {k: original.get(k) for k in same}
        commands[count] = sorted(argv[0] for argv in started)
    assert commands[5] == commands[50], commands  # not one git process per session


def test_the_list_after_a_fetch_reads_no_session(
    repo: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    remote, session = team_remote(tmp_path, repo, env, teddy)
    ids = copies(remote, env, session, 20)
    clone = tmp_path / "clone"
    git(tmp_path, env, "clone", "-q", str(remote), str(clone))
    teddy.ok(clone, "fetch")
    out, started = traced(teddy, clone, "list", "--json")
    assert set(listed(out)) == {session, *ids}
    reads = [argv for argv in started if argv[0] in ("cat-file", "rev-list", "log")]
    assert reads == []  # the fetch brought the index up to date: nothing read again
    # A fetch that brings nothing leaves the index alone, and list still answers from it.
    teddy.ok(clone, "fetch")
    out, started = traced(teddy, clone, "list", "--json")
    assert set(listed(out)) == {session, *ids}
    assert not [argv for argv in started if argv[0] in ("cat-file", "rev-list", "log")]


def test_a_push_that_sends_nothing_reads_no_session(
    repo: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    _, session = team_remote(tmp_path, repo, env, teddy)
    out, started = traced(teddy, repo, "push")
    assert f"pushed 1 session(s) to origin: {session}" in out
    assert "shared 0 project file(s)" in out
    # Neither its snapshots listed nor their files counted: the remote had the keep ref.
    assert not [argv for argv in started if argv[0] in ("rev-list", "cat-file", "log")]
    # A new turn: its new file is counted, the files the remote had are not.
    plan_file = tmp_path / "next-plan.md"
    plan_file.write_text(plan_text(create("c.txt", "a file the remote has not seen\n")))
    teddy.ok(repo, "plan", "-m", "one more", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    assert "shared 1 project file(s) origin had not seen" in teddy.ok(repo, "push").stdout


def test_raw_commits_and_trees_read_as_dulwich_reads_them() -> None:
    commit = Commit()
    commit.tree = b"4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    commit.parents = [b"1" * 40, b"2" * 40]
    commit.author = "Zoë Example <zoe@example.com>".encode()
    commit.committer = b"Committer <c@example.com>"
    commit.author_time, commit.author_timezone = 1_700_000_000, 3600
    commit.commit_time, commit.commit_timezone = 1_700_000_900, -(5 * 3600 + 30 * 60)
    commit.gpgsig = b"-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n"
    commit.message = b"teddy: new session 20261127-x\n\nTeddy-Snapshot: " + b"3" * 40 + b"\n"
    read = batchread.parse_commit(commit.id.decode(), commit.as_raw_string())
    assert (read.tree, read.parents, read.author, read.message) == (
        commit.tree.decode(),
        tuple(p.decode() for p in commit.parents),
        commit.author.decode(),
        commit.message.decode(),
    )
    assert (read.timestamp, read.tz_offset) == (commit.commit_time, commit.commit_timezone)

    tree = Tree()
    tree.add(b"01", 0o040000, b"4" * 40)
    tree.add(b"session.md", 0o100644, b"5" * 40)
    tree.add(b"sub", 0o160000, b"6" * 40)  # a gitlink is no folder
    names = batchread.tree_names(tree.id.decode(), tree.as_raw_string())
    assert names == {"01": True, "session.md": False, "sub": False}


def test_a_damaged_block_leaves_the_phases_figures_to_the_index() -> None:
    meta = SessionMeta(session_id="20261127-edited", started="2026-11-27T12:00:00+00:00")
    phases = [
        Phase(title=f"Turn {n}", agent="dev@1.0", channel="cli", turn=f"0{n}",
              time=f"2026-11-27T12:0{n}:00+00:00", status="success", tokens=100 * n)
        for n in (1, 2)
    ]  # fmt: skip
    text = render_log(SessionLog(meta=meta, phases=phases))
    # A teammate edited the log by hand: a line no phase block has. show refuses it...
    edited = text + "a line edited in by hand\n"
    with pytest.raises(TeddyError):
        parse_log(edited)
    # ...while list and stats still count each phase's heading and figures.
    data, read = parse_log_leniently(edited)
    assert data["session_id"] == "20261127-edited"
    assert [(p.turn, p.tokens, p.title) for p in read] == [
        ("01", 100, "Turn 1"),
        ("02", 200, "Turn 2"),
    ]
