"""Plans that would write inside a submodule: refused, since a superproject snapshot holds a
submodule's commit and not its files, so the change would be lost without a word."""

from collections.abc import Collection

from git_teddy.artifacts.paths import submodule_holding
from git_teddy.artifacts.plan.models import Create, EditFile, Plan
from git_teddy.artifacts.plan.validate import Problem

SUBMODULE_HINT = (
    "a submodule is its own repository: leave its files out of this plan (reading them and "
    "running commands is fine), and run git teddy in the submodule's own repository to change it"
)


def written_paths(plan: Plan) -> list[str]:
    """The paths the plan's CREATE and EDIT actions write."""
    return [a.path for a in plan.actions if isinstance(a, Create | EditFile)]


def submodule_problems(plan: Plan, gitlinks: Collection[str]) -> list[Problem]:
    """A problem for each CREATE or EDIT of a path that is, or lies inside, one of the
    `gitlinks` (the submodule paths of the plan's base)."""
    problems = []
    for action in plan.actions:
        if not isinstance(action, Create | EditFile):
            continue
        submodule = submodule_holding(action.path, gitlinks)
        if submodule is not None:
            verb = "CREATE" if isinstance(action, Create) else "EDIT"
            where = "is the submodule" if submodule == action.path else "is inside submodule"
            message = f"{verb} {action.path}: {where} {submodule}; its changes would be lost"
            problems.append(Problem(action.line, message, SUBMODULE_HINT))
    return problems
