"""Issue 28 item 8: the user's steering between turns (add, drop, undo, restore, branch)
is recorded in session.md as `[!user]` callouts, the command quoted and what it did, in the
phase of the turn it came after; `show` and the review page show them; `learn` does not
take them for corrections. The real executable, the replay provider."""

from pathlib import Path

from git_teddy.artifacts.sessionlog.model import Callout, Phase
from git_teddy.artifacts.sessionlog.parse import parse_log
from git_teddy.artifacts.sessionlog.reading import interventions
from git_teddy.artifacts.sessionlog.steering import Steering, parse_steering, with_steering
from testing.commands import Teddy, git
from testing.plans import create, plan_text
from testing.sessions import queue


def test_add_drop_and_undo_are_user_callouts_in_the_log_show_and_page(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(create("login.py", "ok\n")))
    session = teddy.ok(repo, "new", "steered").stdout.strip()
    teddy.ok(repo, "add", "README.md")  # before any turn: opens turn 01's phase
    teddy.ok(repo, "plan", "-m", "Add login")
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "drop", "README.md")
    teddy.ok(repo, "undo")
    teddy.ok(repo, "restore", "01")

    text = git(repo, env, "show", f"teddy/{session}/main:session.md")
    added = '> "git teddy add README.md" - the user steered the session: added README.md to'
    dropped = '> "git teddy drop README.md" - the user steered the session: dropped README.md'
    undone = '> "git teddy undo" - the user steered the session: put your files back as they'
    restored = '> "git teddy restore 01" - the user steered the session: put your files as turn'
    for line in (added, dropped, undone, restored):
        assert line in text, text
    assert text.index(added) < text.index('"Add login"') < text.index(dropped)
    assert text.index(dropped) < text.index(undone) < text.index(restored)

    (phase,) = parse_log(text).phases
    kinds = [item.kind for item in interventions(phase)]
    assert kinds == ["steering", "message", "steering", "steering", "steering"]

    shown = teddy.ok(repo, "show", session).stdout
    assert "git teddy drop README.md" in shown and "git teddy undo" in shown
    page = teddy.ok(repo, "export", session, "--html").stdout
    assert "git teddy drop README.md" in page and "callout-user" in page
    learned = teddy.ok(repo, "learn", session).stdout
    assert "git teddy drop" not in learned  # steering is no correction

    queue(replies, plan_text(create("jwt.py", "jwt\n")))
    said = teddy.ok(repo, "branch", "01", "-m", "Use JWT instead").stdout
    branch = said.split("branch ", 1)[1].split()[0]
    other = git(repo, env, "show", f"teddy/{session}/{branch}:session.md")
    started = (
        "> \"git teddy branch 01 -m 'Use JWT instead'\" - the user steered the session: "
        f"started conversation branch {branch}, an alternative to turn 01"
    )
    assert started in other and other.index(started) < other.index('"Use JWT instead" -')
    assert started not in git(repo, env, "show", f"teddy/{session}/main:session.md")


def test_steering_is_placed_after_its_turn_and_damaged_entries_are_left_out() -> None:
    phases = [
        Phase(title="t", agent="dev", channel="cli", turn=name, time="x", status="planned")
        for name in ("01", "02")
    ]
    entries = parse_steering(
        "- {command: git teddy add a, did: added a, after: '01'}\n"
        "- {did: no command}\n"
        "- {command: git teddy undo, did: undid, after: '09'}\n"
    )
    assert [e.command for e in entries] == ["git teddy add a", "git teddy undo"]
    placed = with_steering(phases, entries)
    first, second = (p.blocks for p in placed)
    assert isinstance(first[0], Callout) and first[0].body.startswith('"git teddy undo"')
    assert isinstance(first[-1], Callout) and first[-1].body.startswith('"git teddy add a"')
    assert second == []
    assert parse_steering("not: [a list") == [] and parse_steering(None) == []
    assert with_steering([], [Steering(command="c", did="d")]) == []
