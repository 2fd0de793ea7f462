"""Reading a plan in bounded time: a size limit, a nesting limit, a deadline, and a CommonMark
parser that stays linear where the `commonmark` package is not.

Model output reaches the parser unchecked, and the `commonmark` package is quadratic on some
inputs: block content is built by string concatenation (a 2 MB code block took 24 s), inline
parsing of unclosed links (`[a](` repeated 16 KB took over 20 s), and every line walks every
open container (a 1000-level list, 77 s). So a plan is refused, with a problem the model can
act on, when it is larger than `MAX_PLAN_CHARS` or nested deeper than `MAX_NESTING`; blocks
are accumulated in lists; inlines are parsed only for the few metadata lines whose links the
plan needs, each at most `MAX_INLINE_CHARS`; and whatever is left is cut off by a deadline
(`deadline_for`), checked per line and per block. The parser itself is in
git_teddy.artifacts.plan.markdown, imported only when a plan is read: `commonmark` costs
start-up time that commands reading no plan should not pay.
"""

import re
import time
from collections.abc import Iterable

from git_teddy.artifacts.plan.validate import Problem

MAX_PLAN_CHARS = 2_000_000  # a generous reply: 8192 tokens are ~32 KB, 128k tokens ~500 KB
MAX_NESTING = 24  # lists and block quotes inside each other; plans use three or four
MAX_INLINE_CHARS = 2_000  # a metadata line whose links are read (a path, a URL, resources)
PARSE_SECONDS = 10.0  # the backstop (known pathologies are refused long before it), plus
PARSE_SECONDS_PER_MB = 10.0  # this much per MB: a valid 1 MB plan takes ~5 s on a busy machine

FORMAT_HINT = (
    "reply with the plan only, in the plan format: short metadata lines, lists at most a few "
    "levels deep, file contents inside fenced code blocks"
)

_LIST_MARKER = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t]|$)")
_TOP_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


class TooSlow(Exception):
    """Reading the plan ran past its deadline; `line` is where it had got to."""

    def __init__(self, line: int) -> None:
        super().__init__(f"past the deadline at line {line}")
        self.line = line


class Deadline:
    """How much processor time reading a plan may take. Counted on this thread's CPU clock, not
    the wall clock: whether a plan is pathological is a property of its text, so a loaded
    machine must not turn a good plan away."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.thread_time() + seconds

    def check(self, line: int = 1) -> None:
        if time.thread_time() > self.at:
            raise TooSlow(line)


def deadline_for(text: str) -> float:
    """Seconds reading `text` may take: at most 30 s, for the largest plan allowed."""
    return PARSE_SECONDS + PARSE_SECONDS_PER_MB * len(text) / 1_000_000


def slow_problem(deadline: Deadline, line: int) -> Problem:
    return Problem(
        line,
        f"the plan could not be read within {deadline.seconds:g} s of processor time "
        f"(stopped at line {line}): "
        "its Markdown is pathological",
        FORMAT_HINT + "; close every link and code span",
    )


def size_problem(text: str) -> Problem | None:
    if len(text) <= MAX_PLAN_CHARS:
        return None
    return Problem(
        1,
        f"the plan is {len(text):,} characters long, more than the {MAX_PLAN_CHARS:,} a plan "
        "may have",
        "make the plan smaller: fewer or smaller files per turn (create the rest in the next turn)",
    )


def nesting_problem(lines: Iterable[str]) -> Problem | None:
    """The first line nested deeper than `MAX_NESTING` lists and block quotes, outside fenced
    code blocks. An estimate that errs low (lazy continuation lines close nothing in
    CommonMark but close items here), computed in one pass before CommonMark runs."""
    columns: list[int] = []  # where the content of each open container starts
    fence: tuple[str, int] | None = None
    for number, line in enumerate(lines, start=1):
        match = _TOP_FENCE.match(line)
        if fence is not None:
            if match and match[1][0] == fence[0] and len(match[1]) >= fence[1] and not match[2]:
                fence = None
            continue
        if match and not (match[1][0] == "`" and "`" in match[2]):
            fence = (match[1][0], len(match[1]))
            continue
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        while columns and indent < columns[-1]:
            columns.pop()
        _open_markers(line, indent, columns)
        if len(columns) > MAX_NESTING:
            return Problem(
                number,
                f"lists or block quotes nested more than {MAX_NESTING} levels deep",
                FORMAT_HINT,
            )
    return None


def _open_markers(line: str, position: int, columns: list[int]) -> None:
    """Push the content column of each list marker or `>` that starts at `position`."""
    while len(columns) <= MAX_NESTING:
        if line.startswith(">", position):
            position += 1
        else:
            marker = _LIST_MARKER.match(line, position)
            if marker is None:
                return
            position = marker.end()
        spaces = len(line) - position - len(line[position:].lstrip(" \t"))
        position += spaces
        columns.append(position)
