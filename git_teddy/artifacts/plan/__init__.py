"""The plan format (spec 004): sanitize, parse, validate and render plans. Pure: no I/O.

sanitize(text) -> str                  dynamic code fencing, run before every parse
parse_plan(text) -> Plan               raises PlanError(problems) on an invalid plan
check_plan(text) -> (Plan | None, [Problem])
read_plan(text) -> Checked             the same, with notes: repairs and parts left out
render_plan(plan) -> str               Markdown that parses back to the same plan
plan_to_json(plan) -> dict             the shape of `git teddy validate --json`
format_problems(problems) -> str       for printing, or re-prompting a model
"""

import sys
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from git_teddy.artifacts.plan.fences import sanitize
    from git_teddy.artifacts.plan.parse import Checked, check_plan, parse_plan, read_plan
    from git_teddy.artifacts.plan.render import render_plan
    from git_teddy.artifacts.plan.validate import PlanError, Problem, format_problems

# The reading and writing halves load on first use (PEP 562): `from
# git_teddy.artifacts.plan.models import Plan` is then all a module needing the models pays
# at start-up, not the parser's patterns and commonmark.
_HOMES = {
    "sanitize": "fences",
    "check_plan": "parse",
    "read_plan": "parse",
    "Checked": "parse",
    "parse_plan": "parse",
    "render_plan": "render",
    "PlanError": "validate",
    "Problem": "validate",
    "format_problems": "validate",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = f"{__name__}.{_HOMES[name]}"
    __import__(module)  # not importlib.import_module, which `python -X importtime` misses
    return getattr(sys.modules[module], name)


def plan_to_json(plan: Plan) -> dict[str, Any]:
    return plan.model_dump(mode="json")


def problems_to_json(problems: "list[Problem]") -> dict[str, Any]:
    return {"errors": [problem.as_dict() for problem in problems]}


__all__ = [
    "ACTION_TYPES",
    "Action",
    "ChatWithUser",
    "Checked",
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
    "read_plan",
    "render_plan",
    "sanitize",
]
