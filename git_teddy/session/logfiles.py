"""Regenerating `session.md` (and the subagents' own logs) from a session branch's tree:
the I/O edge of the session log. The store is given `log_writer(...)` and calls it on every
session commit; it never builds or renders a log itself."""

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import yaml
from pydantic import ValidationError

from git_teddy.artifacts import frontmatter
from git_teddy.artifacts.folder import (
    ATTEMPTS_DIR,
    PLAN,
    REPORT,
    SESSION_FILE_LIMIT,
    SESSION_LOG,
    SUBAGENTS_DIR,
    SYSTEM_PROMPT,
    TURN_RECORD,
    USER_PROMPT,
)
from git_teddy.artifacts.names import is_turn_name, turn_depth
from git_teddy.artifacts.sessionlog.build import TurnFiles, agent_version, build_log
from git_teddy.artifacts.sessionlog.model import SessionMeta, SubagentMode
from git_teddy.artifacts.sessionlog.render import render_log
from git_teddy.artifacts.turn_record import read_record
from git_teddy.artifacts.yamlio import Unreadable
from git_teddy.gitstore import GitRepo
from git_teddy.gitstore.changes import CutBlob
from git_teddy.session.logcache import TurnCache
from git_teddy.settings import SUBAGENT_MODE

if TYPE_CHECKING:
    from git_teddy.artifacts.plan.models import Plan
    from git_teddy.artifacts.report import ExecutionReport

# What the log keeps from its previous version (the rest is derived from the turns).
KEPT_FIELDS = ("session_id", "started", "ended", "status", "channel", "resume_point")


def subagent_mode(value: str | None) -> SubagentMode:
    """`teddy.subagentMode` as the log builder takes it (None: the default); the settings
    registry checked the value when the workspace opened."""
    return cast(SubagentMode, value or SUBAGENT_MODE.default)


class LogWriter:
    """The session log step of every session commit: the files derived from a branch's new
    tree (`session.md`, `subagents/<id>.md`). `updates` set frontmatter fields (status,
    resume_point, ended; session_id, started and channel for a new session)."""

    def __init__(self, repo: GitRepo, mode_setting: str | None) -> None:
        self.repo = repo
        self.mode_setting = mode_setting  # teddy.subagentMode, checked when first needed
        self.cache = TurnCache(repo.layout)  # turn folders already read, by tree id

    def __call__(self, tree: str, updates: Mapping[str, Any]) -> dict[str, bytes]:
        mode = subagent_mode(self.mode_setting)
        return session_log_files(self.repo, tree, updates, mode, self.cache)


def session_log_files(
    repo: GitRepo,
    tree: str,
    updates: Mapping[str, Any],
    mode: SubagentMode,
    cache: TurnCache,
) -> dict[str, bytes]:
    """`session.md` and `subagents/<id>.md` for a branch whose tree is `tree`; `updates`
    override kept frontmatter fields (status, resume_point, ended). Turn folders found in
    `cache` are not read again: the work is that of the folders the commit changed."""
    previous = repo.read_file(tree, SESSION_LOG)
    try:
        old, _ = frontmatter.parse(previous.decode("utf-8", "replace") if previous else "")
    except Unreadable:  # aliases or too large: rebuilt from the turns, its fields dropped
        old = {}
    turns = read_turns(repo, tree, cache)
    built = build_log(_meta(old, updates, turns), turns, mode)
    files = {SESSION_LOG: render_log(built.log).encode()}
    for session_id, log in built.subagents.items():
        files[f"{SUBAGENTS_DIR}/{session_id}.md"] = render_log(log).encode()
    return files


def _meta(
    old: Mapping[str, Any], updates: Mapping[str, Any], turns: list[TurnFiles]
) -> SessionMeta:
    """The kept frontmatter fields with `updates`; a field damaged by hand is dropped (it
    takes its default), and the two the log cannot do without come from the turns."""
    fields = {key: old[key] for key in KEPT_FIELDS if old.get(key) is not None}
    fields.update(updates)
    for key, value in list(fields.items()):
        try:
            SessionMeta.model_validate({"session_id": "-", "started": "-", key: value})
        except ValidationError:
            del fields[key]
    first = turns[0].record if turns else None
    fields.setdefault("session_id", first.session if first else "unknown")
    fields.setdefault("started", first.planned_at if first else "unknown")
    return SessionMeta.model_validate(fields)


def read_turns(repo: GitRepo, tree: str, cache: TurnCache) -> list[TurnFiles]:
    folders = {name: id for name, id in repo.folder_ids(tree).items() if is_turn_name(name)}
    turns = [
        cache.turn(folders[name], partial(read_turn, repo, folders[name], name))
        for name in sorted(folders, key=turn_depth)
    ]
    return [turn for turn in turns if turn is not None]


def read_turn(repo: GitRepo, folder: str, name: str) -> TurnFiles | None:
    """The turn folder `name`, whose tree is `folder`; None when it is not one teddy wrote.
    Its files are read within SESSION_FILE_LIMIT (a larger one is left out, as damaged)."""
    attempts = [
        f"{ATTEMPTS_DIR}/{file}"
        for file in sorted(repo.list_dir(folder, ATTEMPTS_DIR))
        if file.endswith(".problems.txt")
    ]
    wanted = [TURN_RECORD, PLAN, REPORT, USER_PROMPT, SYSTEM_PROMPT, *attempts]
    files = repo.read_files_bounded(folder, wanted, SESSION_FILE_LIMIT)

    def text(path: str) -> str | None:
        data = files.get(path)
        if data is None or isinstance(data, CutBlob):
            return None
        return data.decode("utf-8", "replace")

    data = files.get(TURN_RECORD)
    try:
        record = read_record(None if isinstance(data, CutBlob) else data)
    except Unreadable:
        return None  # not a turn folder teddy wrote
    if record is None:
        return None
    problems = [text(path) or "" for path in attempts]
    return TurnFiles(
        name=name,
        record=record,
        plan=_plan(text(PLAN)),
        report=_report(text(REPORT)),
        user_prompt=text(USER_PROMPT),
        prompt_version=agent_version(text(SYSTEM_PROMPT)),  # all the log needs of it
        problems=problems,
    )


def _plan(text: str | None) -> "Plan | None":
    from git_teddy.artifacts.plan.parse import check_plan  # the parser: only for a turn's plan

    return check_plan(text)[0] if text else None


def _report(text: str | None) -> "ExecutionReport | None":
    if not text:
        return None
    from git_teddy.artifacts.report import parse_report  # only for a turn's report

    try:
        return parse_report(text)
    except (ValueError, yaml.YAMLError):
        return None  # a report edited by hand into something else: logged without actions
