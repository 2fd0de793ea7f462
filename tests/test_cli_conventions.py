"""What users expect of a git subcommand: help, version, exit codes, settings, and every way
git can be pointed at a repository (`git -C`, GIT_DIR/GIT_WORK_TREE, linked worktrees)."""

import json
from pathlib import Path

import pytest

from git_teddy import __version__
from testing.commands import Teddy, git, run
from testing.plans import create
from testing.sessions import start

GIT_BASH_COMPLETION = Path("/usr/share/bash-completion/completions/git")


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
        assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
    assert teddy(repo, "list", "--bogus").stderr == (
        "error: no such option '--bogus'\n"
        "hint: usage: git teddy list [OPTIONS]\n"
        "hint: `git teddy list -h` describes every option\n"
    )
    assert teddy(repo, "frobnicate").stderr.endswith("hint: `git teddy -h` lists the commands\n")


def test_help_command(repo: Path, teddy: Teddy) -> None:
    assert teddy.ok(repo, "help").stdout == teddy.ok(repo, "-h").stdout
    assert teddy.ok(repo, "help", "execute").stdout == teddy.ok(repo, "execute", "-h").stdout
    refused = teddy(repo, "help", "frobnicate")
    assert refused.returncode == 1
    assert refused.stderr == (
        "error: there is no command 'frobnicate'\nhint: `git teddy help` lists them\n"
    )


def test_quiet_after_the_subcommand_quiets_execute(repo: Path, teddy: Teddy) -> None:
    start(repo, teddy, create("b.txt", "b\n"))
    quiet = teddy.ok(repo, "execute", "-y", "-q")
    assert "[1/1] CREATE" not in quiet.stdout and "ok: created" not in quiet.stdout
    assert "turn 01: SUCCESS" in quiet.stdout  # the result still shows
    assert (repo / "b.txt").read_text() == "b\n"


def test_config_outside_a_repository(tmp_path: Path, teddy: Teddy, env: dict) -> None:
    outside = tmp_path / "not-a-repository"
    outside.mkdir()
    git(outside, env, "config", "--global", "teddy.model", "gpt-4.1")
    listed = json.loads(teddy.ok(outside, "config", "--json").stdout)["settings"]
    model = next(entry for entry in listed if entry["key"] == "teddy.model")
    assert model["value"] == "gpt-4.1"
    assert teddy(outside, "list").returncode == 1  # what needs a repository still says so


COMPLETE = """
eval "$(git teddy completion bash)"
COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
%s
printf '%%s\\n' "${COMPREPLY[@]}"
"""


def bash_completes(repo: Path, env: dict, words: str, call: str, prelude: str = "") -> set[str]:
    script = prelude + COMPLETE % (words, call)
    return set(run(["bash", "-c", script], repo, env, check=True).stdout.split())


def test_completion_in_a_real_bash(repo: Path, env: dict) -> None:
    assert bash_completes(repo, env, "git-teddy ex", "_git_teddy_completion git-teddy") == {
        "execute",
        "export",
    }
    assert "--yes" in bash_completes(
        repo, env, "git-teddy execute --", "_git_teddy_completion git-teddy"
    )
    assert bash_completes(repo, env, "git teddy ex", "_git_teddy") == {"execute", "export"}


@pytest.mark.skipif(not GIT_BASH_COMPLETION.exists(), reason="git's bash completion is absent")
def test_git_completion_hands_teddy_over(repo: Path, env: dict) -> None:
    prelude = f"source {GIT_BASH_COMPLETION}\n"
    words = bash_completes(repo, env, "git teddy ex", "__git_wrap__git_main", prelude)
    assert words == {"execute", "export"}


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
