"""Repositories for tests: pytest-git's `git_repo` made inside the sealed environment, and
repositories with committed files (the sealed env's fixed author and date keep their hashes
stable)."""

import os
from pathlib import Path

import pytest

from testing.commands import git


def sealed_git_repo(request: pytest.FixtureRequest, tmp_path: Path, env: dict[str, str]) -> Path:
    """pytest-git's `git_repo` (an empty repository), made under `env` inside `tmp_path`.

    pytest-git takes no environment: it runs `git init` through GitPython with the test
    process's own environment, in a new folder under $WORKSPACE (else the system's temporary
    folder), and deletes the folder after the test. So while it runs, the process environment
    is exactly `env`: the user's and system's git config (init.defaultBranch,
    init.templateDir, init.defaultObjectFormat) cannot reach the repository. WORKSPACE puts
    the repository in tmp_path, beside the test's other files (`repo.parent` is tmp_path);
    and the folder is kept, like the rest of tmp_path, for looking at a failure.
    """
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            patch.delenv(name)
        for name, value in {**env, "WORKSPACE": str(tmp_path)}.items():
            patch.setenv(name, value)
        workspace = request.getfixturevalue("git_repo")
    workspace.delete = False
    return Path(workspace.workspace)


def commit_files(repo: Path, env: dict[str, str], files: dict[str, str]) -> None:
    """Write `files` (path: text) in `repo` and commit everything as "initial"."""
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "initial")


def make_repo(path: Path, env: dict[str, str], files: dict[str, str]) -> Path:
    """A new repository at `path` with one commit of `files`, for fixtures wider than one
    test (pytest-git's `git_repo` lives for one test only)."""
    path.mkdir()
    git(path, env, "init", "-q")
    commit_files(path, env, files)
    return path


def bare_remote(tmp_path: Path, repo: Path, env: dict[str, str]) -> Path:
    """A bare repository `remote.git` beside `repo`, its remote `origin`, holding `main`."""
    bare = tmp_path / "remote.git"
    git(tmp_path, env, "init", "-q", "--bare", str(bare))
    git(repo, env, "remote", "add", "origin", str(bare))
    git(repo, env, "push", "-q", "origin", "main")
    return bare


def refs(repo: Path, env: dict[str, str], *patterns: str) -> dict[str, str]:
    """Full ref name -> id of the refs `git for-each-ref PATTERNS` lists."""
    lines = git(repo, env, "for-each-ref", "--format=%(refname) %(objectname)", *patterns)
    return dict(line.split() for line in lines.splitlines())
