"""Opening a repository for a command: where it is, its settings, its session store."""

from dataclasses import dataclass
from pathlib import Path

from git_teddy.gitstore import GitRepo
from git_teddy.session.logfiles import LogWriter
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
    sign = settings.choice(SIGN)
    repo.sign_commits = sign == "always" or (sign == "auto" and repo.git_says_sign())
    store = SessionStore(repo, settings.ref_prefix, LogWriter(repo, settings.choice(SUBAGENT_MODE)))
    return Workspace(repo, settings, store)


def open_settings(cwd: Path | None = None) -> Settings:
    """The settings of the repository at `cwd`, not checked: `git teddy config` lists a bad
    value beside the good ones."""
    return repo_settings(GitRepo.discover(cwd))


def repo_settings(repo: GitRepo) -> Settings:
    """The teddy.* settings of `repo` and the environment, not checked yet."""
    return Settings.from_env(repo.config("teddy"))
