"""Regenerating `session.md` (and the subagents' own logs) from a session branch's tree:
the I/O edge of the session log. The store calls `session_log_files` on every commit."""

from collections.abc import Mapping
from typing import Any, cast

import yaml

from git_teddy.artifacts import frontmatter
from git_teddy.artifacts.names import is_turn_name, turn_depth
from git_teddy.artifacts.plan.models import Plan
from git_teddy.artifacts.plan.parse import check_plan
from git_teddy.artifacts.report import ExecutionReport, parse_report
from git_teddy.artifacts.sessionlog.build import TurnFiles, build_log
from git_teddy.artifacts.sessionlog.model import SessionMeta, SubagentMode
from git_teddy.artifacts.sessionlog.render import render_log
from git_teddy.artifacts.yamlio import load_yaml
from git_teddy.gitstore import GitRepo
from git_teddy.settings import SUBAGENT_MODE

SESSION_LOG = "session.md"
SUBAGENTS_DIR = "subagents"
# What the log keeps from its previous version (the rest is derived from the turns).
KEPT_FIELDS = ("session_id", "started", "ended", "status", "channel", "resume_point")


def subagent_mode(value: str | None) -> SubagentMode:
    """`teddy.subagentMode` as the log builder takes it (None: the default); the settings
    registry checked the value when the workspace opened."""
    return cast(SubagentMode, value or SUBAGENT_MODE.default)


def session_log_files(
    repo: GitRepo, tree: str, updates: Mapping[str, Any], mode: SubagentMode
) -> dict[str, bytes]:
    """`session.md` and `subagents/<id>.md` for a branch whose tree is `tree`; `updates`
    override kept frontmatter fields (status, resume_point, ended)."""
    previous = repo.read_file(tree, SESSION_LOG)
    old, _ = frontmatter.parse(previous.decode("utf-8", "replace") if previous else "")
    kept = {key: old[key] for key in KEPT_FIELDS if old.get(key) is not None}
    meta = SessionMeta.model_validate({**kept, **updates})
    built = build_log(meta, read_turns(repo, tree), mode)
    files = {SESSION_LOG: render_log(built.log).encode()}
    for session_id, log in built.subagents.items():
        files[f"{SUBAGENTS_DIR}/{session_id}.md"] = render_log(log).encode()
    return files


def read_turns(repo: GitRepo, tree: str) -> list[TurnFiles]:
    names = [n for n, is_dir in repo.list_dir(tree).items() if is_dir and is_turn_name(n)]
    turns = [read_turn(repo, tree, name) for name in sorted(names, key=turn_depth)]
    return [turn for turn in turns if turn is not None]


def read_turn(repo: GitRepo, tree: str, name: str) -> TurnFiles | None:
    def text(path: str) -> str | None:
        data = repo.read_file(tree, f"{name}/{path}")
        return data.decode("utf-8", "replace") if data is not None else None

    record = load_yaml(text("turn.yaml") or "null")
    if not isinstance(record, dict):
        return None  # not a turn folder teddy wrote
    attempts = repo.list_dir(tree, f"{name}/attempts")
    problems = [
        text(f"attempts/{file}") or ""
        for file in sorted(attempts)
        if file.endswith(".problems.txt")
    ]
    return TurnFiles(
        name=name,
        record=record,
        plan=_plan(text("plan.md")),
        report=_report(text("report.md")),
        user_prompt=text("user_prompt.txt"),
        system_prompt=text("system_prompt.xml"),
        problems=problems,
    )


def _plan(text: str | None) -> Plan | None:
    return check_plan(text)[0] if text else None


def _report(text: str | None) -> ExecutionReport | None:
    if not text:
        return None
    try:
        return parse_report(text)
    except (ValueError, yaml.YAMLError):
        return None  # a report edited by hand into something else: logged without actions
