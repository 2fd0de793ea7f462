"""Opening a repository for a command: where it is, its settings, its session store."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from git_teddy.errors import NotARepositoryError
from git_teddy.gitstore import GitRepo, plumbing
from git_teddy.session.store import SessionStore
from git_teddy.settings import SIGN, SUBAGENT_MODE, Settings


@dataclass(frozen=True)
class Workspace:
    repo: GitRepo
    settings: Settings
    store: SessionStore


def open_workspace(cwd: Path | None = None) -> Workspace:
    """The repository at `cwd`. Every setting is checked here, so a bad value stops a command
    before it acts on anything."""
    repo = GitRepo.discover(cwd)
    settings = Settings.verified(repo.teddy_config())
    repo.settings = settings  # read once: gitstore's own uses (snapshots' secretFiles) too
    sign = settings.choice(SIGN)
    repo.sign_commits = sign == "always" or (sign == "auto" and repo.git_says_sign())
    store = SessionStore(repo, settings.ref_prefix, _LogStep(repo, settings.choice(SUBAGENT_MODE)))
    return Workspace(repo, settings, store)


if TYPE_CHECKING:
    from git_teddy.session.logfiles import LogWriter


class _LogStep:
    """The session log step, its module imported at the first session commit: commands that
    only read (`export`, `show`, `diff`) do not load the plan parser it needs."""

    def __init__(self, repo: GitRepo, mode_setting: str | None) -> None:
        self.repo, self.mode_setting = repo, mode_setting
        self.writer: LogWriter | None = None

    def __call__(self, tree: str, updates: Mapping[str, Any]) -> dict[str, bytes]:
        if self.writer is None:
            from git_teddy.session.logfiles import LogWriter

            self.writer = LogWriter(self.repo, self.mode_setting)
        return self.writer(tree, updates)


def open_settings(cwd: Path | None = None) -> Settings:
    """The settings of the repository at `cwd`, not checked: `git teddy config` lists a bad
    value beside the good ones. Outside a repository, the global and system ones (as
    `git config -l` lists them there)."""
    try:
        return repo_settings(GitRepo.discover(cwd))
    except NotARepositoryError:
        return Settings.from_env(plumbing.read_config(cwd, "teddy"))


def repo_settings(repo: GitRepo) -> Settings:
    """The teddy.* settings of `repo` and the environment, not checked yet."""
    return Settings.from_env(repo.config("teddy"))
