"""Issue 30 items 1, 2 and 7: the scratch worktrees live outside the user's project, in the
per-user cache (the sealed HOME's `.cache/git-teddy/<name>-<key>/wt-N`), so a tool that
searches the project folder (node's test runner, `grep -r`) never finds a copy of it; the
dependency folders a project ignores are linked in; `delete` and a gone repository leave no
pool behind.
(A moved or copied repository: tests/test_fault_locks.py; the location in every repository
shape: tests/test_shape_matrix.py.)"""

import re
import shutil
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import WORKTREE, create, execute, plan_text
from testing.repos import commit_files, make_repo
from testing.sessions import report_of, start
from testing.worktrees import cache_root, scratch_paths, worktree_list

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed on this machine")

PASSING = "const test = require('node:test');\ntest('adds', () => {});\n"
FAILING = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "test('a turn wrote this', () => assert.strictEqual(1, 2));\n"
)


def next_turn(repo: Path, teddy: Teddy, *actions: str) -> None:
    plan_file = repo.parent / "plan-next.md"
    plan_file.write_text(plan_text(*actions))
    teddy.ok(repo, "plan", "-m", "go on", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")


def node_test_count(repo: Path, env: dict) -> tuple[int, int]:
    """`node --test` in the project, searching it recursively as it does: (tests, failed)."""
    out = run(["node", "--test"], repo, env).stdout
    tests = re.search(r"^# tests (\d+)$", out, re.M)
    failed = re.search(r"^# fail (\d+)$", out, re.M)
    assert tests and failed, out
    return int(tests[1]), int(failed[1])


@needs_node
def test_node_test_counts_the_projects_tests_once_after_a_turn(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    (repo / "test").mkdir()
    commit_files(repo, env, {"package.json": '{"name": "demo"}\n', "test/a.test.js": PASSING})
    assert node_test_count(repo, env) == (1, 0)
    # The turn writes a failing test and runs a command: it takes the scratch worktree.
    session = start(repo, teddy, create("test/b.test.js", FAILING), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    assert report_of(repo, env, session)["run_summary"]["status"] == "SUCCESS"
    assert node_test_count(repo, env) == (2, 1)  # not 4: no copy of the project is found
    (repo / "test" / "b.test.js").unlink()  # the user deletes it: git status is clean
    assert git(repo, env, "status", "--porcelain") == ""
    assert node_test_count(repo, env) == (1, 0)  # and it no longer runs anywhere


def test_grep_over_the_project_finds_no_copy(repo: Path, teddy: Teddy, env: dict) -> None:
    commit_files(repo, env, {"a.txt": "NEEDLE\n"})
    start(repo, teddy, create("b.txt", "b\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    found = run(["grep", "-rl", "NEEDLE", "."], repo, env).stdout.split()
    assert found == ["./a.txt"]
    [scratch] = scratch_paths(repo, env)
    # <cache>/<project folder's name>-<key>/wt-0, registered with git and locked.
    assert scratch.parent.parent == cache_root(env)
    assert re.fullmatch(rf"{re.escape(repo.name)}-[0-9a-f]{{16}}", scratch.parent.name)
    assert scratch.name == "wt-0" and (scratch / "b.txt").is_file()
    assert (scratch.parent / "repository").read_text().strip() == str((repo / ".git").resolve())
    assert scratch.parent.stat().st_mode & 0o077 == 0  # the user's alone: a copy of the project


def test_teddy_worktree_dir_moves_the_pool_and_is_refused_inside_the_project(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    git(repo, env, "config", "teddy.worktree.dir", str(repo / "scratch"))
    session = start(repo, teddy, create("b.txt", "b\n"), WORKTREE)
    refused = teddy(repo, "execute", "-y")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert f"error: teddy.worktree.dir puts the scratch worktrees inside the project {repo}" in (
        refused.stderr
    )
    assert "hint: set a folder outside the project: git config teddy.worktree.dir" in (
        refused.stderr
    )
    assert not (repo / "scratch").exists()

    git(repo, env, "config", "teddy.worktree.dir", "relative/place")
    refused = teddy(repo, "execute", "-y")
    assert refused.returncode == 1 and "error: teddy.worktree.dir must be an absolute path" in (
        refused.stderr
    )

    elsewhere = tmp_path / "elsewhere"
    git(repo, env, "config", "teddy.worktree.dir", str(elsewhere))
    teddy.ok(repo, "execute", "-y")
    assert report_of(repo, env, session)["run_summary"]["status"] == "SUCCESS"
    [scratch] = [Path(wt["worktree"]) for wt in worktree_list(repo, env)[1:]]
    assert scratch.parent.parent == elsewhere and not cache_root(env).exists()


def test_ignored_dependency_folders_are_linked_by_default(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    commit_files(repo, env, {".gitignore": "node_modules/\n.venv/\n"})
    (repo / "node_modules" / "dep").mkdir(parents=True)
    (repo / "node_modules" / "dep" / "index.txt").write_text("dependency\n")
    (repo / "venv").mkdir()  # not ignored: the user's untracked files, in the snapshot
    (repo / "venv" / "mine.txt").write_text("mine\n")
    look = "cat node_modules/dep/index.txt; test -L node_modules && test ! -L venv && echo links"
    session = start(repo, teddy, execute(look))
    teddy.ok(repo, "execute", "-y")
    details = report_of(repo, env, session)["action_logs"][0]["details"]
    assert details["stdout"] == "dependency\nlinks\n"
    assert (repo / "node_modules" / "dep" / "index.txt").read_text() == "dependency\n"

    git(repo, env, "config", "teddy.worktree.linkDependencies", "false")
    next_turn(repo, teddy, execute("test ! -e node_modules"))
    assert report_of(repo, env, session, "02")["run_summary"]["status"] == "SUCCESS"


def test_delete_removes_the_idle_worktrees_and_their_pool(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = start(repo, teddy, create("b.txt", "b\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    [scratch] = scratch_paths(repo, env)
    teddy.ok(repo, "delete", "--force", session)
    assert scratch_paths(repo, env) == [] and not scratch.parent.exists()
    assert len(worktree_list(repo, env)) == 1
    assert (repo / "b.txt").read_text() == "b\n"  # the user's files stay
    start(repo, teddy, create("c.txt", "c\n"), WORKTREE)  # the next execute makes a new one
    teddy.ok(repo, "execute", "-y")
    assert (repo / "c.txt").read_text() == "c\n" and len(scratch_paths(repo, env)) == 1


def test_the_pool_of_a_repository_that_is_gone_is_removed_when_a_slot_is_made(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    other = make_repo(tmp_path / "other", env, {"x.txt": "x\n"})
    start(other, teddy, create("y.txt", "y\n"), WORKTREE)
    teddy.ok(other, "execute", "-y")
    [gone] = scratch_paths(other, env)
    shutil.rmtree(other)  # the repository is deleted; its pool stays in the cache for now
    assert gone.exists()
    start(repo, teddy, create("b.txt", "b\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    assert not gone.parent.exists()
    assert [p.parent for p in scratch_paths(repo, env)] == list(cache_root(env).iterdir())


def test_a_repository_at_the_home_folder_is_told_to_move_the_cache(
    teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    home = Path(env["HOME"])  # a dotfiles repository: the home folder is the project
    git(home, env, "init", "-q")
    commit_files(home, env, {"notes.txt": "mine\n"})
    start(home, teddy, create("b.txt", "b\n"), WORKTREE)
    refused = teddy(home, "execute", "-y")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "error: the default cache folder puts the scratch worktrees inside the project" in (
        refused.stderr
    )
    assert not cache_root(env).exists() and not (home / "b.txt").exists()
    git(home, env, "config", "teddy.worktree.dir", str(tmp_path / "elsewhere"))
    teddy.ok(home, "execute", "-y")
    assert (home / "b.txt").read_text() == "b\n"


def test_a_plan_without_commands_works_on_its_files_in_the_cache_too(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    start(repo, teddy, create("b.txt", "b\n"))  # no EXECUTE: no worktree, just its files
    teddy.ok(repo, "execute", "-y")
    assert (repo / "b.txt").read_text() == "b\n"
    [pool] = cache_root(env).iterdir()  # where its scratch folder was, gone with the run
    assert [p.name for p in pool.iterdir()] == ["repository"]
    assert list((repo / ".git" / "teddy").glob("tmp/files-*")) == []


@needs_node
def test_node_resolves_the_projects_dependencies_in_the_scratch_worktree(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    commit_files(repo, env, {".gitignore": "node_modules/\n", "package.json": "{}\n"})
    (repo / "node_modules" / "dep").mkdir(parents=True)
    (repo / "node_modules" / "dep" / "index.js").write_text("module.exports = 'resolved';\n")
    session = start(repo, teddy, execute("node -e \"console.log(require('dep'))\""))
    teddy.ok(repo, "execute", "-y")
    assert report_of(repo, env, session)["action_logs"][0]["details"]["stdout"] == "resolved\n"
