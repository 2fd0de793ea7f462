"""`git teddy add` and `git teddy drop`: the user's edits to a session's context (a session
commit changing `session.context`) or, with `--global`, to `.teddy/global.context` in the
working tree (the team commits it).

Entries are paths and globs from the top of the working tree (a path typed in a
subdirectory is taken from there, as git does), http(s) URLs, or `session:<turn>/<file>`.
Everything is checked before anything is written: a path or glob that names no file, a
file that looks like a secret, an entry to drop that the context does not have.
"""

import fnmatch
import shlex
from dataclasses import dataclass
from pathlib import Path

from git_teddy.artifacts.context_list import (
    GLOBAL_CONTEXT,
    add_entry,
    drop_entry,
    exclusions,
    inclusions,
    is_session_ref,
    matches,
    rewrite,
)
from git_teddy.artifacts.folder import SESSION_CONTEXT
from git_teddy.errors import TeddyError
from git_teddy.gitstore import snapshot_worktree
from git_teddy.gitstore.secret_files import has_secret_content, has_secret_name
from git_teddy.planning.context import GLOB_CHARS, is_url, parse_context
from git_teddy.planning.turn import next_turn_entries
from git_teddy.session.claims import claim_session
from git_teddy.session.turns import current_snapshot
from git_teddy.session.workspace import Workspace
from git_teddy.settings import SECRET_FILES


@dataclass(frozen=True)
class Edited:
    """What an edit changed: where, and the entries added or dropped."""

    where: str  # `session.context of <session>` or the global context file's path
    entries: list[str]
    commit: str | None  # the session commit, None for --global


def _normalized(ws: Workspace, item: str) -> str:
    if is_url(item) or is_session_ref(item):
        return item
    relative = item.startswith("/")  # `/path` names it from the top, as in a context file
    prefix = "" if relative else ws.repo.show_prefix()
    return (prefix + item.lstrip("/")).removeprefix("./").rstrip("/") or "."


def _secret_refusal(path: str) -> TeddyError:
    return TeddyError(
        f"{path} looks like a file of secrets: its content would be sent to the model",
        "name the files the model needs instead, or take it out of `teddy.secretFiles` "
        "if it holds none",
    )


def _check_addable(ws: Workspace, entry: str, files: list[str]) -> None:
    """A path or glob must name files of the working tree, none of them secret-looking."""
    if is_url(entry) or is_session_ref(entry):
        return
    globs = ws.settings.paths(SECRET_FILES)  # the command's settings, read once
    top = Path(ws.repo.toplevel)
    if has_secret_name(entry, globs) or has_secret_content(top / entry):
        raise _secret_refusal(entry)  # before matching: snapshots leave such files out
    folder = f"{entry}/"
    named = (
        fnmatch.filter(files, entry)
        if GLOB_CHARS & set(entry)
        else [f for f in files if f == entry or f.startswith(folder)]
    )
    if not named:
        raise TeddyError(
            f"{entry} matches no file in the working tree",
            "name files from where you are (or from the top with a leading `/`) and quote "
            "globs so that the shell leaves them to git teddy; `git ls-files` lists them",
        )
    if not GLOB_CHARS & set(entry) and entry not in named:
        raise TeddyError(
            f"{entry} is a folder",
            f"add its files with a glob: `git teddy add {shlex.quote(entry + '/*')}`",
        )
    for path in named:
        if has_secret_name(path, globs) or has_secret_content(top / path):
            raise _secret_refusal(path)


def _worktree_files(ws: Workspace, session: str) -> list[str]:
    branch = ws.store.current_branch(session)
    parent = current_snapshot(ws.store, session, branch)
    tree = ws.repo.read_commit(snapshot_worktree(ws.repo, "teddy: context edit", parent)).tree
    return ws.repo.list_files(tree)


def _global_path(ws: Workspace) -> Path:
    return Path(ws.repo.toplevel) / GLOBAL_CONTEXT


def _read_global(ws: Workspace) -> str:
    path = _global_path(ws)
    return path.read_text("utf-8") if path.is_file() else ""


def _write_global(ws: Workspace, text: str) -> None:
    path = _global_path(ws)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(text, "utf-8")
    partial.replace(path)  # whole or not at all


def _commit_session_context(
    ws: Workspace, session: str, before: str, after: list[str], subject: str
) -> str:
    store = ws.store
    branch = store.current_branch(session)
    trailers = {"Teddy-Session": session, "Teddy-Phase": "context"}
    files = {SESSION_CONTEXT: rewrite(before, after).encode()}
    return store.commit_files(session, branch, files, subject, trailers)


def _session_text(ws: Workspace, session: str) -> str:
    tip = ws.store.branches(session)[ws.store.current_branch(session)]
    return ws.store.read_session_file(tip, SESSION_CONTEXT) or ""


def add_context(ws: Workspace, session: str, items: list[str], to_global: bool) -> Edited:
    """Add `items` to the session's context (or the global one), refusing before writing."""
    entries = list(dict.fromkeys(_normalized(ws, item) for item in items))
    files = _worktree_files(ws, session)
    for entry in entries:
        _check_addable(ws, entry, files)
    # the user added them: approved for the session (url_approval; not for other sessions)
    ws.repo.layout.approve_urls(session, [e for e in entries if is_url(e)])
    if to_global:
        text = _read_global(ws)
        after = parse_context(text)
        for entry in entries:
            after = after if entry in after else [*after, entry]
        _write_global(ws, rewrite(text, after))
        return Edited(GLOBAL_CONTEXT, entries, None)
    with claim_session(ws.store, session, "add"):
        text = _session_text(ws, session)
        after = parse_context(text)
        for entry in entries:
            after = add_entry(after, entry)
        subject = f"teddy: add {', '.join(entries)} to the session context"
        commit = _commit_session_context(ws, session, text, after, subject)
    return Edited(f"{SESSION_CONTEXT} of {session}", entries, commit)


def _not_in_context(entry: str, where: str) -> TeddyError:
    return TeddyError(
        f"{entry} is not in {where}",
        "see what it has with `git teddy context` (and `.teddy/global.context`); drop an "
        "entry as it is listed there",
    )


def drop_context(ws: Workspace, session: str, items: list[str], from_global: bool) -> Edited:
    """Drop `items` from the session's context (excluded for the session when the global
    context or the turn's list gives them) or from the global context file."""
    entries = list(dict.fromkeys(_normalized(ws, item) for item in items))
    if from_global:
        text = _read_global(ws)
        after = parse_context(text)
        for entry in entries:
            if entry not in after:
                raise _not_in_context(entry, GLOBAL_CONTEXT)
        _write_global(ws, rewrite(text, [e for e in after if e not in entries]))
        return Edited(GLOBAL_CONTEXT, entries, None)
    with claim_session(ws.store, session, "drop"):
        text = _session_text(ws, session)
        after = parse_context(text)
        global_entries = parse_context(_read_global(ws))
        turn_entries = next_turn_entries(ws, session, ws.store.current_branch(session))
        for entry in entries:
            given = [*global_entries, *turn_entries]
            listed = [*given, *inclusions(after)]
            if matches(entry, exclusions(after)) or not matches(entry, listed):
                raise _not_in_context(entry, f"the context of session {session}")
            kept = [e for e in after if e != entry]
            after = drop_entry(after, entry, matches(entry, [*given, *inclusions(kept)]))
        subject = f"teddy: drop {', '.join(entries)} from the session context"
        commit = _commit_session_context(ws, session, text, after, subject)
    return Edited(f"{SESSION_CONTEXT} of {session}", entries, commit)
