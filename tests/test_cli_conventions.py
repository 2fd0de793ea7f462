"""What users expect of a git subcommand: help, version, exit codes, settings, and every way
git can be pointed at a repository (`git -C`, GIT_DIR/GIT_WORK_TREE, linked worktrees)."""

import json
from pathlib import Path

from git_teddy import __version__
from testing.commands import Teddy, git, run


def test_help_and_version(repo: Path, teddy: Teddy) -> None:
    top = teddy.ok(repo, "-h").stdout
    assert "Usage: git teddy" in top
    for command in ("new", "list", "show", "log", "validate", "preprocess"):
        assert f"  {command}" in top
    assert "Usage: git teddy new [OPTIONS] NAME" in teddy.ok(repo, "new", "-h").stdout
    assert teddy.ok(repo, "--version").stdout.strip() == f"git-teddy {__version__}"


def test_usage_errors_exit_2(repo: Path, teddy: Teddy) -> None:
    for args in (["frobnicate"], ["new"], ["list", "--bogus"]):
        result = teddy(repo, *args)
        assert result.returncode == 2, args
        assert "Usage:" in result.stderr and "Traceback" not in result.stderr


def test_git_dash_c(tmp_path: Path, repo: Path, teddy: Teddy, env: dict) -> None:
    result = run(["git", "-C", str(repo), "teddy", "new", "elsewhere"], tmp_path, env, check=True)
    assert result.stdout.strip() == "20261126-elsewhere"
    assert "teddy/20261126-elsewhere/main" in git(repo, env, "branch", "--list", "teddy/*")


def test_git_dir_and_work_tree(tmp_path: Path, repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / "app.py").write_text("changed\n")
    env = {**env, "GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo)}
    teddy_env = Teddy(env)
    teddy_env.ok(tmp_path, "new", "separate")
    base = json.loads(teddy_env.ok(tmp_path, "list", "--json").stdout)[0]["base_snapshot"]
    assert git(tmp_path, env, "show", f"{base}:app.py") == "changed\n"


def test_linked_worktree_shares_sessions(
    tmp_path: Path, repo: Path, teddy: Teddy, env: dict
) -> None:
    linked = tmp_path / "linked"
    git(repo, env, "worktree", "add", "-q", "-b", "feature", str(linked))
    (linked / "feature.txt").write_text("only in the linked worktree\n")
    index_before = (repo / ".git" / "worktrees" / "linked" / "index").read_bytes()
    session = teddy.ok(linked, "new", "from-linked").stdout.strip()
    assert (repo / ".git" / "worktrees" / "linked" / "index").read_bytes() == index_before
    listed = json.loads(teddy.ok(repo, "list", "--json").stdout)
    assert [s["id"] for s in listed] == [session]
    base = listed[0]["base_snapshot"]
    assert git(repo, env, "show", f"{base}:feature.txt") == "only in the linked worktree\n"
    taken_on = git(repo, env, "log", "-1", "--format=%(trailers:key=Teddy-Head,valueonly)", base)
    assert taken_on.strip() == git(linked, env, "rev-parse", "HEAD").strip()  # the linked one's


def test_ref_prefix_from_config_and_environment(repo: Path, teddy: Teddy, env: dict) -> None:
    git(repo, env, "config", "teddy.refPrefix", "ai/")
    session = teddy.ok(repo, "new", "configured").stdout.strip()
    assert git(repo, env, "branch", "--list", "ai/*").split() == [f"ai/{session}/main"]
    assert git(repo, env, "for-each-ref", "--format=%(refname)", "refs/ai/keep/").strip()
    env["TEDDY_REF_PREFIX"] = "robots"
    session = teddy.ok(repo, "new", "overridden").stdout.strip()
    assert git(repo, env, "branch", "--list", "robots/*").split() == [f"robots/{session}/main"]
    assert [s["id"] for s in json.loads(teddy.ok(repo, "list", "--json").stdout)] == [session]


def test_bad_setting_is_a_clear_error(repo: Path, teddy: Teddy, env: dict) -> None:
    git(repo, env, "config", "teddy.refPrefix", "bad..prefix")
    result = teddy(repo, "list")
    assert result.returncode == 1
    assert result.stderr.startswith("error: teddy.refPrefix must be usable in a ref name")
    assert "not 'bad..prefix'" in result.stderr
    assert "hint: " in result.stderr
