"""Repository shapes with submodules and nested repositories (issue 13). A plan's EXECUTE sees
each initialised submodule checked out in the scratch worktree at the commit the base
records, nested ones too, borrowing the user's objects (no clone, no network, no worktree
registered in the user's submodule); an uninitialised one stays empty, as in git. A plan
that writes inside a submodule is refused before anything is written, and what a command
changes inside one is named as left out of the result. Untracked nested repositories, with or
without a commit, snapshot and execute."""

from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create, edit, execute, plan_text
from testing.sessions import replay, report_of, start
from testing.worktrees import cache_root, scratch_paths

FILE_PROTOCOL = ("-c", "protocol.file.allow=always")  # local submodule URLs (git >= 2.38.1)


def library(path: Path, env: dict, files: dict[str, str]) -> Path:
    path.mkdir()
    git(path, env, "init", "-q")
    for name, text in files.items():
        (path / name).write_text(text)
    git(path, env, "add", ".")
    git(path, env, "commit", "-qm", f"{path.name}: initial")
    return path


def add_submodule(repo: Path, env: dict, url: Path, path: str = "sub") -> None:
    git(repo, env, *FILE_PROTOCOL, "submodule", "add", "-q", str(url), path)
    git(repo, env, *FILE_PROTOCOL, "submodule", "update", "-q", "--init", "--recursive")
    git(repo, env, "commit", "-qm", f"add submodule {path}")


@pytest.fixture
def superproject(repo: Path, env: dict, tmp_path: Path) -> Path:
    """`repo` with the submodule `sub` (lib.txt), initialised and committed."""
    add_submodule(repo, env, library(tmp_path / "lib", env, {"lib.txt": "lib\n"}))
    return repo


def user_worktrees(repo: Path, env: dict) -> list[str]:
    """`git worktree list --porcelain` without teddy's scratch worktrees."""
    blocks = git(repo, env, "worktree", "list", "--porcelain").split("\n\n")
    return [b for b in blocks if b.strip() and str(cache_root(env)) not in b]


def state(repo: Path, env: dict, submodules: list[str]) -> dict[str, object]:
    """What must not change: the user's worktrees, status, index; each submodule's HEAD,
    status and worktrees."""
    seen: dict[str, object] = {
        "worktrees": user_worktrees(repo, env),
        "status": git(repo, env, "status", "--porcelain", "--ignore-submodules=none"),
        "index": git(repo, env, "ls-files", "-s"),
    }
    for path in submodules:
        sub = repo / path
        seen[path] = (
            git(sub, env, "rev-parse", "HEAD"),
            git(sub, env, "status", "--porcelain", "--ignored"),
            git(sub, env, "worktree", "list", "--porcelain"),
            git(sub, env, "for-each-ref"),
        )
    return seen


def fsck_clean(repo: Path, env: dict, submodules: list[str]) -> None:
    git(repo, env, "fsck", "--strict", "--no-progress")
    for path in submodules:  # each submodule's own git dir (.git/modules/...)
        git(repo / path, env, "fsck", "--strict", "--no-progress")


def next_turn(repo: Path, teddy: Teddy, *actions: str) -> None:
    plan_file = repo.parent / "plan-next.md"
    plan_file.write_text(plan_text(*actions))
    teddy.ok(repo, "plan", "-m", "go on", "--from-file", str(plan_file))


def test_execute_sees_the_submodule_at_its_recorded_commit_and_reuses_it(
    superproject: Path, teddy: Teddy, env: dict
) -> None:
    repo = superproject
    before = state(repo, env, ["sub"])
    session = start(repo, teddy, execute("cat sub/lib.txt; git -C sub status --short"))
    teddy.ok(repo, "execute", "-y")
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert report["action_logs"][0]["details"]["stdout"] == "lib\n"  # checked out, clean
    assert "notes" not in report["run_summary"]
    assert state(repo, env, ["sub"]) == before
    [scratch] = scratch_paths(repo, env)
    scratch_sub = scratch / "sub"
    marker = scratch_sub / ".git" / "kept-between-runs"
    marker.write_text("")

    # The user moves the submodule on (a new commit, recorded in the superproject): the
    # pooled scratch worktree follows it, and the plan's result is applied as usual.
    (repo / "sub" / "more.txt").write_text("more\n")
    git(repo / "sub", env, "add", ".")
    git(repo / "sub", env, "commit", "-qm", "more")
    git(repo, env, "commit", "-qam", "sub: more")
    before = state(repo, env, ["sub"])
    next_turn(repo, teddy, execute("cat sub/more.txt"), create("top.txt", "top\n"))
    teddy.ok(repo, "execute", "-y")
    report = report_of(repo, env, session, "02")
    assert report["action_logs"][0]["details"]["stdout"] == "more\n"
    assert marker.exists()  # the scratch copy of the submodule was moved on, not remade
    assert (repo / "top.txt").read_text() == "top\n"
    snapshot = report["run_summary"]["snapshot"]
    sub_head = git(repo / "sub", env, "rev-parse", "HEAD").strip()
    assert git(repo, env, "rev-parse", f"{snapshot}:sub").strip() == sub_head
    after = state(repo, env, ["sub"])
    assert after["status"] == "?? top.txt\n" and after["sub"] == before["sub"]
    assert after["worktrees"] == before["worktrees"]
    fsck_clean(repo, env, ["sub"])
    # delete removes the idle scratch worktree, its submodules too (git's `worktree remove`
    # refuses a worktree with submodules: teddy removes it as git would).
    teddy.ok(repo, "delete", "--force", session)
    assert scratch_paths(repo, env) == [] and not scratch.exists()
    assert state(repo, env, ["sub"]) == after
    fsck_clean(repo, env, ["sub"])


def test_nested_submodules_are_populated(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    inner = library(tmp_path / "inner", env, {"inner.txt": "inner\n"})
    lib = library(tmp_path / "lib", env, {"lib.txt": "lib\n"})
    add_submodule(lib, env, inner, "inner")
    add_submodule(repo, env, lib)
    assert (repo / "sub" / "inner" / "inner.txt").read_text() == "inner\n"
    before = state(repo, env, ["sub", "sub/inner"])
    session = start(repo, teddy, execute("cat sub/lib.txt sub/inner/inner.txt"))
    teddy.ok(repo, "execute", "-y")
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert report["action_logs"][0]["details"]["stdout"] == "lib\ninner\n"
    assert state(repo, env, ["sub", "sub/inner"]) == before
    fsck_clean(repo, env, ["sub", "sub/inner"])


def test_an_uninitialised_submodule_stays_empty_and_execute_works(
    superproject: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, env, "clone", "-q", str(superproject), str(clone))  # no --recurse-submodules
    assert list((clone / "sub").iterdir()) == []
    before = state(clone, env, [])
    session = start(clone, teddy, execute("ls -A sub | wc -l"), create("top.txt", "top\n"))
    result = teddy.ok(clone, "execute", "-y")
    report = report_of(clone, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert report["action_logs"][0]["details"]["stdout"].strip() == "0"
    assert "note:" not in result.stdout + result.stderr  # as git: nothing to say
    assert (clone / "top.txt").read_text() == "top\n"
    assert list((clone / "sub").iterdir()) == []
    after = state(clone, env, [])
    assert after["index"] == before["index"] and after["worktrees"] == before["worktrees"]
    fsck_clean(clone, env, [])


def test_a_submodule_whose_commit_is_gone_is_left_empty_with_a_note(
    superproject: Path, teddy: Teddy, env: dict
) -> None:
    repo, sub = superproject, superproject / "sub"
    (sub / "new.txt").write_text("new\n")
    git(sub, env, "add", ".")
    git(sub, env, "commit", "-qm", "new")
    gone = git(sub, env, "rev-parse", "HEAD").strip()
    session = start(repo, teddy, execute("ls -A sub | wc -l"))  # the base records `gone`
    # The user's submodule goes back and forgets that commit before the plan runs.
    git(sub, env, "reset", "-q", "--hard", "HEAD~1")
    git(sub, env, "reflog", "expire", "--expire=now", "--all")
    git(sub, env, "gc", "-q", "--prune=now")
    assert run(["git", "cat-file", "-e", gone], sub, env).returncode != 0
    before = state(repo, env, ["sub"])
    result = teddy.ok(repo, "execute", "-y")
    assert f"note: submodule sub is left empty: its commit {gone[:12]}" in result.stdout
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert report["action_logs"][0]["details"]["stdout"].strip() == "0"
    assert report["run_summary"]["notes"][0].startswith("submodule sub is left empty")
    assert state(repo, env, ["sub"]) == before
    fsck_clean(repo, env, ["sub"])


@pytest.mark.parametrize(
    "action",
    [create("sub/x.txt", "x\n"), edit("sub/lib.txt", "lib", "changed"), create("sub", "x\n")],
    ids=["create-inside", "edit-inside", "create-over"],
)
def test_a_plan_writing_inside_a_submodule_is_refused_before_anything_is_written(
    superproject: Path, teddy: Teddy, env: dict, action: str
) -> None:
    repo = superproject
    (repo / "README.md").write_text("# edited by hand\n")  # the user's own change stays
    before = state(repo, env, ["sub"])
    session = teddy.ok(repo, "new", "work").stdout.strip()
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create("top.txt", "top\n"), action))
    refused = teddy(repo, "plan", "-m", "write", "--from-file", str(plan_file))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "error:" in refused.stderr and "submodule sub" in refused.stderr
    assert "hint:" in refused.stderr and "submodule's own repository" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert state(repo, env, ["sub"]) == before
    assert not (repo / "top.txt").exists() and not (repo / "sub" / "x.txt").exists()
    assert (repo / "README.md").read_text() == "# edited by hand\n"

    next_turn(repo, teddy, execute("cat sub/lib.txt"), create("top.txt", "top\n"))  # not stuck
    teddy.ok(repo, "execute", "-y")
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert report["action_logs"][0]["details"]["stdout"] == "lib\n"
    assert (repo / "top.txt").read_text() == "top\n"
    fsck_clean(repo, env, ["sub"])


def replace_plan(repo: Path, env: dict, session: str, text: str) -> None:
    """The pending turn's plan.md replaced by `text` in the session's history, as a plan
    recorded by an older git-teddy, which did not refuse writes inside submodules."""
    branch = f"refs/heads/teddy/{session}/main"
    index = {**env, "GIT_INDEX_FILE": str(repo.parent / "forge-index")}
    blob = run(["git", "hash-object", "-w", "--stdin"], repo, env, input=text, check=True)
    run(["git", "read-tree", branch], repo, index, check=True)
    info = f"100644,{blob.stdout.strip()},01/plan.md"
    run(["git", "update-index", "--cacheinfo", info], repo, index, check=True)
    tree = run(["git", "write-tree"], repo, index, check=True).stdout.strip()
    message = git(repo, env, "log", "-1", "--format=%B", branch)
    parent = git(repo, env, "rev-parse", f"{branch}~1").strip()
    forged = run(["git", "commit-tree", tree, "-p", parent], repo, env, input=message, check=True)
    git(repo, env, "update-ref", branch, forged.stdout.strip())


def test_execute_refuses_a_recorded_plan_writing_inside_a_submodule(
    superproject: Path, teddy: Teddy, env: dict
) -> None:
    repo = superproject
    session = start(repo, teddy, create("top.txt", "top\n"))
    replace_plan(repo, env, session, plan_text(create("top.txt", "top\n"), create("sub/x", "x\n")))
    before = state(repo, env, ["sub"])
    refused = teddy(repo, "execute", "-y")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "error: the plan of turn 01 writes inside a submodule" in refused.stderr
    assert "CREATE sub/x: is inside submodule sub" in refused.stderr
    assert "hint: plan it again without those writes: `git teddy branch 01" in refused.stderr
    assert "[1/" not in refused.stdout  # nothing ran
    assert state(repo, env, ["sub"]) == before and not (repo / "top.txt").exists()
    assert scratch_paths(repo, env) == []  # not even a scratch worktree

    teddy.ok(repo, "branch", "01", "-m", "again", "--from-file", str(repo.parent / "plan.md"))
    teddy.ok(repo, "execute", "-y")  # the session goes on
    assert (repo / "top.txt").read_text() == "top\n"
    fsck_clean(repo, env, ["sub"])


def test_a_model_writing_inside_a_submodule_is_asked_again(
    superproject: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    repo = superproject
    replay(
        env,
        tmp_path / "replies",
        plan_text(create("sub/x.txt", "x\n")),
        plan_text(create("x.txt", "x\n")),
    )
    session = teddy.ok(repo, "new", "work").stdout.strip()
    planned = teddy.ok(repo, "plan", "-m", "write x")
    assert "2 attempt(s)" in planned.stdout + planned.stderr
    problems = git(repo, env, "show", f"teddy/{session}/main:01/attempts/01.problems.txt")
    assert "CREATE sub/x.txt: is inside submodule sub" in problems
    teddy.ok(repo, "execute", "-y")
    assert (repo / "x.txt").read_text() == "x\n"
    fsck_clean(repo, env, ["sub"])


def test_changes_a_command_makes_inside_a_submodule_are_named_not_kept(
    superproject: Path, teddy: Teddy, env: dict
) -> None:
    repo = superproject
    before = state(repo, env, ["sub"])
    session = start(
        repo,
        teddy,
        execute("echo changed > sub/lib.txt && git -C sub commit -qam changed"),
        create("top.txt", "top\n"),
    )
    result = teddy.ok(repo, "execute", "-y")
    assert "note: changes inside submodule sub are not part of the result" in result.stdout
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert report["run_summary"]["notes"] == [
        "changes inside submodule sub are not part of the result "
        "(run git teddy in the submodule's own repository to change it)"
    ]
    snapshot, base = report["run_summary"]["snapshot"], report["run_summary"]["base_snapshot"]
    assert git(repo, env, "rev-parse", f"{snapshot}:sub") == git(
        repo, env, "rev-parse", f"{base}:sub"
    )
    assert (repo / "sub" / "lib.txt").read_text() == "lib\n"
    after = state(repo, env, ["sub"])
    assert after["sub"] == before["sub"]  # the commit made in the scratch copy is not the user's
    assert after["status"] == "?? top.txt\n"
    fsck_clean(repo, env, ["sub"])


def test_untracked_nested_repositories_snapshot_and_execute(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    nested = library(repo / "nested", env, {"n.txt": "nested\n"})  # cloned inside, untracked
    (repo / "empty").mkdir()
    git(repo / "empty", env, "init", "-q")  # no commit yet: git add cannot record it
    before = state(repo, env, ["nested"])
    session = start(repo, teddy, execute("cat nested/n.txt"), create("top.txt", "top\n"))
    teddy.ok(repo, "execute", "-y")
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert report["action_logs"][0]["details"]["stdout"] == "nested\n"
    base = report["run_summary"]["base_snapshot"]
    head = git(nested, env, "rev-parse", "HEAD")
    assert git(repo, env, "rev-parse", f"{base}:nested") == head  # recorded, not descended
    assert run(["git", "rev-parse", f"{base}:empty"], repo, env).returncode != 0  # left out
    assert (repo / "top.txt").read_text() == "top\n"
    after = state(repo, env, ["nested"])
    assert after["nested"] == before["nested"] and after["index"] == before["index"]
    assert after["worktrees"] == before["worktrees"]
    # A later turn snapshots them again; its command makes one more without a commit.
    next_turn(repo, teddy, execute("git init -q made"), create("second.txt", "2\n"))
    teddy.ok(repo, "execute", "-y")
    assert report_of(repo, env, session, "02")["run_summary"]["status"] == "SUCCESS"
    assert (repo / "second.txt").read_text() == "2\n"
    assert not (repo / "made").exists()  # an empty repository is not part of a result
    fsck_clean(repo, env, ["nested"])
