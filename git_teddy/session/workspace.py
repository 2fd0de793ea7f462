"""Opening a repository for a command: where it is, its settings, its session store."""

from dataclasses import dataclass
from pathlib import Path

from git_teddy.gitstore import GitRepo
from git_teddy.session.logfiles import LogWriter
from git_teddy.session.store import SessionStore
from git_teddy.settings import Settings


@dataclass(frozen=True)
class Workspace:
    repo: GitRepo
    settings: Settings
    store: SessionStore


def open_workspace(cwd: Path | None = None) -> Workspace:
    repo = GitRepo.discover(cwd)
    settings = Settings.from_env(repo.config("teddy"))
    log_step = LogWriter(repo, settings.get("teddy.subagentMode"))
    store = SessionStore(repo, settings.ref_prefix, log_step)
    return Workspace(repo, settings, store)
