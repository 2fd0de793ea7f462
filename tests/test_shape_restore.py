"""Repository shapes of issue 26 for `restore` and what it saves: a project without commits
yet (every file untracked, so every file differs from HEAD), where content a snapshot of the
session holds is teddy's to replace; and the saved state `restore` and `execute` speak of,
which `saved` and `diff --applied` find even when the user's files were exactly a
snapshot's."""

import re
from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import edit
from testing.sessions import report_of, start

APP = "one\ntwo\n"


def restored_from(out: str) -> str:
    """The saved id `restore` prints (`... to return to them: git teddy restore -s S ID`)."""
    found = re.search(r"restore -s \S+ ([0-9a-f]+)$", out.strip())
    assert found, out
    return found.group(1)


def test_restore_between_a_base_and_its_turn_without_commits(
    empty_repo: Path, teddy: Teddy, env: dict
) -> None:
    """No commit yet: the user's app.txt is untracked. `restore BASE` then `restore 01` goes
    back and forth without --force: both contents are snapshots of the session."""
    (empty_repo / "app.txt").write_text(APP)
    session = start(empty_repo, teddy, edit("app.txt", "two", "TWO"))
    teddy.ok(empty_repo, "execute", "-y")
    base = report_of(empty_repo, env, session)["run_summary"]["base_snapshot"]
    teddy.ok(empty_repo, "restore", base[:12])
    assert (empty_repo / "app.txt").read_text() == APP
    teddy.ok(empty_repo, "restore", "01")
    assert (empty_repo / "app.txt").read_text() == "one\nTWO\n"
    # a hand edit is still the user's own: refused without --force
    (empty_repo / "app.txt").write_text("mine\n")
    refused = teddy.exits(1, empty_repo, "restore", base[:12])
    assert "app.txt" in refused.stderr and "\nhint: " in refused.stderr
    assert (empty_repo / "app.txt").read_text() == "mine\n"


def test_the_state_restore_saved_is_listed_by_saved(repo: Path, teddy: Teddy, env: dict) -> None:
    """Right after an execute the user's files are the turn's result: restore still saves
    them as a state of their own, and `saved` lists the id restore printed."""
    session = start(repo, teddy, edit("README.md", "demo", "DEMO"))
    teddy.ok(repo, "execute", "-y")
    base = report_of(repo, env, session)["run_summary"]["base_snapshot"]
    out = teddy.ok(repo, "restore", base[:12]).stdout
    saved_id = restored_from(out)
    listed = teddy.ok(repo, "saved").stdout
    assert saved_id in listed and "restoring" in listed, listed
    teddy.ok(repo, "restore", saved_id)
    assert (repo / "README.md").read_text() == "# DEMO\n"


def test_diff_applied_of_a_turn_applied_onto_unchanged_files(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """A clean apply (no edits of the user's to merge with): the report says applied, and
    `diff --applied` agrees, showing no edits of theirs."""
    session = start(repo, teddy, edit("README.md", "demo", "DEMO"))
    teddy.ok(repo, "execute", "-y")
    assert report_of(repo, env, session)["run_summary"]["applied"] is True
    shown = teddy.ok(repo, "diff", "--applied", "01")
    assert "not applied" not in shown.stderr
    assert shown.stdout.strip() == ""
    assert git(repo, env, "status", "--porcelain") == " M README.md\n"
