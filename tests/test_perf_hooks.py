"""Issue 16 P7: the prepare-commit-msg hook decides in shell, without starting Python, that a
commit none of whose staged blobs teddy marked as applied (`teddy/applied/<blob>`) cannot be
an applied turn result. The marks are made by the first commit that asks Python (every blob
a turn's result wrote), and teddy marks what it applies later; the trailers stay as before."""

import re
from pathlib import Path

from testing.commands import Teddy, git, run
from testing.plans import create, plan_text
from testing.sessions import start


def hook(repo: Path, env: dict[str, str]) -> Path:
    return repo / git(repo, env, "rev-parse", "--git-path", "hooks/prepare-commit-msg").strip()


def applied_list(repo: Path, env: dict[str, str]) -> Path:
    common = git(repo, env, "rev-parse", "--git-common-dir").strip()
    return repo / common / "teddy" / "applied"


def break_python(repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    """The hook's interpreter fails loudly: a commit that starts Python says so."""
    broken = tmp_path / "broken-python"
    broken.write_text("#!/bin/sh\necho 'python started' >&2\nexit 1\n")
    broken.chmod(0o755)
    path = hook(repo, env)
    text = path.read_text()
    new = re.sub(r"(TEDDY_HOOK_REF_PREFIX=\S+ )\S+( -I -m)", rf"\g<1>{broken}\g<2>", text)
    assert new != text
    path.write_text(new)


def trailers(repo: Path, env: dict[str, str]) -> list[str]:
    out = git(repo, env, "log", "-1", "--format=%(trailers:only,unfold)")
    # Teddy-Snapshot beside them: tests/test_shape_landing.py
    return [line for line in out.splitlines() if line.startswith(("Teddy-Session", "Teddy-Turn"))]


def commit(repo: Path, env: dict[str, str], message: str, *paths: str) -> str:
    git(repo, env, "add", *paths)
    return run(["git", "commit", "-qm", message], repo, env, check=True).stderr


def test_the_first_commit_makes_the_list_then_ordinary_commits_start_no_python(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "hooks", "install")
    listed = applied_list(repo, env)
    assert not listed.exists()  # none before a hook asked Python
    (repo / "app.py").write_text("print('by hand')\n")
    assert commit(repo, env, "by hand", "app.py") == ""
    assert trailers(repo, env) == []
    x_blob = git(repo, env, "hash-object", "x.txt").strip()
    assert (listed / x_blob).is_file()  # turn 01's result, though not committed yet

    break_python(repo, env, tmp_path)
    (repo / "README.md").write_text("# edited by hand\n")
    assert "python started" not in commit(repo, env, "readme", "README.md")
    assert "python started" in commit(repo, env, "x", "x.txt")  # a listed blob: Python asked
    assert session


def test_results_applied_later_and_content_of_known_turns_get_the_trailers(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "hooks", "install")
    (repo / "x.txt").unlink()  # the result, set aside
    (repo / "app.py").write_text("print('by hand')\n")
    commit(repo, env, "by hand", "app.py")  # asks Python, which makes the list
    assert applied_list(repo, env).is_dir()

    # Turn 02, applied after the list was made: teddy added its blob, the hook sees it.
    plan = repo.parent / "plan2.md"
    plan.write_text(plan_text(create("y.txt", "y\n")))
    teddy.ok(repo, "plan", "-m", "more", "--from-file", str(plan))
    teddy.ok(repo, "execute", "-y")
    commit(repo, env, "y", "y.txt")
    assert trailers(repo, env) == [f"Teddy-Session: {session}", "Teddy-Turn: 02"]

    # Turn 01's content, written back by hand: a turn known when the list was made.
    (repo / "x.txt").write_text("x\n")
    commit(repo, env, "x", "x.txt")
    assert trailers(repo, env) == [f"Teddy-Session: {session}", "Teddy-Turn: 01"]


def test_a_linked_worktree_reads_the_same_list(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "hooks", "install")
    (repo / "app.py").write_text("print('by hand')\n")
    commit(repo, env, "by hand", "app.py")  # makes the list
    linked = tmp_path / "linked"
    git(repo, env, "worktree", "add", "-q", str(linked), "-b", "side")
    (linked / "README.md").write_text("# side\n")
    commit(linked, env, "side readme", "README.md")
    assert trailers(linked, env) == []
    (linked / "x.txt").write_text("x\n")
    commit(linked, env, "x on the side", "x.txt")
    assert trailers(linked, env) == [f"Teddy-Session: {session}", "Teddy-Turn: 01"]
