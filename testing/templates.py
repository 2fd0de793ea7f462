"""Expensive test state built once and copied for each test that changes it: a folder
holding a sealed HOME (`home/`) and repositories, copied whole (`shutil.copytree` costs a
few milliseconds where replaying a session through the executable costs seconds).

The copy's absolute paths are rewritten: in git's records of linked worktrees and in the
environment. Scratch worktrees (the HOME's cache) are left out: git's records of them in
the copy name folders that are not there, which the copy's first execute forgets.
"""

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from git_teddy.llm.replay import ReplayProvider
from testing.commands import Teddy
from testing.repos import make_repo
from testing.sealed import sealed_env


def copy_template(old: Path, new: Path, env: dict[str, str]) -> dict[str, str]:
    """Copy the folder `old` (its HOME and repositories) to `new` (empty or missing); returns
    `env` (the template's sealed environment) with the paths under `old` now under `new`."""
    shutil.copytree(old, new, symlinks=True, dirs_exist_ok=True)
    shutil.rmtree(new / "home" / ".cache" / "git-teddy", ignore_errors=True)
    for link in new.glob("*/.git/worktrees/*/gitdir"):
        link.write_text(link.read_text().replace(str(old), str(new)))
    return {name: value.replace(str(old), str(new)) for name, value in env.items()}


def clone_into(template_root: Path, template_repo: Path, root: Path, repo: Path) -> None:
    """Make a test's repository `repo` (in its folder `root`) a copy of `template_repo` (in
    `template_root`, laid out like a test's folder): its working tree and .git replaced, the
    template's other folders (the replay provider's replies...) copied beside it, not its
    HOME. The template's paths in the repository's files are rewritten, and the replay
    provider's position (kept under a hash of its folder's path) follows the folder."""
    for entry in repo.iterdir():
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    shutil.copytree(template_repo, repo, symlinks=True, dirs_exist_ok=True)
    for entry in template_root.iterdir():
        if entry.is_dir() and entry.name not in ("home", template_repo.name):
            shutil.copytree(entry, root / entry.name, symlinks=True, dirs_exist_ok=True)
    moves = [(str(template_repo), str(repo)), (str(template_root), str(root))]
    git_dir = repo / ".git"
    for path in git_dir.rglob("*"):
        if not path.is_file() or path.name == "index" or "objects" in path.parts:
            continue
        data = path.read_bytes()
        moved = data
        for old, new in moves:
            moved = moved.replace(old.encode(), new.encode())
        if moved != data:
            path.write_bytes(moved)
    for state in (git_dir / "teddy" / "replay").glob("*.json"):
        folder = Path(json.loads(state.read_text())["folder"])
        replay = ReplayProvider(folder=folder, state_dir=state.parent)
        state.rename(replay.state_file)


def play_template(root: Path, play: Callable[[Path, Teddy, Path], str]) -> tuple[Path, str]:
    """`play(repo, teddy, replies)` run once in `root` (made), laid out as a test's folder
    with the `repo` and `replies` fixtures' starting state: a sealed HOME, a repository with
    one commit of README.md and app.py, the replay provider reading `replies`. Returns the
    repository and what `play` returned (a session): clone_into copies them into a test's."""
    (root / "home").mkdir()
    env = sealed_env(root / "home")
    repo = make_repo(root / "repo", env, {"README.md": "# demo\n", "app.py": "print('hello')\n"})
    replies = root / "replies"
    replies.mkdir()
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(replies))
    return repo, play(repo, Teddy(env), replies)
