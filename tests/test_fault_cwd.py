"""Fault suite (issue 25, item 12): like git, teddy never removes the folder the user stands
in. A turn that deletes the last file of that folder leaves it (empty), and commands run
there afterwards work. The real executable in a real repository."""

from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import execute
from testing.sessions import start


def test_a_turn_deleting_the_last_file_of_the_current_folder_leaves_the_folder(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    sub = repo / "sub" / "deeper"
    sub.mkdir(parents=True)
    (sub / "only.txt").write_text("the one file\n")
    git(repo, env, "add", "sub")
    git(repo, env, "commit", "-qm", "a folder with one file")
    start(repo, teddy, execute("rm sub/deeper/only.txt"))

    teddy.ok(sub, "execute", "-y")
    assert not (sub / "only.txt").exists()
    assert sub.is_dir()  # the user stands here: git leaves it, teddy too
    assert "deleted:    only.txt" in git(sub, env, "status")
    teddy.ok(sub, "list")
    teddy.ok(sub, "show")
