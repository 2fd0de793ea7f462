"""`git teddy blame`: the session and turn behind each line."""

from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import edit, plan_text
from testing.sessions import start


def test_blame_names_the_turn_the_commit_and_hand_edits(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    (repo / "app.py").write_text("one\ntwo\nthree\n")
    git(repo, env, "commit", "-qam", "three lines")
    session = start(repo, teddy, edit("app.py", "two", "TWO by the model"))
    teddy.ok(repo, "execute", "-y")
    with (repo / "app.py").open("a") as handle:
        handle.write("four, by hand\n")
    rows = [line.split(None, 2) for line in teddy.ok(repo, "blame", "app.py").stdout.splitlines()]
    origins = {int(number): origin for number, origin, _ in rows}
    assert origins[2] == f"{session}/01"
    assert origins[1].startswith("commit:")
    assert origins[4] == "not"  # "not committed (your edit)", split on spaces
    only = teddy.ok(repo, "blame", "app.py:2").stdout
    assert only.split()[:2] == ["2", f"{session}/01"] and "TWO by the model" in only


def test_blame_bad_input(repo: Path, teddy: Teddy) -> None:
    for target, message in (
        ("nope.py", "is not a file"),
        ("../x", "climbs out"),
        ("app.py:99", "has no line 99"),
    ):
        result = teddy(repo, "blame", target)
        assert result.returncode == 1, target
        assert message in result.stderr and "hint: " in result.stderr


def test_blame_in_the_same_second_credits_the_later_turn(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """The sealed environment gives every commit the same date, as two quick turns get: the
    newer turn still wins (its result holds the older turn's line too)."""
    (repo / "app.py").write_text("one\ntwo\n")
    git(repo, env, "commit", "-qam", "two lines")
    session = start(repo, teddy, edit("app.py", "one", "ONE by turn 01"))
    teddy.ok(repo, "execute", "-y")
    plan = repo.parent / "plan2.md"
    plan.write_text(plan_text(edit("app.py", "two", "TWO by turn 02")))
    teddy.ok(repo, "plan", "-m", "again", "--from-file", str(plan))
    teddy.ok(repo, "execute", "-y")
    rows = [line.split(None, 2) for line in teddy.ok(repo, "blame", "app.py").stdout.splitlines()]
    assert {int(number): origin for number, origin, _ in rows} == {
        1: f"{session}/01",
        2: f"{session}/02",
    }
