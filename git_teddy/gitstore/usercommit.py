"""Commits on the user's own branch that git-teddy makes for them (teddy.autoCommit) and
takes back (`undo`). Made by `git commit` itself, as the user would: their hooks run (no
--no-verify) and it is signed when their config signs.

Only the turn's paths are committed (`git commit --only -- PATHS`: their working-tree
content), whatever else the user has staged; their other staged changes stay staged."""

import os

from git_teddy.errors import TeddyError
from git_teddy.gitstore import runner
from git_teddy.gitstore.repo import GitRepo

LITERAL = "--literal-pathspecs"  # a path is a path: no glob or pathspec magic


def _tracked(repo: GitRepo, paths: list[str]) -> set[str]:
    listed = runner.output([LITERAL, "ls-files", "-z", "--", *paths], repo.toplevel)
    return set(filter(None, listed.split("\0")))


def commit_paths(repo: GitRepo, paths: list[str], message: str) -> str:
    """Commit the working-tree content of `paths` alone on the current branch: the new
    commit's id. A TeddyError with git's words when git refuses (a hook said no): then the
    index is as it was and nothing is committed."""
    tracked = _tracked(repo, paths)
    new = [p for p in paths if p not in tracked and os.path.lexists(repo.toplevel / p)]
    gone = {p for p in paths if p not in tracked and p not in new}  # never tracked, now absent
    wanted = [p for p in paths if p not in gone]
    if not wanted:
        raise TeddyError("nothing to commit", "the turn's files are as HEAD has them")
    if new:
        runner.output([LITERAL, "add", "--", *new], repo.toplevel)
    args = [LITERAL, "commit", "-q", "--only", "-F", "-", "--", *wanted]
    proc = runner.run(args, repo.toplevel, input=message)
    if proc.returncode != 0:
        if new:
            runner.output([LITERAL, "reset", "-q", "--", *new], repo.toplevel)
        said = (proc.stderr or proc.stdout).strip()
        raise TeddyError(
            f"git commit refused the turn's result: {said}",
            "the result is applied, uncommitted: commit it yourself once git accepts it",
        )
    head = repo.head_commit()
    assert head is not None
    return head


def is_pushed(repo: GitRepo, commit: str) -> bool:
    """Whether a remote-tracking branch holds `commit` (it has been pushed or fetched)."""
    args = ["for-each-ref", "--contains", commit, "--format=%(refname)", "refs/remotes/"]
    return bool(runner.output(args, repo.toplevel).strip())


def uncommit(repo: GitRepo, commit: str, paths: list[str]) -> None:
    """Take back `commit`, HEAD, made by commit_paths: the branch goes back to its parent
    and the index entries of `paths` to the parent's (the files are the caller's)."""
    parent = repo.read_commit(commit).parents[0]
    runner.output(["update-ref", "-m", "teddy: undo", "HEAD", parent, commit], repo.toplevel)
    runner.output([LITERAL, "reset", "-q", "--", *paths], repo.toplevel)
