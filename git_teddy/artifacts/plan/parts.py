"""READs of parts of files that the plan's snapshot does not have: a range past the end of
the file, a symbol it does not define (artifacts/read_parts.py reads the parts)."""

from collections.abc import Callable

from git_teddy.artifacts.plan.models import Plan, Read
from git_teddy.artifacts.plan.validate import Problem
from git_teddy.artifacts.read_parts import PartError, resolve, split_part


def part_problems(plan: Plan, read: Callable[[str], bytes | None]) -> list[Problem]:
    """A problem for each READ of a part its file in the snapshot lacks (`read`: a file of
    the snapshot, None when it has none; a file the plan creates is checked when READ)."""
    problems = []
    for action in plan.actions:
        if not isinstance(action, Read) or action.kind != "file":
            continue
        path, fragment = split_part(action.resource)
        data = read(path) if fragment is not None else None
        if data is None or fragment is None:
            continue
        try:
            resolve(path, data.decode("utf-8", "replace"), fragment)
        except PartError as error:
            problems.append(Problem(action.line, f"READ {action.resource}: {error}", error.hint))
    return problems
