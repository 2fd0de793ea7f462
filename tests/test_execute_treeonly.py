"""A plan that runs no command executes without a checkout (issue 16 P1): only the files it
names are checked out, and its result is the base tree with the blobs it changed. The result
must be the one a scratch worktree gives: each case runs the same plan again with a harmless
EXECUTE added (which takes the worktree) and compares the two result trees, and checks that
the first run used no worktree (git lists none, the pool folder has none)."""

import re
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create, edit, execute, read
from testing.sessions import report_of, start
from testing.worktrees import cache_root, scratch_paths

MEMOS = "[+] Keep it short."


def pooled(repo: Path, env: dict) -> list[Path]:
    """The scratch worktrees git knows of in this repository (the pool's)."""
    return scratch_paths(repo, env)


def result_of(repo: Path, teddy: Teddy, env: dict, *actions: str) -> tuple[str, dict]:
    """Plan `actions` in a new session and execute it; the result snapshot and the report."""
    session = start(repo, teddy, *actions, memos=MEMOS)
    teddy.ok(repo, "execute", "-y")
    report = report_of(repo, env, session)
    return report["run_summary"]["snapshot"], report


def back_to_head(repo: Path, env: dict) -> None:
    """The working tree as HEAD has it again (what applying a result changed goes)."""
    git(repo, env, "reset", "-q", "--hard", "HEAD")
    git(repo, env, "clean", "-qfdx")


def same_as_in_a_worktree(repo: Path, teddy: Teddy, env: dict, *actions: str) -> str:
    """Run `actions` without a checkout, then with an EXECUTE (in a worktree): the same
    result tree, and no worktree for the first run. The first result snapshot."""
    assert pooled(repo, env) == []
    snapshot, report = result_of(repo, teddy, env, *actions)
    assert report["run_summary"]["status"] == "SUCCESS", report
    assert pooled(repo, env) == []  # no worktree was made for it
    assert list(cache_root(env).glob("*/wt-0")) == []
    back_to_head(repo, env)
    in_worktree, _ = result_of(repo, teddy, env, *actions, execute("true"))
    assert len(pooled(repo, env)) == 1  # the observation above can fail: this one used one
    back_to_head(repo, env)
    tree = git(repo, env, "rev-parse", f"{snapshot}^{{tree}}")
    assert tree == git(repo, env, "rev-parse", f"{in_worktree}^{{tree}}")
    return snapshot


def mode_of(repo: Path, env: dict, snapshot: str, path: str) -> str:
    return git(repo, env, "ls-tree", snapshot, "--", path).split()[0]


@pytest.fixture
def converting(repo: Path, env: dict) -> Path:
    """A repository whose .txt files are checked out with CRLF, whose .up files go through
    a clean filter (upper case), with an executable script."""
    (repo / ".gitattributes").write_text("*.txt text eol=crlf\n*.up filter=upper\n")
    git(repo, env, "config", "filter.upper.clean", "tr a-z A-Z")
    git(repo, env, "config", "filter.upper.smudge", "cat")
    (repo / "notes.txt").write_text("one\ntwo\n")
    (repo / "shout.up").write_text("HI\n")
    (repo / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (repo / "run.sh").chmod(0o755)
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "attributes")
    (repo / "notes.txt").unlink()
    git(repo, env, "checkout", "--", "notes.txt")  # written again, with the new attributes
    assert (repo / "notes.txt").read_bytes() == b"one\r\ntwo\r\n"
    return repo


def test_eol_filters_and_exec_bits_as_a_worktree_gives_them(
    converting: Path, teddy: Teddy, env: dict
) -> None:
    repo = converting
    snapshot = same_as_in_a_worktree(
        repo,
        teddy,
        env,
        edit("notes.txt", "two", "TWO"),
        create("fresh.txt", "a\nb\n"),
        create("deep/er/loud.up", "quiet words\n"),
        edit("run.sh", "echo hi", "echo bye"),
        read("README.md"),
    )
    show = lambda path: git(repo, env, "show", f"{snapshot}:{path}")  # noqa: E731
    assert show("notes.txt") == "one\nTWO\n"  # stored as `git add` stores it: LF
    assert show("fresh.txt") == "a\nb\n"
    assert show("deep/er/loud.up") == "QUIET WORDS\n"  # the clean filter ran
    assert show("run.sh") == "#!/bin/sh\necho bye\n"
    assert mode_of(repo, env, snapshot, "run.sh") == "100755"
    assert mode_of(repo, env, snapshot, "fresh.txt") == "100644"
    assert "Keep it short." in show(".teddy/memos.yaml")
    assert show("shout.up") == "HI\n"  # untouched files keep their blobs

    # applied as git checkout writes it: CRLF in the working tree
    start(repo, teddy, edit("notes.txt", "one", "ONE"))
    teddy.ok(repo, "execute", "-y")
    assert (repo / "notes.txt").read_bytes() == b"ONE\r\ntwo\r\n"
    assert len(pooled(repo, env)) == 1  # still the one worktree


def test_core_filemode_false_keeps_the_recorded_mode(repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / "run.sh").write_text("echo hi\n")
    git(repo, env, "add", "run.sh")
    git(repo, env, "update-index", "--chmod=+x", "run.sh")
    git(repo, env, "commit", "-qm", "script")
    git(repo, env, "config", "core.fileMode", "false")
    back_to_head(repo, env)
    snapshot = same_as_in_a_worktree(repo, teddy, env, edit("run.sh", "echo hi", "echo bye"))
    assert mode_of(repo, env, snapshot, "run.sh") == "100755"


def test_a_path_through_a_symlink_takes_the_worktree(repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / "link.md").symlink_to("README.md")
    git(repo, env, "add", "link.md")
    git(repo, env, "commit", "-qm", "link")
    snapshot, report = result_of(repo, teddy, env, edit("link.md", "demo", "DEMO"))
    assert report["run_summary"]["status"] == "SUCCESS"
    assert len(pooled(repo, env)) == 1  # the edit goes through the link, as git would see it
    assert git(repo, env, "show", f"{snapshot}:README.md") == "# DEMO\n"


def test_a_killed_run_resumes_without_a_worktree(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, create("a.txt", "a\n"), edit("app.py", "hello", "bye"))
    teddy.killed_at("execute.action.1", repo, "execute", "-y")
    result = teddy.ok(repo, "execute", "-y")
    assert "resuming turn 01" in result.stderr
    snapshot = report_of(repo, env, session)["run_summary"]["snapshot"]
    assert git(repo, env, "show", f"{snapshot}:a.txt") == "a\n"
    assert git(repo, env, "show", f"{snapshot}:app.py") == "print('bye')\n"
    logs = report_of(repo, env, session)["action_logs"]
    assert [log["status"] for log in logs] == ["SUCCESS", "SUCCESS"]
    assert pooled(repo, env) == []


def test_in_a_sha256_repository(tmp_path: Path, teddy: Teddy, env: dict) -> None:
    repo = tmp_path / "sha256"
    made = run(["git", "init", "-q", "--object-format=sha256", str(repo)], tmp_path, env)
    if made.returncode != 0:
        pytest.skip(f"this git cannot create a SHA-256 repository: {made.stderr.strip()}")
    (repo / "app.py").write_text("one\ntwo\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "x.txt").write_text("x\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "initial")
    snapshot = same_as_in_a_worktree(
        repo, teddy, env, edit("app.py", "two", "TWO"), create("sub/y.txt", "y\n")
    )
    assert re.fullmatch(r"[0-9a-f]{64}", snapshot)
    assert git(repo, env, "show", f"{snapshot}:sub/y.txt") == "y\n"
    fsck = run(["git", "fsck", "--strict", "--no-dangling"], repo, env)
    assert fsck.returncode == 0 and not fsck.stderr.strip(), fsck.stderr
