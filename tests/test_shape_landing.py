"""Issue 26 items 7, 10 and 17: the user's own commits of turn results carry the link to the
turn (`Teddy-Session`, `Teddy-Turn`, `Teddy-Snapshot`) whatever way the result got there
(merged with the user's edits, two turns in one commit, an amend, a ref prefix changed after
the hooks were installed), and the session records the commit that took each result."""

from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create, edit, plan_text
from testing.sessions import report_of, start

LINES = "".join(f"line {n}\n" for n in range(1, 11))


def trailers(repo: Path, env: dict[str, str], rev: str = "HEAD") -> list[str]:
    out = git(repo, env, "log", "-1", "--format=%(trailers:only,unfold)", rev)
    return [line for line in out.splitlines() if line.startswith("Teddy-")]


def next_plan(repo: Path, teddy: Teddy, *actions: str) -> None:
    plan = repo.parent / "next-plan.md"
    plan.write_text(plan_text(*actions))
    teddy.ok(repo, "plan", "-m", "more", "--from-file", str(plan))


@pytest.fixture
def lines(repo: Path, env: dict[str, str]) -> Path:
    """The repository with lines.txt (ten lines) committed by the user."""
    (repo / "lines.txt").write_text(LINES)
    git(repo, env, "add", "lines.txt")
    git(repo, env, "commit", "-qm", "ten lines")
    return repo


def merged_turn(repo: Path, teddy: Teddy) -> tuple[str, str]:
    """A turn that edits line 2 of lines.txt, executed after the user edited line 9: the
    result is merged with the user's edit. The session and the turn's snapshot."""
    session = start(repo, teddy, edit("lines.txt", "line 2", "line two"))
    (repo / "lines.txt").write_text(LINES.replace("line 9", "line nine"))
    done = teddy.ok(repo, "execute", "-y")
    assert "merged with your edits" in done.stdout
    text = (repo / "lines.txt").read_text()
    assert "line two" in text and "line nine" in text
    return session, report_of(repo, teddy.env, session)["run_summary"]["snapshot"]


def test_a_result_merged_with_your_edits_gets_the_trailers_also_amended(
    lines: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    repo = lines
    teddy.ok(repo, "hooks", "install")
    session, snapshot = merged_turn(repo, teddy)
    expected = [f"Teddy-Session: {session}", "Teddy-Turn: 01", f"Teddy-Snapshot: {snapshot}"]
    git(repo, env, "commit", "-qam", "edits, mine and the turn's")
    assert trailers(repo, env) == expected
    git(repo, env, "commit", "-q", "--amend", "--no-edit")
    assert trailers(repo, env) == expected
    # An amend of a commit made without the hook gets them too.
    git(repo, env, "reset", "-q", "--soft", "HEAD~1")
    git(repo, env, "commit", "-qm", "plain", "--no-verify")
    git(repo, env, "commit", "-q", "--amend", "--no-edit")
    assert trailers(repo, env) == expected


def test_a_result_merged_before_the_hooks_ran_once_gets_the_trailers(
    lines: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    """The hook's shell check knows the applied blobs only once Python made its marks: the
    merged blob is among them although it was written before."""
    repo = lines
    session, snapshot = merged_turn(repo, teddy)
    teddy.ok(repo, "hooks", "install")
    (repo / "other.txt").write_text("mine\n")
    git(repo, env, "add", "other.txt")
    git(repo, env, "commit", "-qm", "an ordinary commit first: the marks are made")
    assert trailers(repo, env) == []
    git(repo, env, "commit", "-qam", "the merged result")
    assert trailers(repo, env) == [
        f"Teddy-Session: {session}",
        "Teddy-Turn: 01",
        f"Teddy-Snapshot: {snapshot}",
    ]


def test_a_commit_holding_two_turns_results_names_both(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    next_plan(repo, teddy, create("y.txt", "y\n"))
    teddy.ok(repo, "execute", "-y")
    first = report_of(repo, env, session, "01")["run_summary"]["snapshot"]
    second = report_of(repo, env, session, "02")["run_summary"]["snapshot"]
    teddy.ok(repo, "hooks", "install")
    git(repo, env, "add", "x.txt", "y.txt")
    git(repo, env, "commit", "-qm", "both")
    assert trailers(repo, env) == [
        f"Teddy-Session: {session}",
        "Teddy-Turn: 01",
        f"Teddy-Snapshot: {first}",
        "Teddy-Turn: 02",
        f"Teddy-Snapshot: {second}",
    ]


def test_the_commit_hook_reads_the_ref_prefix_when_it_runs(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    teddy.ok(repo, "hooks", "install")  # with the default prefix, teddy/
    git(repo, env, "config", "teddy.refPrefix", "ai/")
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    assert git(repo, env, "for-each-ref", f"refs/heads/ai/{session}/")
    git(repo, env, "add", "x.txt")
    result = run(["git", "commit", "-qm", "add x"], repo, env, check=True)
    assert "warning" not in result.stderr
    assert trailers(repo, env)[:2] == [f"Teddy-Session: {session}", "Teddy-Turn: 01"]


def test_the_session_records_the_commit_that_took_each_result(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    teddy.ok(repo, "hooks", "install")
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    git(repo, env, "add", "x.txt")
    git(repo, env, "commit", "-qm", "add x")
    mine = git(repo, env, "rev-parse", "HEAD").strip()
    assert "landed in" not in teddy.ok(repo, "show").stdout  # not recorded until then
    next_plan(repo, teddy, create("y.txt", "y\n"))  # the session's next commit records it
    assert git(repo, env, "rev-parse", "HEAD").strip() == mine  # the user's commit untouched
    tip = f"teddy/{session}/main"
    assert f"Teddy-Landed: 01 {mine}" in git(repo, env, "log", "-1", "--format=%B", tip)
    assert f"turn 01 landed in {mine[:10]}" in teddy.ok(repo, "show").stdout
    assert f"turn 01 landed in {mine[:10]}" in teddy.ok(repo, "log").stdout
    assert f"landed in {mine[:10]}" in teddy.ok(repo, "export", "--html", "-").stdout
    # Recorded once: later commits of the session do not say it again.
    teddy.ok(repo, "execute", "-y")
    assert "Teddy-Landed" not in git(repo, env, "log", "-1", "--format=%B", tip)
    assert teddy.ok(repo, "show").stdout.count("landed in") == 1


def test_an_auto_committed_result_is_recorded_as_landed(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    git(repo, env, "config", "teddy.autoCommit", "true")
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    commit = git(repo, env, "rev-parse", "HEAD").strip()
    snapshot = report_of(repo, env, session)["run_summary"]["snapshot"]
    assert f"Teddy-Snapshot: {snapshot}" in trailers(repo, env)
    teddy.ok(repo, "pause")  # a session commit
    assert f"turn 01 landed in {commit[:10]}" in teddy.ok(repo, "log").stdout
