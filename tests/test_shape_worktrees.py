"""Repository shapes around the scratch worktrees (issue 13): the user's own linked worktrees,
their hooks and their sparse checkout. Teddy's worktrees are locked with a reason, never
prune the user's, never run the user's hooks and never inherit sparse patterns."""

import shutil
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import WORKTREE, create, execute, plan_text
from testing.sessions import report_of, start
from testing.worktrees import cache_root, scratch_entries, worktree_list

REASON = "git-teddy scratch worktree"


def fsck_clean(repo: Path, env: dict) -> None:
    git(repo, env, "fsck", "--strict", "--no-progress")


def worktrees(repo: Path, env: dict) -> list[dict[str, str]]:
    return worktree_list(repo, env)


def scratch(repo: Path, env: dict) -> list[dict[str, str]]:
    return scratch_entries(repo, env)


def next_turn(repo: Path, teddy: Teddy, *actions: str) -> None:
    plan_file = repo.parent / "plan-next.md"
    plan_file.write_text(plan_text(*actions))
    teddy.ok(repo, "plan", "-m", "go on", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")


def test_a_user_worktree_whose_folder_is_away_keeps_its_metadata(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    linked = repo.parent / "feature-wt"
    git(repo, env, "worktree", "add", "-q", "-b", "feature", str(linked))
    away = repo.parent / "unmounted"
    linked.rename(away)  # the drive it lives on is unmounted for a while
    session = start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    next_turn(repo, teddy, create("more.txt", "more\n"), WORKTREE)  # a reused scratch worktree too
    assert (repo / ".git" / "worktrees" / "feature-wt" / "gitdir").is_file()
    assert str(linked) in [wt["worktree"] for wt in worktrees(repo, env)]
    away.rename(linked)  # back: git knows it as before
    assert git(linked, env, "rev-parse", "--abbrev-ref", "HEAD").strip() == "feature"
    assert report_of(repo, env, session)["run_summary"]["status"] == "SUCCESS"
    fsck_clean(repo, env)


def test_scratch_worktrees_are_locked_with_a_reason_and_reused(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    [entry] = scratch(repo, env)
    assert entry["locked"].startswith(REASON)
    git(repo, env, "worktree", "prune")  # the user's prune keeps it
    assert scratch(repo, env) == [entry]
    head = git(Path(entry["worktree"]), env, "rev-parse", "HEAD")

    next_turn(repo, teddy, create("second.txt", "2\n"), WORKTREE)
    [reused] = scratch(repo, env)
    assert reused["worktree"] == entry["worktree"] and reused["locked"].startswith(REASON)
    assert git(Path(entry["worktree"]), env, "rev-parse", "HEAD") != head  # reset, not remade
    assert (repo / "second.txt").read_text() == "2\n"
    fsck_clean(repo, env)


def test_an_unlocked_or_deleted_scratch_worktree_is_remade_locked(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    [entry] = scratch(repo, env)
    git(repo, env, "worktree", "unlock", entry["worktree"])  # as an older git-teddy made it
    next_turn(repo, teddy, create("second.txt", "2\n"), WORKTREE)
    [entry] = scratch(repo, env)
    assert entry["locked"].startswith(REASON)

    shutil.rmtree(entry["worktree"])  # its folder deleted by hand, still registered and locked
    next_turn(repo, teddy, create("third.txt", "3\n"), WORKTREE)
    assert [wt["worktree"] for wt in scratch(repo, env)] == [entry["worktree"]]
    assert (repo / "third.txt").read_text() == "3\n"
    assert len(worktrees(repo, env)) == 2  # the checkout and one scratch worktree, no leftovers
    fsck_clean(repo, env)


def hook(repo: Path, name: str, body: str) -> None:
    path = repo / ".git" / "hooks" / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


@pytest.mark.parametrize("hooks_path", [False, True], ids=["git-hooks", "core-hooksPath"])
def test_the_users_hooks_never_run_in_scratch_worktrees(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path, hooks_path: bool
) -> None:
    marker = tmp_path / "hooks-ran"
    for name in ("post-checkout", "post-commit", "post-index-change", "reference-transaction"):
        # Each notes where it ran; post-checkout also fails, as a broken LFS install would.
        hook(repo, name, f'echo "{name} $PWD" >> "{marker}"')
    hook(repo, "post-checkout", f'echo "post-checkout $PWD" >> "{marker}"; exit 1')
    monitor = tmp_path / "fsmonitor"  # a hook-based filesystem monitor, failing
    monitor.write_text(f'#!/bin/sh\necho "fsmonitor $PWD" >> "{marker}"; exit 1\n')
    monitor.chmod(0o755)
    git(repo, env, "config", "core.fsmonitor", str(monitor))
    if hooks_path:  # the user's hooks live elsewhere (husky and the like)
        shutil.move(repo / ".git" / "hooks", tmp_path / "user-hooks")
        git(repo, env, "config", "core.hooksPath", str(tmp_path / "user-hooks"))
    # The hooks work in the user's checkout (the failing one fails git checkout there).
    assert run(["git", "checkout", "-q", "-b", "topic"], repo, env).returncode == 1
    assert f"post-checkout {repo}\n" in marker.read_text()
    assert f"fsmonitor {repo}\n" in marker.read_text()
    marker.unlink()

    # The plan's own git commands run there without the user's hooks too.
    probe = "git status --short && git commit -q --allow-empty -m probe && echo ran"
    session = start(repo, teddy, create("new.txt", "new\n"), execute(probe))
    teddy.ok(repo, "execute", "-y")
    next_turn(repo, teddy, create("second.txt", "2\n"), WORKTREE)  # a reused scratch worktree too
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert (repo / "new.txt").read_text() == "new\n"
    assert (repo / "second.txt").read_text() == "2\n"
    ran = marker.read_text() if marker.exists() else ""
    assert str(cache_root(env)) not in ran  # nothing ran in a scratch worktree
    fsck_clean(repo, env)


def sparse_repo(repo: Path, env: dict, cone: bool) -> None:
    """`inside/` is checked out, `outside/` (and its file) is not."""
    for folder in ("inside", "outside"):
        (repo / folder).mkdir()
        (repo / folder / "kept.txt").write_text(f"{folder}\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-q", "-m", "two folders")
    if cone:  # the modern way: per-worktree config (extensions.worktreeConfig)
        git(repo, env, "sparse-checkout", "set", "inside")
    else:  # the old way: core.sparseCheckout in the repository's config
        git(repo, env, "config", "core.sparseCheckout", "true")
        (repo / ".git" / "info" / "sparse-checkout").write_text("/*\n!/outside/\n")
        git(repo, env, "read-tree", "-mu", "HEAD")
    assert not (repo / "outside").exists()


@pytest.mark.parametrize("cone", [True, False], ids=["cone-worktree-config", "core-config"])
def test_a_create_outside_the_sparse_cone_executes(
    repo: Path, teddy: Teddy, env: dict, cone: bool
) -> None:
    sparse_repo(repo, env, cone)
    sparse_before = git(repo, env, "sparse-checkout", "list") if cone else ""
    session = start(
        repo,
        teddy,
        create("outside/new.txt", "new\n"),
        execute("cat outside/kept.txt; git status --short"),
    )
    teddy.ok(repo, "execute", "-y")
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    details = report["action_logs"][1]["details"]
    assert details["stdout"] == "outside\n?? outside/new.txt\n"  # a full tree, not sparse
    snapshot = report["run_summary"]["snapshot"]
    assert git(repo, env, "show", f"{snapshot}:outside/new.txt") == "new\n"
    assert git(repo, env, "show", f"{snapshot}:outside/kept.txt") == "outside\n"
    assert (repo / "outside" / "new.txt").read_text() == "new\n"  # applied, untracked

    next_turn(repo, teddy, create("inside/more.txt", "more\n"), WORKTREE)  # the next turn works on
    assert (repo / "inside" / "more.txt").read_text() == "more\n"
    # The user's sparse checkout is as it was.
    assert git(repo, env, "config", "--bool", "core.sparseCheckout").strip() == "true"
    if cone:
        assert git(repo, env, "sparse-checkout", "list") == sparse_before
    assert not (repo / "outside" / "kept.txt").exists()
    fsck_clean(repo, env)
