"""Which of the user's commits took a turn's result: those whose `Teddy-Snapshot` trailer
(added by the prepare-commit-msg hook) names the result snapshot, found by one `git log` of
the user's branches and HEAD since a given time, never of teddy's own session branches."""

from collections.abc import Collection
from pathlib import Path

from git_teddy.gitstore import runner
from git_teddy.gitstore.changes import FIELD, RECORD

SNAPSHOT_TRAILER = "Teddy-Snapshot"


def commits_taking(
    snapshots: Collection[str], since: str, prefix: str, cwd: Path | None = None
) -> dict[str, list[str]]:
    """snapshot -> the user's commits (oldest first) whose trailers name it, among the
    commits made since `since` (an ISO time) on local branches outside `refs/heads/<prefix>`
    and on HEAD. {} when git cannot tell (an unborn HEAD and no branch)."""
    if not snapshots:
        return {}
    fmt = f"--format=%H{FIELD}%(trailers:key={SNAPSHOT_TRAILER},valueonly,separator=%x1f){RECORD}"
    # --exclude before --branches is matched against the name below refs/heads/ (git 2.39);
    # the full name too, for a git that matches that.
    excluded = [f"--exclude={prefix}*", f"--exclude=refs/heads/{prefix}*"]
    args = ["log", "--reverse", f"--since={since}", fmt, *excluded]
    proc = runner.run([*args, "--branches", "HEAD", "--"], cwd)
    if proc.returncode != 0:  # an unborn HEAD
        proc = runner.run([*args, "--branches", "--"], cwd)
    if proc.returncode != 0:
        return {}
    wanted = set(snapshots)
    found: dict[str, list[str]] = {}
    for record in proc.stdout.split(RECORD):
        commit, *values = record.strip().split(FIELD)
        for value in values:
            if value.strip() in wanted and commit not in found.get(value.strip(), []):
                found.setdefault(value.strip(), []).append(commit)
    return found
