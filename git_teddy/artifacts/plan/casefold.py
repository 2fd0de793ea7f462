"""Plans that write one file under two names where git takes letter case as the same
(core.ignoreCase, as on macOS and Windows): `README.md` beside `readme.md`, `docs/` beside
`Docs/`. Refused before anything is written, as a plan problem (the model plans again):
git would fold them into one index entry, so the result could not be what the plan says."""

from collections.abc import Mapping

from git_teddy.artifacts.plan.models import Create, EditFile, Plan
from git_teddy.artifacts.plan.validate import Problem

CASE_HINT = (
    "core.ignoreCase is set: git takes names that differ only in letter case for one file; "
    "write each path as the repository spells it"
)


def _folders_and_self(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[: n + 1]) for n in range(len(parts))]


def case_problems(plan: Plan, spelled: Mapping[str, str]) -> list[Problem]:
    """A problem for each CREATE or EDIT whose path the base spells otherwise (`spelled`:
    path -> the base's spelling, GitRepo.spelled_as_in), or that names, in another case,
    a path or folder an earlier action of the plan named."""
    problems = []
    first: dict[str, str] = {}  # a path or folder, lower-cased -> as the plan first wrote it
    for action in plan.actions:
        if not isinstance(action, Create | EditFile):
            continue
        verb = "CREATE" if isinstance(action, Create) else "EDIT"
        if action.path in spelled:
            message = f"{verb} {action.path}: the repository spells it {spelled[action.path]}"
            problems.append(Problem(action.line, message, CASE_HINT))
            continue
        for name in _folders_and_self(action.path):
            known = first.setdefault(name.lower(), name)
            if known != name:
                message = f"{verb} {action.path}: {name} is {known}, as the plan wrote it before"
                problems.append(Problem(action.line, message, CASE_HINT))
                break
    return problems
