"""Session ids and turn names (pure).

Turn names are unique within a session and say where a turn sits:
- `01`, `02`, ... are turns of the main conversation line (branch `main`);
- `02-branch-01` is the first turn of conversation branch `02-branch-01`, an alternative to
  turn `02` (branches are numbered per turn depth);
- `02-branch-01.03` is a later turn (depth 3) on that branch.
"""

import re

from git_teddy.errors import TeddyError

# typing.TYPE_CHECKING without importing typing (nor datetime): the fast paths (the cached
# context, the hooks) load this module
TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import date

MAIN_BRANCH = "main"
SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
TURN_RE = re.compile(r"(?P<depth>\d{2,})(?:-branch-(?P<number>\d{2,})(?:\.(?P<later>\d{2,}))?)?")
MAX_SLUG = 60


def validate_slug(name: str) -> str:
    if not SLUG_RE.fullmatch(name) or len(name) > MAX_SLUG:
        suggestion = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:MAX_SLUG] or "my-session"
        raise TeddyError(
            f"invalid session name {name!r}: use kebab-case (lower-case letters, digits and "
            f"single dashes, at most {MAX_SLUG} characters)",
            f"try `git teddy new {suggestion}`",
        )
    return name


def new_session_id(day: "date", slug: str, taken: set[str]) -> str:
    """`YYYYMMDD-<slug>`, with `-2`, `-3`, ... appended when the id is already taken."""
    base = f"{day:%Y%m%d}-{validate_slug(slug)}"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def is_turn_name(name: str) -> bool:
    return TURN_RE.fullmatch(name) is not None


def turn_depth(name: str) -> int:
    match = TURN_RE.fullmatch(name)
    if not match:
        raise ValueError(f"not a turn name: {name}")
    return int(match["later"] or match["depth"])


def branch_of_turn(name: str) -> str:
    """The conversation branch a turn was made on."""
    match = TURN_RE.fullmatch(name)
    if not match:
        raise ValueError(f"not a turn name: {name}")
    if match["number"] is None:
        return MAIN_BRANCH
    return f"{match['depth']}-branch-{match['number']}"


def next_turn_name(branch: str, depth: int, branch_has_turns: bool) -> str:
    """The name of the turn at `depth` on `branch` (`branch_has_turns`: already started)."""
    if branch == MAIN_BRANCH:
        return f"{depth:02d}"
    return f"{branch}.{depth:02d}" if branch_has_turns else branch


def new_branch_name(depth: int, taken: set[str]) -> str:
    """`NN-branch-KK` with the smallest KK not yet used at that depth."""
    number = 1
    while f"{depth:02d}-branch-{number:02d}" in taken:
        number += 1
    return f"{depth:02d}-branch-{number:02d}"


def subagent_session_id(parent: str, turn: str, agent: str) -> str:
    """`<parent>.<turn>-<agent>`: the session id of the subagent log whose first turn is
    `turn`, planned by `agent` (its name, without a version)."""
    return f"{parent}.{turn}-{agent}"
