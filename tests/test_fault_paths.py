"""Issue 14 items 1 and 8, the fault suite's path cases: applying a result never writes or
deletes through a symlink of the user's working tree, `.git` in any of the forms git
protects (and names no file system takes) is refused when planning and at execute, and an
execution that fails (an action the file system refuses, a plan no longer valid, a run that
cannot finish) is recorded as a failed turn, so the next `plan` works. Each case: exit code,
`error:`/`hint:` and no traceback, `git fsck --strict`, the user's files (and the folder a
symlink points to) untouched."""

import os
from pathlib import Path

import pytest

from git_teddy.errors import EXIT_NOT_APPLIED, EXIT_TURN_FAILED, EXIT_USER_ERROR
from testing.commands import Teddy, git, run
from testing.plans import create, edit, execute, plan_text
from testing.sessions import queue, report_of

OVERWRITE = "- **Overwrite:** yes\n"


def files_of(top: Path) -> dict[str, bytes | str]:
    """Every file, symlink (as its target) and empty folder under `top`, .git left out."""
    found: dict[str, bytes | str] = {}
    for root, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*names, *dirs]:
            path = Path(root) / name
            rel = path.relative_to(top).as_posix()
            if path.is_symlink():
                found[rel] = f"-> {os.readlink(path)}"
            elif path.is_file():
                found[rel] = path.read_bytes()
            elif not any(path.iterdir()):
                found[rel] = "(empty folder)"
    return found


def assert_fsck_clean(repo: Path, env: dict) -> None:
    fsck = run(["git", "fsck", "--strict"], repo, env)
    assert fsck.returncode == 0, fsck.stderr


def assert_error(result_stderr: str) -> None:
    assert result_stderr.startswith("error: "), result_stderr
    assert "\nhint: " in result_stderr and "Traceback" not in result_stderr, result_stderr


def record(repo: Path, teddy: Teddy, *actions: str) -> str:
    """A new session whose turn 01 is the plan of `actions` (recorded with --from-file)."""
    session = teddy.ok(repo, "new", "work").stdout.strip()
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(*actions))
    teddy.ok(repo, "plan", "-m", "do the work", "--from-file", str(plan_file))
    return session


def next_plan_works(repo: Path, teddy: Teddy, turn: str = "02") -> None:
    plan_file = repo.parent / "next.md"
    plan_file.write_text(plan_text(create("next.txt", "next\n")))
    result = teddy.ok(repo, "plan", "-m", "go on", "--from-file", str(plan_file))
    assert f"turn {turn} of" in result.stdout


def assert_failed_turn(repo: Path, env: dict, session: str, reason: str) -> dict:
    """Turn 01 is recorded as failed, nothing applied, and `reason` is in its report."""
    report = report_of(repo, env, session)
    summary = report["run_summary"]
    assert summary["status"] == "FAILURE", summary
    assert summary["applied"] == "not applied: the execution failed"
    assert summary["snapshot"] == summary["base_snapshot"]
    assert any(reason in note for note in summary["notes"]), summary["notes"]
    return report


# Item 1: applying confines every write and deletion to the repository.


def test_a_result_is_never_written_through_the_users_ignored_symlink(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "theirs.txt").write_text("not the repository's\n")
    (repo / ".gitignore").write_text("data\n.env\n")
    git(repo, env, "add", ".gitignore")
    git(repo, env, "commit", "-q", "-m", "ignore data and .env")
    (repo / "data").symlink_to(elsewhere)
    (repo / ".env").write_text("TOKEN=mine\n")
    before, outside = files_of(repo), files_of(elsewhere)
    session = record(
        repo,
        teddy,
        edit(".gitignore", "data\n.env", "# nothing ignored"),
        create("data/pwn.txt", "pwn\n"),
        create(".env", "TOKEN=model\n"),
    )
    result = teddy.exits(EXIT_NOT_APPLIED, repo, "execute", "-y")
    assert "would go through your symlink data" in result.stderr
    assert "\nhint: move the symlink data out of the way" in result.stderr
    assert "Traceback" not in result.stderr
    assert files_of(repo) == before and files_of(elsewhere) == outside
    report = report_of(repo, env, session)
    assert report["run_summary"]["applied"].startswith("not applied: writing data/pwn.txt")
    assert_fsck_clean(repo, env)
    next_plan_works(repo, teddy)


def test_a_tracked_symlink_the_result_replaces_by_a_folder_is_replaced_not_followed(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / "link").symlink_to(elsewhere)
    git(repo, env, "add", "link")
    git(repo, env, "commit", "-q", "-m", "a symlink")
    record(repo, teddy, execute("rm link && mkdir link"), create("link/inside.txt", "in\n"))
    teddy.exits(0, repo, "execute", "-y")
    # as git checkout does: the symlink goes, a folder takes its place
    assert not (repo / "link").is_symlink()
    assert (repo / "link" / "inside.txt").read_text() == "in\n"
    assert files_of(elsewhere) == {}
    assert_fsck_clean(repo, env)
    next_plan_works(repo, teddy)


# Item 1 and 8: `.git` in every form git protects, and names too long, are refused up front.

REFUSED_PATHS = {
    ".GIT/config": "points into `.git`",
    ".git./config": "points into `.git`",
    ".git /config": "points into `.git`",
    "GIT~1/config": "points into `.git`",
    "sub/git~1./hooks/x": "points into `.git`",
    ".git::$INDEX_ALLOCATION/config": "points into `.git`",
    ".g\u200cit/config": "points into `.git`",
    "\ufeff.GIT/config": "points into `.git`",
    "a" * 300 + ".txt": "longer than 255 bytes",
}


@pytest.mark.parametrize("path", sorted(REFUSED_PATHS), ids=range(len(REFUSED_PATHS)))
def test_a_plan_naming_git_in_any_form_is_refused_before_anything_is_written(
    repo: Path, teddy: Teddy, env: dict, path: str
) -> None:
    session = teddy.ok(repo, "new", "work").stdout.strip()
    tip = git(repo, env, "rev-parse", f"teddy/{session}/main")
    before = files_of(repo)
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create(path, "x\n")), encoding="utf-8")
    result = teddy.exits(EXIT_USER_ERROR, repo, "plan", "-m", "go", "--from-file", str(plan_file))
    assert_error(result.stderr)
    assert REFUSED_PATHS[path] in result.stderr
    assert git(repo, env, "rev-parse", f"teddy/{session}/main") == tip  # nothing recorded
    assert files_of(repo) == before
    assert_fsck_clean(repo, env)
    next_plan_works(repo, teddy, turn="01")


def test_a_path_into_git_is_sent_back_to_the_model(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(
        replies,
        plan_text(create("GIT~1/hooks/pre-commit", "evil\n")),
        plan_text(create("notes.txt", "fine\n")),
    )
    session = teddy.ok(repo, "new", "work").stdout.strip()
    result = teddy.ok(repo, "plan", "-m", "go")
    assert "2 attempt(s)" in result.stdout
    attempts = git(repo, env, "ls-tree", "-r", "--name-only", f"teddy/{session}/main", "01/")
    problems = [name for name in attempts.splitlines() if "attempts/" in name]
    assert problems, attempts
    teddy.exits(0, repo, "execute", "-y")
    assert (repo / "notes.txt").read_text() == "fine\n"
    assert_fsck_clean(repo, env)


def test_a_recorded_plan_no_longer_valid_is_recorded_as_failed(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """A plan recorded by an older git-teddy (or by hand) that names `.git.`: execute
    refuses it before anything runs, and records the turn as failed so `plan` works."""
    session = record(repo, teddy, create("xgit./config", "x\n"))
    branch = f"teddy/{session}/main"
    _rewrite_plan(repo, env, branch, "xgit.", ".git.")
    before = files_of(repo)
    result = teddy.exits(EXIT_USER_ERROR, repo, "execute", "-y")
    assert_error(result.stderr)
    assert "turn 01 failed: its plan is not valid" in result.stderr
    assert "`.git./config` points into `.git`" in result.stderr
    assert files_of(repo) == before
    assert_failed_turn(repo, env, session, "points into `.git`")
    assert_fsck_clean(repo, env)
    next_plan_works(repo, teddy)


def _rewrite_plan(repo: Path, env: dict, branch: str, old: str, new: str) -> None:
    """Replace `old` by `new` in 01/plan.md of the branch's tip commit, as a hand edit of
    the session would (git's plumbing: a temporary index, the same message and parent)."""
    text = git(repo, env, "show", f"{branch}:01/plan.md").replace(old, new)
    blob = run(["git", "hash-object", "-w", "--stdin"], repo, env, input=text, check=True)
    index_env = {**env, "GIT_INDEX_FILE": str(repo.parent / "rewrite.index")}
    git(repo, index_env, "read-tree", branch)
    git(repo, index_env, "update-index", "--cacheinfo", f"100644,{blob.stdout.strip()},01/plan.md")
    tree = git(repo, index_env, "write-tree").strip()
    message = git(repo, env, "log", "-1", "--format=%B", branch)
    parent = git(repo, env, "rev-parse", f"{branch}^").strip()
    commit = run(
        ["git", "commit-tree", tree, "-p", parent], repo, env, input=message, check=True
    ).stdout.strip()
    git(repo, env, "update-ref", f"refs/heads/{branch}", commit)


# Item 8: an action the file system refuses is a failed action, recorded; the session moves on.

FAILING_ACTIONS = {
    "file-as-folder": (
        [create("app.py/x.txt", "x\n")],
        "app.py is a file where a folder is needed",
    ),
    "symlink-into-git": (
        [execute("ln -s .git g"), create("g/hooks/pre-commit", "evil\n")],
        "g/hooks/pre-commit leads into .git through a symlink",
    ),
    "folder-where-a-file-goes": (
        [execute("mkdir -p out"), create("out", "x\n").replace("\n````", f"\n{OVERWRITE}````", 1)],
        "out is a folder",
    ),
}


@pytest.mark.parametrize("case", sorted(FAILING_ACTIONS))
def test_an_action_the_file_system_refuses_is_a_failed_turn(
    repo: Path, teddy: Teddy, env: dict, case: str
) -> None:
    actions, reason = FAILING_ACTIONS[case]
    session = record(repo, teddy, *actions)
    before = files_of(repo)
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert f"FAILED: {'refused: ' if 'symlink' in case else ''}{reason}" in result.stdout
    assert "Traceback" not in result.stderr
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "FAILURE"
    failed = [log for log in report["action_logs"] if log["status"] == "FAILURE"]
    assert len(failed) == 1 and reason in failed[0]["details"]["error"]
    # what ran before the failure is applied, as for any failed turn; nothing else changed
    assert before.items() <= files_of(repo).items()
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    again = teddy.exits(EXIT_USER_ERROR, repo, "execute", "-y")
    assert_error(again.stderr)
    assert_fsck_clean(repo, env)
    next_plan_works(repo, teddy)


def test_a_run_that_cannot_finish_is_recorded_as_a_failed_turn(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """The memos go to .teddy/memos.yaml, but the project has a file .teddy: the run stops
    after it started; the turn is recorded as failed, nothing applied."""
    (repo / ".teddy").write_text("a file, not a folder\n")
    git(repo, env, "add", ".teddy")
    git(repo, env, "commit", "-q", "-m", "a file named .teddy")
    session = teddy.ok(repo, "new", "work").stdout.strip()
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create("new.txt", "new\n"), memos="[+] Be brief."))
    teddy.ok(repo, "plan", "-m", "go", "--from-file", str(plan_file))
    before = files_of(repo)
    result = teddy.exits(EXIT_USER_ERROR, repo, "execute", "-y")
    assert_error(result.stderr)
    assert "turn 01 failed: " in result.stderr and "recorded as failed" in result.stderr
    assert files_of(repo) == before
    assert_failed_turn(repo, env, session, ".teddy")
    assert_fsck_clean(repo, env)
    next_plan_works(repo, teddy)


def test_a_bad_apply_setting_is_refused_before_anything_runs(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = record(repo, teddy, execute("echo ran > ran.txt"), create("new.txt", "new\n"))
    tip = git(repo, env, "rev-parse", f"teddy/{session}/main")
    git(repo, env, "config", "teddy.apply", "sometimes")
    before = files_of(repo)
    result = teddy.exits(EXIT_USER_ERROR, repo, "execute", "-y")
    assert_error(result.stderr)
    assert "teddy.apply must be auto, ask or never" in result.stderr
    assert "[1/2]" not in result.stdout  # nothing ran
    assert git(repo, env, "rev-parse", f"teddy/{session}/main") == tip
    assert files_of(repo) == before
    git(repo, env, "config", "--unset", "teddy.apply")  # as the hint says
    teddy.exits(0, repo, "execute", "-y")
    assert (repo / "new.txt").read_text() == "new\n"
    assert_fsck_clean(repo, env)
    next_plan_works(repo, teddy)


def test_a_sparse_checkout_does_not_leave_the_session_stuck(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    for folder in ("src", "lib"):
        (repo / folder).mkdir()
        (repo / folder / "a.txt").write_text(f"{folder}\n")
    git(repo, env, "add", "src", "lib")
    git(repo, env, "commit", "-q", "-m", "two folders")
    git(repo, env, "sparse-checkout", "set", "src")
    assert not (repo / "lib").exists()
    record(repo, teddy, edit("lib/a.txt", "lib", "changed"), create("src/b.txt", "b\n"))
    teddy.exits(0, repo, "execute", "-y")  # the scratch worktree is never sparse
    assert (repo / "src" / "b.txt").read_text() == "b\n"
    assert (repo / "src" / "a.txt").read_text() == "src\n"
    assert_fsck_clean(repo, env)
    next_plan_works(repo, teddy)
