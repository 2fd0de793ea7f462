"""The plan format (spec 004): sanitize, parse, validate and render plans. Pure: no I/O.

sanitize(text) -> str                  dynamic code fencing, run before every parse
parse_plan(text) -> Plan               raises PlanError(problems) on an invalid plan
check_plan(text) -> (Plan | None, [Problem])
render_plan(plan) -> str               Markdown that parses back to the same plan
plan_to_json(plan) -> dict             the shape of `git teddy validate --json`
format_problems(problems) -> str       for printing, or re-prompting a model
"""

from typing import Any

from git_teddy.artifacts.plan.fences import sanitize
from git_teddy.artifacts.plan.models import (
    ACTION_TYPES,
    Action,
    ChatWithUser,
    Conclude,
    Create,
    Edit,
    EditFile,
    Execute,
    Invoke,
    Memo,
    Plan,
    Prune,
    Read,
    Research,
)
from git_teddy.artifacts.plan.parse import check_plan, parse_plan
from git_teddy.artifacts.plan.render import render_plan
from git_teddy.artifacts.plan.validate import PlanError, Problem, format_problems


def plan_to_json(plan: Plan) -> dict[str, Any]:
    return plan.model_dump(mode="json")


def problems_to_json(problems: list[Problem]) -> dict[str, Any]:
    return {"errors": [problem.as_dict() for problem in problems]}


__all__ = [
    "ACTION_TYPES",
    "Action",
    "ChatWithUser",
    "Conclude",
    "Create",
    "Edit",
    "EditFile",
    "Execute",
    "Invoke",
    "Memo",
    "Plan",
    "PlanError",
    "Problem",
    "Prune",
    "Read",
    "Research",
    "check_plan",
    "format_problems",
    "parse_plan",
    "plan_to_json",
    "problems_to_json",
    "render_plan",
    "sanitize",
]
