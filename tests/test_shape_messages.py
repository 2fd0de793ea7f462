"""Issue 26 item 14: teddy's refusals where git refuses, worded as git words them: a
repository another user owns (safe.directory), and a held index lock (nothing written)."""

from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import create, edit
from testing.sessions import report_of, start


def test_dubious_ownership_gives_gits_safe_directory_hint(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    other_owner = Teddy({**env, "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})
    refused = other_owner.exits(1, repo, "list")
    assert "dubious ownership" in refused.stderr, refused.stderr
    assert "safe.directory" in refused.stderr and "\nhint: " in refused.stderr
    assert "not a git repository" not in refused.stderr and "git init" not in refused.stderr
    git(repo, env, "config", "--global", "--add", "safe.directory", str(repo))
    other_owner.ok(repo, "list")  # trusted as git trusts it


def test_a_held_index_lock_stops_teddy_before_writing(repo: Path, teddy: Teddy, env: dict) -> None:
    index_lock = ["rev-parse", "--path-format=absolute", "--git-path", "index.lock"]
    lock = Path(git(repo, env, *index_lock).strip())
    session = start(repo, teddy, edit("README.md", "demo", "DEMO"))
    lock.write_text("")  # another git process is writing the index
    kept = teddy.exits(6, repo, "execute", "-y")  # the result is kept, not applied
    assert "index.lock" in kept.stdout + kept.stderr
    assert (repo / "README.md").read_text() == "# demo\n"
    lock.unlink()
    teddy.ok(repo, "restore", "01")
    assert (repo / "README.md").read_text() == "# DEMO\n"
    base = report_of(repo, env, session)["run_summary"]["base_snapshot"]
    lock.write_text("")
    refused = teddy.exits(1, repo, "restore", base[:12])
    assert "index.lock" in refused.stderr and "\nhint: " in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    assert (repo / "README.md").read_text() == "# DEMO\n"
    lock.unlink()
    teddy.ok(repo, "restore", base[:12])
    assert (repo / "README.md").read_text() == "# demo\n"


def test_file_names_in_a_refusal_are_quoted_as_git_quotes_them(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """A newline in a name does not break the `error:` line; a name past ASCII is shown as
    `git status` shows it, by core.quotePath."""
    session = start(repo, teddy, create("a.txt", "from the model\n"))
    teddy.ok(repo, "execute", "-y")
    base = report_of(repo, env, session)["run_summary"]["base_snapshot"]
    (repo / "we\nird.txt").write_text("mine\n")
    (repo / "héllo.txt").write_text("mine\n")
    refused = teddy.exits(1, repo, "restore", base[:12])
    lines = refused.stderr.splitlines()
    assert all(line.startswith(("error: ", "hint: ")) for line in lines), refused.stderr
    assert '"we\\nird.txt"' in lines[0] and '"h\\303\\251llo.txt"' in lines[0], lines[0]
    git(repo, env, "config", "core.quotePath", "false")
    refused = teddy.exits(1, repo, "restore", base[:12])
    assert '"we\\nird.txt"' in refused.stderr and " héllo.txt" in refused.stderr
    assert (repo / "we\nird.txt").read_text() == "mine\n"


def test_blame_in_a_shallow_clone_marks_the_boundary_as_git_does(
    repo: Path, tmp_path: Path, teddy: Teddy, env: dict
) -> None:
    (repo / "app.py").write_text("one\ntwo\n")
    git(repo, env, "commit", "-qam", "two lines")
    clone = tmp_path / "shallow"
    git(tmp_path, env, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    start(clone, teddy, edit("app.py", "two", "TWO"))
    teddy.ok(clone, "execute", "-y")
    mine = teddy.ok(clone, "blame", "app.py").stdout.splitlines()
    theirs = git(clone, env, "blame", "app.py").splitlines()
    assert theirs[0].startswith("^") and not theirs[1].startswith("^")  # git's own marks
    assert f"  {theirs[0].split()[0]}" in mine[0], mine  # `^` and the id, as git shows it
    assert "20261126-work/01" in mine[1] and "^" not in mine[1], mine


def test_file_names_in_a_refused_apply_are_quoted_as_git_quotes_them(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """Applying refuses to replace a folder holding an ignored file: the names in the
    message and its hint are quoted, so a newline in one does not break the line."""
    (repo / ".gitignore").write_text("*.log\n")
    git(repo, env, "add", ".gitignore")
    git(repo, env, "commit", "-qm", "ignore logs")
    start(repo, teddy, create("d", "a file where your folder is\n"))
    (repo / "d").mkdir()
    (repo / "d" / "bad\nname.log").write_text("ignored, yours\n")
    kept = teddy.exits(6, repo, "execute", "-y")
    lines = [line for line in kept.stderr.splitlines() if "would replace" in line]
    assert lines and 'would replace "d/bad\\nname.log", which is in no snapshot' in lines[0]
    assert 'hint: move "d/bad\\nname.log" out of the way' in kept.stderr, kept.stderr
    assert (repo / "d" / "bad\nname.log").read_text() == "ignored, yours\n"


def test_file_names_in_blames_refusals_are_quoted_as_git_quotes_them(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    (repo / "we\nird.txt").write_text("one line\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "an odd name")
    start(repo, teddy, create("a.txt", "a\n"))
    for args in (["we\nird.txt:9"], ["gone\nfile.txt"]):
        refused = teddy.exits(1, repo, "blame", *args)
        lines = refused.stderr.splitlines()
        assert all(line.startswith(("error: ", "hint: ")) for line in lines), refused.stderr
        assert '"we\\nird.txt" has no line 9' in lines[0] or '"gone\\nfile.txt"' in lines[0]
