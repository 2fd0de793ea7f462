"""Fault suite, bad values (issue 25, items 10 and 11): settings, options and project files
that once gave tracebacks or stopped every plan give an `error:` and a `hint:` (or are left
out with a note). The real executable in real repositories."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from git_teddy.artifacts.paths import entry_problem
from git_teddy.artifacts.symbols import file_symbols
from testing.commands import Result, Teddy, git, run
from testing.plans import create, plan_text
from testing.sessions import start

# Valid Python that ast cannot build: it nests deeper than the parser's recursion limit.
LONG_CHAIN = "x = " + "+".join(["1"] * 20_000) + "\n"


def refused(result: Result, *words: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "bug in git-teddy" not in result.stderr
    assert "error:" in result.stderr and "hint:" in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr


@pytest.mark.parametrize("prefix", ["foo.lock/", ".hidden/", "x/.lock/", "a./"])
def test_a_ref_prefix_git_would_refuse_is_refused_before_anything_is_written(
    repo: Path, teddy: Teddy, env: dict[str, str], prefix: str
) -> None:
    git(repo, env, "config", "teddy.refPrefix", prefix)
    refused(teddy(repo, "new", "work"), "teddy.refPrefix", "git config --unset-all")
    assert git(repo, env, "for-each-ref", "--format=%(refname)") == "refs/heads/main\n"


def test_a_ref_prefix_with_dots_inside_its_parts_works(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    git(repo, env, "config", "teddy.refPrefix", "team.ai/v2/")
    session = teddy.ok(repo, "new", "work").stdout.strip()
    assert f"refs/heads/team.ai/v2/{session}/main" in git(repo, env, "for-each-ref")


@pytest.mark.parametrize("channel", ["my channel", "two\nlines", "x" * 65])
def test_a_channel_that_would_break_the_session_log_is_refused(
    repo: Path, teddy: Teddy, env: dict[str, str], channel: str
) -> None:
    refused(teddy(repo, "new", "work", "--channel", channel), "channel", "--channel")
    git(repo, env, "config", "teddy.channel", channel.replace("\n", " "))
    refused(teddy(repo, "new", "work"), "teddy.channel")
    assert "teddy/" not in git(repo, env, "for-each-ref")


def test_a_file_ast_cannot_build_leaves_the_map_working(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    (repo / "chain.py").write_text(LONG_CHAIN)
    git(repo, env, "add", "chain.py")
    git(repo, env, "commit", "-qm", "a long expression")
    teddy.ok(repo, "new", "work")
    shown = teddy.ok(repo, "context").stdout
    assert "repository map" in shown


def test_an_entry_outside_the_repository_in_a_committed_context_is_left_out(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("../x\n/etc/passwd\napp.py\n")
    git(repo, env, "add", ".teddy")
    git(repo, env, "commit", "-qm", "a teammate's context")
    teddy.ok(repo, "new", "work")
    shown = teddy.ok(repo, "context").stdout
    assert "../x  (left out: ../x leads outside the repository)" in shown
    assert "etc/passwd  (missing: no such file in the project)" in shown  # from the top
    assert "app.py" in shown


def test_entry_problems_and_unparsable_python_pure() -> None:
    assert file_symbols("chain.py", LONG_CHAIN) == []
    assert entry_problem("src/app.py") is None
    assert entry_problem("a/../../x") == "a/../../x leads outside the repository"
    assert entry_problem("C:/Windows") is not None
    assert entry_problem("c:notes.txt") is None  # a legal file name on Linux
    assert entry_problem(".git/config") is not None


# ---- item 10: a folder teddy cannot write, a full disk --------------------------------------


def _run_privileged(*command: str) -> bool:
    """Run a command that needs root (chattr, mount); False when this machine refuses it."""
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


def test_an_unwritable_derived_state_folder_is_an_error_with_a_hint(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    teddy.ok(repo, "new", "work")
    state = repo / ".git" / "teddy"
    state.mkdir(exist_ok=True)
    if not _run_privileged("chattr", "+i", str(state)):  # immutable: refused even to root
        pytest.skip("chattr +i is not allowed here")
    try:
        (repo.parent / "plan.md").write_text(plan_text("### `CHAT_WITH_USER`\nNoted.\n"))
        result = teddy(repo, "plan", "-m", "hi", "--from-file", str(repo.parent / "plan.md"))
    finally:
        _run_privileged("chattr", "-i", str(state))
    refused(result, "could not write", "run the same command again")
    teddy.ok(repo, "plan", "-m", "hi", "--from-file", str(repo.parent / "plan.md"))


def test_a_full_disk_is_an_error_and_leaves_no_lock_behind(
    tmp_path: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    small = tmp_path / "small"
    small.mkdir()
    if not _run_privileged("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(small)):
        pytest.skip("mounting a small file system is not allowed here")
    try:
        repo = small / "repo"
        git(small, env, "init", "-q", "-b", "main", str(repo))
        (repo / "a.txt").write_text("a\n")
        git(repo, env, "add", "a.txt")
        git(repo, env, "commit", "-qm", "a")
        (repo / "big.bin").write_bytes(os.urandom(1_500_000))  # its snapshot fills the disk
        result = teddy(repo, "new", "work")
        refused(result, "the disk is full")
        assert "Exception ignored" not in result.stderr
        assert not list((repo / ".git").rglob("*.lock"))
        git(repo, env, "fsck", "--strict", "--no-dangling")
        assert git(repo, env, "for-each-ref", "--format=%(refname)") == "refs/heads/main\n"
    finally:
        subprocess.run(["umount", str(small)], check=False)


# ---- item 8: a snapshot holding paths git refuses ------------------------------------------


def _hostile_result(repo: Path, env: dict[str, str], session: str) -> None:
    """Turn 01's result replaced, as a teammate's rewritten session would have it: a changed
    a.txt beside `sub/.git/x` (which git never checks out)."""
    ref = f"refs/heads/teddy/{session}/main"
    report = git(repo, env, "rev-parse", ref).strip()
    message = git(repo, env, "log", "-1", "--format=%B", report)
    old = message.split("Teddy-Snapshot: ", 1)[1].split()[0]

    def mktree(listing: str) -> str:
        return run(["git", "mktree"], repo, env, input=listing, check=True).stdout.strip()

    blob = run(["git", "hash-object", "-w", "--stdin"], repo, env, input="evil\n").stdout.strip()
    hooks = mktree(f"100644 blob {blob}\tx\n")
    dotgit = mktree(f"040000 tree {hooks}\t.git\n")
    listing = git(repo, env, "ls-tree", old).replace("\ta.txt", "\told-a.txt")
    tree = mktree(listing + f"100644 blob {blob}\ta.txt\n040000 tree {dotgit}\tsub\n")
    snapshot = git(repo, env, "commit-tree", tree, "-m", "by hand").strip()
    parents = git(repo, env, "log", "-1", "--format=%P", report).split()
    rewritten = git(
        repo,
        env,
        "commit-tree",
        f"{report}^{{tree}}",
        *[arg for parent in parents for arg in ("-p", parent)],
        "-m",
        message.replace(old, snapshot),
    ).strip()
    git(repo, env, "update-ref", ref, rewritten, report)


def test_a_snapshot_with_paths_git_refuses_is_refused_before_anything_is_written(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    (repo / "a.txt").write_text("mine\n")
    git(repo, env, "add", "a.txt")
    git(repo, env, "commit", "-qm", "a")
    session = start(repo, teddy, create("b.txt", "b\n"))
    teddy.ok(repo, "execute", "-y")
    _hostile_result(repo, env, session)
    result = teddy(repo, "restore", "01", "--force")
    refused(result, "sub/.git/x points into .git", "nothing was changed")
    assert (repo / "a.txt").read_text() == "mine\n"  # not half-restored
    assert not (repo / "sub").exists() and not (repo / "old-a.txt").exists()


# ---- item 13: LFS configured, git-lfs not installed -----------------------------------------


def test_lfs_without_git_lfs_fails_the_turn_naming_it_and_the_session_goes_on(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    if shutil.which("git-lfs", path=env.get("PATH")):
        pytest.skip("git-lfs is installed here")
    (repo / ".gitattributes").write_text("*.bin filter=lfs diff=lfs merge=lfs -text\n")
    git(repo, env, "add", ".gitattributes")
    git(repo, env, "commit", "-qm", "lfs")
    for key, value in {
        "filter.lfs.required": "true",
        "filter.lfs.clean": "git-lfs clean -- %f",
        "filter.lfs.smudge": "git-lfs smudge -- %f",
        "filter.lfs.process": "git-lfs filter-process",
    }.items():
        git(repo, env, "config", key, value)
    start(repo, teddy, create("x.bin", "binary\n"))
    failed = teddy(repo, "execute", "-y")
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
    assert "git-lfs" in failed.stderr and "hint:" in failed.stderr
    assert not (repo / "x.bin").exists()  # nothing applied
    (repo.parent / "next.md").write_text(plan_text("### `CHAT_WITH_USER`\nNoted.\n"))
    teddy.ok(repo, "plan", "-m", "next", "--from-file", str(repo.parent / "next.md"))  # not stuck
