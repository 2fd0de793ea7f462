"""The session store's turn API (used by plan, execute, branch and restore) against real
repositories, and its output through `git teddy show` and `git teddy log`."""

import json
import os
from pathlib import Path

import pytest

from git_teddy.errors import ConcurrentUpdateError, TeddyError
from git_teddy.session.store import SessionStore
from git_teddy.session.workspace import open_workspace
from testing.commands import Teddy, git


@pytest.fixture
def store(repo: Path, env: dict, monkeypatch: pytest.MonkeyPatch) -> SessionStore:
    """The library, in this process, under the same sealed environment as the executable."""
    for key in list(os.environ):
        if key.startswith("GIT_"):
            monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(repo)
    return open_workspace().store


def add_turn(store: SessionStore, session: str, branch: str, agent: str = "pathfinder") -> str:
    """A plan commit then a report commit, the way execution will write them."""
    turn = store.next_turn(session, branch)
    base = {
        "Teddy-Session": session,
        "Teddy-Turn": turn,
        "Teddy-Id": store.turn_id(session, turn),
        "Teddy-Agent": agent,
        "Teddy-Model": "stand-in",
    }
    plan = {f"{turn}/plan.md": b"# A plan\n", f"{turn}/user_prompt.txt": b"do it\n"}
    store.commit_files(
        session,
        branch,
        plan,
        f"teddy: {turn} plan",
        {**base, "Teddy-Phase": "plan", "Teddy-Status": "planned"},
    )
    snapshot = store.take_snapshot(session, f"teddy: snapshot after {turn}")
    store.commit_files(
        session,
        branch,
        {f"{turn}/report.md": b"status: completed\n"},
        f"teddy: {turn} report",
        {**base, "Teddy-Phase": "report", "Teddy-Status": "completed", "Teddy-Snapshot": snapshot},
    )
    return turn


def test_turns_branches_and_names(store: SessionStore, repo: Path, teddy: Teddy, env: dict) -> None:
    session = store.create_session("turns", "cli")
    assert [add_turn(store, session, "main") for _ in range(3)] == ["01", "02", "03"]
    branch = store.create_branch(store.resolve_turn("02", session))
    assert branch == "02-branch-01"
    assert store.next_turn(session, branch) == "02-branch-01"
    assert add_turn(store, session, branch, agent="architect") == "02-branch-01"
    assert add_turn(store, session, branch) == "02-branch-01.03"
    assert store.create_branch(store.resolve_turn("02", session)) == "02-branch-02"
    assert store.create_branch(store.resolve_turn("02-branch-01.03", session)) == "03-branch-01"

    # The fork: the branch starts from turn 01's report, so it holds 01 but not 02.
    tree = git(repo, env, "ls-tree", "--name-only", f"teddy/{session}/{branch}").split()
    assert sorted(tree) == [
        "01",
        "02-branch-01",
        "02-branch-01.03",
        "session.context",
        "session.md",
    ]
    git(repo, env, "fsck", "--strict", "--no-progress")
    fork = git(repo, env, "merge-base", f"teddy/{session}/main", f"teddy/{session}/{branch}")
    assert (
        git(
            repo, env, "log", "-1", "--format=%(trailers:key=Teddy-Turn,valueonly)", fork.strip()
        ).strip()
        == "01"
    )

    log = json.loads(teddy.ok(repo, "log", "--json").stdout)
    assert [(t["turn"], t["phase"]) for t in log][:4] == [
        ("01", "plan"),
        ("01", "report"),
        ("02", "plan"),
        ("02", "report"),
    ]
    log = json.loads(teddy.ok(repo, "show", "--json").stdout)["turn_list"]
    assert [(t["turn"], t["branch"], t["phase"], t["status"]) for t in log] == [
        ("01", "main", "report", "completed"),
        ("02", "main", "report", "completed"),
        ("02-branch-01", "02-branch-01", "report", "completed"),
        ("03", "main", "report", "completed"),
        ("02-branch-01.03", "02-branch-01", "report", "completed"),
    ]
    required = {
        "session",
        "turn",
        "branch",
        "id",
        "parent_id",
        "phase",
        "status",
        "agent",
        "snapshot",
        "commit",
    }
    assert all(required <= set(t) for t in log)
    assert len({t["id"] for t in log}) == 5
    assert len(json.loads(teddy.ok(repo, "log", "--json").stdout)) == 10
    text = teddy.ok(repo, "log").stdout
    assert "└ 02-branch-01" in text and "architect" in text
    listed = json.loads(teddy.ok(repo, "list", "--json").stdout)[0]
    assert listed["turns"] == 5
    assert listed["branches"] == ["main", "02-branch-01", "02-branch-02", "03-branch-01"]


def test_show_turn_files(store: SessionStore, repo: Path, teddy: Teddy) -> None:
    session = store.create_session("show-me", "cli")
    add_turn(store, session, "main")
    shown = json.loads(teddy.ok(repo, "show", f"{session}/01", "--json").stdout)
    assert shown["files"] == {
        "plan.md": "# A plan\n",
        "report.md": "status: completed\n",
        "user_prompt.txt": "do it\n",
    }
    assert [c["phase"] for c in shown["commits"]] == ["plan", "report"]
    text = teddy.ok(repo, "show", "show/1").stdout
    assert "==> plan.md <==\n# A plan" in text


def test_trailers_parse_with_git(store: SessionStore, repo: Path, env: dict) -> None:
    session = store.create_session("trailers", "cli")
    add_turn(store, session, "main")
    trailers = git(
        repo, env, "log", "-1", "--format=%(trailers:only,unfold)", f"teddy/{session}/main"
    )
    keys = [line.split(":")[0] for line in trailers.strip().splitlines()]
    assert keys == [
        "Teddy-Session",
        "Teddy-Turn",
        "Teddy-Id",
        "Teddy-Agent",
        "Teddy-Model",
        "Teddy-Phase",
        "Teddy-Status",
        "Teddy-Snapshot",
    ]


def test_compare_and_swap_refuses_a_stale_writer(store: SessionStore) -> None:
    session = store.create_session("cas", "cli")
    ref = store.branch_ref(session, "main")
    stale = store.repo.read_ref(ref)
    assert stale is not None
    add_turn(store, session, "main")
    moved = store.repo.read_ref(ref)
    with pytest.raises(ConcurrentUpdateError):
        store.repo.update_ref(ref, stale, stale, "stale write")
    assert store.repo.read_ref(ref) == moved  # the other writer's turn is not lost


def test_unknown_turn_and_branch(store: SessionStore) -> None:
    session = store.create_session("empty", "cli")
    with pytest.raises(TeddyError, match="has no turn '01'"):
        store.resolve_turn("01", session)
    with pytest.raises(TeddyError, match="has no branch"):
        store.next_turn(session, "09-branch-01")
