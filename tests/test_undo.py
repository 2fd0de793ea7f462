"""`git teddy undo` and `restore base`: taking back what execute applied, nothing else lost."""

from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import create, edit, plan_text
from testing.repos import commit_files
from testing.sessions import queue, three_turns

EXIT_CONFLICTS = 7


LONG = "".join(f"line {n}\n" for n in range(1, 21))  # a file to edit in one place


def files_of(repo: Path) -> dict[str, bytes]:
    """Every file of the working tree (outside .git), byte for byte."""
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


def back_command(output: str) -> list[str]:
    """The `git teddy restore ...` a command printed as the way back, as arguments."""
    return output.split("to return to them: ")[1].split()[2:]


def test_undo_puts_back_the_files_before_the_applied_turn_byte_for_byte(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    # Edits of the user's own before the turn: CRLF, no final newline, an untracked file.
    (repo / "README.md").write_bytes(b"# demo\r\nmine, no newline")
    (repo / "notes.txt").write_bytes(b"untracked\n")
    git(repo, env, "add", "README.md")  # staged: the index must stay as it is
    before, index = files_of(repo), git(repo, env, "ls-files", "-s")
    head = git(repo, env, "rev-parse", "HEAD")
    queue(
        replies,
        plan_text(edit("app.py", "hello", "bye"), create("new/deep.txt", "from the model\n")),
    )
    session = teddy.ok(repo, "new", "undoable").stdout.strip()
    teddy.ok(repo, "plan", "-m", "change it")
    executed = teddy.ok(repo, "execute", "-y")
    assert "to undo: git teddy undo" in executed.stderr
    assert (repo / "new/deep.txt").exists() and "bye" in (repo / "app.py").read_text()
    after = files_of(repo)

    undone = teddy.ok(repo, "undo")
    assert f"undid turn 01 of {session}: 2 file(s) changed" in undone.stdout
    assert files_of(repo) == before
    assert not (repo / "new").exists()  # the folder the turn made goes with its file
    assert git(repo, env, "rev-parse", "HEAD") == head
    assert git(repo, env, "ls-files", "-s") == index
    # The undo is recorded in the session, and is itself undone by the command it prints.
    assert "teddy: undo turn 01" in git(repo, env, "log", "--format=%s", f"teddy/{session}/main")
    teddy.ok(repo, *back_command(undone.stdout))
    assert files_of(repo) == after


def test_undo_twice_takes_back_the_turn_before_then_says_nothing_is_left(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    three_turns(repo, teddy, replies)
    assert (repo / "one.txt").read_text() == "one\n"
    assert "undid turn 03" in teddy.ok(repo, "undo").stdout
    assert (repo / "one.txt").read_text() == "1\n" and (repo / "two.txt").exists()
    assert "undid turn 02" in teddy.ok(repo, "undo").stdout
    assert (repo / "one.txt").exists() and not (repo / "two.txt").exists()
    assert "undid turn 01" in teddy.ok(repo, "undo").stdout
    assert not (repo / "one.txt").exists()
    assert files_of(repo) == {"README.md": b"# demo\n", "app.py": b"print('hello')\n"}
    refused = teddy.exits(1, repo, "undo")
    assert "error: nothing to undo" in refused.stderr and "undone already" in refused.stderr
    assert "hint: " in refused.stderr and "Traceback" not in refused.stderr


def test_undo_with_nothing_applied_refuses_with_a_hint(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    teddy.ok(repo, "new", "idle")
    refused = teddy.exits(1, repo, "undo")
    assert "error: nothing to undo: no turn of session" in refused.stderr
    assert "hint: `git teddy saved`" in refused.stderr
    # A turn executed with teddy.apply=never changed no file: still nothing to undo.
    queue(replies, plan_text(create("kept.txt", "only in the snapshot\n")))
    teddy.ok(repo, "plan", "-m", "make it")
    git(repo, env, "config", "teddy.apply", "never")
    teddy.exits(0, repo, "execute", "-y")  # kept but not applied, by choice (issue 26)
    assert "error: nothing to undo" in teddy.exits(1, repo, "undo").stderr


def test_undo_keeps_your_later_edits_merging_like_stash_pop(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    commit_files(repo, env, {"long.txt": LONG})
    queue(replies, plan_text(edit("long.txt", "line 2\n", "line 2 by the model\n")))
    teddy.ok(repo, "new", "merging")
    teddy.ok(repo, "plan", "-m", "change it")
    teddy.ok(repo, "execute", "-y")
    # The user edits the same file far from the turn's change, and another file.
    text = (repo / "long.txt").read_text().replace("line 19\n", "line 19 by me\n")
    (repo / "long.txt").write_text(text)
    (repo / "app.py").write_text("print('mine')\n")

    undone = teddy.ok(repo, "undo")
    assert "(merged with your later edits)" in undone.stdout
    assert (repo / "long.txt").read_text() == LONG.replace("line 19\n", "line 19 by me\n")
    assert (repo / "app.py").read_text() == "print('mine')\n"


def test_undo_over_an_overlapping_edit_leaves_conflicts_and_loses_nothing(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(edit("app.py", "hello", "bye")))
    teddy.ok(repo, "new", "clash")
    teddy.ok(repo, "plan", "-m", "change it")
    teddy.ok(repo, "execute", "-y")
    (repo / "app.py").write_text("print('bye, said I')\n")  # over the turn's very line
    mine = files_of(repo)

    undone = teddy.exits(EXIT_CONFLICTS, repo, "undo")
    assert "conflicts (markers: yours / before turn 01) in: app.py" in undone.stdout
    text = (repo / "app.py").read_text()
    assert "<<<<<<< yours" in text and "print('bye, said I')" in text and "hello" in text
    teddy.ok(repo, *back_command(undone.stdout), "--force")
    assert files_of(repo) == mine


def test_undo_dry_run_names_the_turn_and_files_and_changes_nothing(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(create("a.txt", "a\n"), edit("app.py", "hello", "bye")))
    teddy.ok(repo, "new", "preview")
    teddy.ok(repo, "plan", "-m", "change it")
    teddy.ok(repo, "execute", "-y")
    now = files_of(repo)
    shown = teddy.ok(repo, "undo", "--dry-run").stdout
    assert "undo would take back turn 01 of" in shown and "2 file(s)" in shown
    assert "  a.txt\n" in shown and "  app.py\n" in shown
    assert files_of(repo) == now


def test_restore_base_and_00_give_the_sessions_starting_state(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    (repo / "app.py").write_text("print('before the session')\n")
    start = files_of(repo)
    session = three_turns(repo, teddy, replies)
    restored = teddy.ok(repo, "restore", "base")
    assert "restored the base (" in restored.stdout and session in restored.stdout
    assert files_of(repo) == start
    teddy.ok(repo, *back_command(restored.stdout))
    assert (repo / "one.txt").read_text() == "one\n"
    teddy.ok(repo, "restore", "00", "--force")
    assert files_of(repo) == start
    teddy.ok(repo, "restore", "03", "--force")
    teddy.ok(repo, "restore", f"{session}/base", "--force")
    assert files_of(repo) == start


def test_a_killed_undo_is_told_and_run_again_finishes_it(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(edit("app.py", "hello", "bye")))
    teddy.ok(repo, "new", "killed")
    teddy.ok(repo, "plan", "-m", "change it")
    teddy.ok(repo, "execute", "-y")
    (repo / "mine.txt").write_text("mine\n")  # an edit of the user's after applying
    mine = files_of(repo)
    teddy.killed_at("undo.placed", repo, "undo")  # files placed, the undo not recorded
    assert (repo / "app.py").read_text() == "print('hello')\n"
    again = teddy.ok(repo, "undo")  # the next command tells; the undo finishes, no change
    assert "note: an interrupted `git teddy` (undoing turn 01" in again.stderr
    assert "undid turn 01" in again.stdout and ": 0 file(s) changed" in again.stdout
    assert (repo / "mine.txt").read_text() == "mine\n"
    saved = again.stderr.split("to get them back: ")[1].split()
    teddy.ok(repo, *saved[2:], "--force")
    assert files_of(repo) == mine
