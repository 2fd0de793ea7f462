"""Expensive test state built once and copied for each test that changes it: a folder
holding a sealed HOME (`home/`) and repositories, copied whole (`shutil.copytree` costs a
few milliseconds where replaying a session through the executable costs seconds).

The copy's absolute paths are rewritten: in git's records of linked worktrees and in the
environment. Scratch worktrees (the HOME's cache) are left out: git's records of them in
the copy name folders that are not there, which the copy's first execute forgets.
"""

import shutil
from pathlib import Path


def copy_template(old: Path, new: Path, env: dict[str, str]) -> dict[str, str]:
    """Copy the folder `old` (its HOME and repositories) to `new` (empty or missing); returns
    `env` (the template's sealed environment) with the paths under `old` now under `new`."""
    shutil.copytree(old, new, symlinks=True, dirs_exist_ok=True)
    shutil.rmtree(new / "home" / ".cache" / "git-teddy", ignore_errors=True)
    for link in new.glob("*/.git/worktrees/*/gitdir"):
        link.write_text(link.read_text().replace(str(old), str(new)))
    return {name: value.replace(str(old), str(new)) for name, value in env.items()}
