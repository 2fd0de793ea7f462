"""Cheap questions about a repository for read-only queries such as `git teddy list`: where
its shared state is, its settings, and its refs, each in one git process, with no object
reads and no dulwich. A query over thousands of sessions then costs a few processes, not
one per session (see the git_teddy.index package)."""

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from git_teddy.errors import TeddyError


@dataclass(frozen=True)
class Location:
    cwd: Path
    common_dir: Path  # `git rev-parse --git-common-dir`: refs and derived state live here


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=os.environ, capture_output=True, text=True, check=False
    )


def locate(cwd: Path | None = None) -> Location:
    """The repository around `cwd` (`git -C`, GIT_DIR and linked worktrees honoured). Like
    every other command, it needs a working tree; without one GitRepo.discover says why."""
    cwd = cwd or Path.cwd()
    proc = _git(["rev-parse", "--git-common-dir", "--show-toplevel"], cwd)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != 2:
        from git_teddy.gitstore.repo import GitRepo  # only to word the error, once

        GitRepo.discover(cwd)
        raise AssertionError(f"git rev-parse failed in {cwd}: {proc.stderr.strip()}")
    return Location(cwd, (cwd / lines[0]).resolve())


def read_config(location: Location, section: str) -> dict[str, list[str]]:
    """All values of `<section>.*` keys, keys lower-cased (as GitRepo.config gives them)."""
    proc = _git(["config", "--get-regexp", f"^{section}\\."], location.cwd)
    values: dict[str, list[str]] = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        values.setdefault(key.lower(), []).append(value)
    return values


def list_refs(location: Location, *patterns: str) -> dict[str, str]:
    """Full ref name -> commit for refs under `patterns` (e.g. `refs/heads/teddy`), in one
    `git for-each-ref`, which reads loose and packed refs (and reftables) alike."""
    args = ["for-each-ref", "--format=%(objectname) %(refname)", *patterns]
    proc = _git(args, location.cwd)
    if proc.returncode != 0:
        raise TeddyError(
            f"git for-each-ref failed: {proc.stderr.strip()}",
            "run `git for-each-ref` yourself to see what git needs",
        )
    refs: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        sha, _, name = line.partition(" ")
        refs[name] = sha
    return refs
