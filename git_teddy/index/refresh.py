"""The query's entry point: the index brought up to date with the session refs, re-reading
only the sessions that changed, and saved when anything did."""

import contextlib
from dataclasses import dataclass
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore import permissions, plumbing
from git_teddy.gitstore.layout import Layout
from git_teddy.index.build import updated
from git_teddy.index.query import as_of
from git_teddy.index.read import read_current_branches, read_facts
from git_teddy.index.rows import SessionIndex
from git_teddy.index.stale import stale_sessions
from git_teddy.index.toonfile import load, save
from git_teddy.session.refnames import group_session_refs, session_ref_patterns
from git_teddy.settings import IDLE_TIMEOUT, Settings


@dataclass(frozen=True)
class Refreshed:
    index: SessionIndex
    reread: int  # sessions read from git by this refresh
    path: Path


def agents_readable(index: SessionIndex) -> bool:
    try:
        index.agents  # noqa: B018 (decoded now, so that a broken table means a rebuild)
    except ValueError:
        return False
    return True


def refresh(cwd: Path | None = None, rebuild: bool = False, need_agents: bool = False) -> Refreshed:
    """The index, brought up to date with the refs (or rebuilt from them). `need_agents`:
    the caller reads the agents table, so it is decoded here (and rebuilt if broken)."""
    location = plumbing.locate(cwd)
    # core.sharedRepository in the same git process: the index file gets git's modes.
    config, remotes = plumbing.read_config_and_remotes(
        location.cwd, "teddy", also=(permissions.KEY,)
    )
    shared = permissions.Shared.from_config(config)
    config.pop(permissions.KEY, None)
    settings = Settings.verified(config)
    prefix = settings.ref_prefix
    refs = plumbing.list_refs(location.cwd, *session_ref_patterns(prefix, remotes))
    sessions = group_session_refs(refs, prefix, remotes)
    layout = Layout(location.common_dir, shared)
    path = layout.index_file
    index = load(path, prefix)
    if rebuild or (need_agents and not agents_readable(index)):
        index = SessionIndex(prefix, index.generation)
    currents = read_current_branches(layout, sessions)
    changed, vanished = stale_sessions(index, sessions, currents)
    if (changed or vanished) and not agents_readable(index):
        index = SessionIndex(prefix, index.generation)  # an update rewrites every share
        changed, vanished = stale_sessions(index, sessions, currents)
    if rebuild or changed or vanished:
        facts = read_facts(location, {s: sessions[s] for s in changed}, currents)
        index = updated(index, facts, vanished)
        # A read-only repository, or a file where the folder should be, still gets its answer.
        with contextlib.suppress(OSError, TeddyError):
            save(path, index, shared)
    timeout = settings.duration(IDLE_TIMEOUT)
    if timeout and any(row.status == "active" for row in index.sessions.values()):
        index = as_of(index, plumbing.commit_time(location.cwd), timeout)
    return Refreshed(index, len(changed), path)
