"""Reading a plan in bounded time: a size limit, a nesting limit, a deadline, and a CommonMark
parser that stays linear where the `commonmark` package is not.

Model output reaches the parser unchecked, and the `commonmark` package is quadratic on some
inputs: block content is built by string concatenation (a 2 MB code block took 24 s), inline
parsing of unclosed links (`[a](` repeated 16 KB took over 20 s), and every line walks every
open container (a 1000-level list, 77 s). So a plan is refused, with a problem the model can
act on, when it is larger than `MAX_PLAN_CHARS` or nested deeper than `MAX_NESTING`; blocks
are accumulated in lists; inlines are parsed only for the few metadata lines whose links the
plan needs, each at most `MAX_INLINE_CHARS`; and whatever is left is cut off by a deadline
(`deadline_for`), checked per line and per block.
"""

import re
import time
from collections.abc import Iterable
from typing import Any

import commonmark

from git_teddy.artifacts.plan.validate import Problem

Node = Any  # commonmark.node.Node carries no type hints

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
# A line that may turn a paragraph into a setext heading (read by commonmark while the
# paragraph is open): only `=` or `-` after spaces and block-quote markers.
_SETEXT_LINE = re.compile(r"^[ \t>]*(?:=+|-+)[ \t]*$")


class TooSlow(Exception):
    """Reading the plan ran past its deadline; `line` is where it had got to."""

    def __init__(self, line: int) -> None:
        super().__init__(f"past the deadline at line {line}")
        self.line = line


class Deadline:
    """A point in time (monotonic clock) that reading a plan must not pass."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def check(self, line: int = 1) -> None:
        if time.monotonic() > self.at:
            raise TooSlow(line)


def deadline_for(text: str) -> float:
    """Seconds reading `text` may take: at most 30 s, for the largest plan allowed."""
    return PARSE_SECONDS + PARSE_SECONDS_PER_MB * len(text) / 1_000_000


def slow_problem(deadline: Deadline, line: int) -> Problem:
    return Problem(
        line,
        f"the plan could not be read within {deadline.seconds:g} s (stopped at line {line}): "
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


class BoundedParser(commonmark.Parser):  # type: ignore[misc]  # commonmark has no types
    """commonmark's parser, linear in the size of blocks, checking `deadline` on each line,
    and parsing inlines only when asked (`inline`)."""

    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self.deadline = deadline
        self.parts: dict[int, tuple[Node, list[str]]] = {}  # open blocks' lines, by id
        self.inlined: set[int] = set()

    def incorporate_line(self, ln: str) -> None:
        self.deadline.check(self.line_number)
        if self.parts and _SETEXT_LINE.match(ln):
            for node, _ in list(self.parts.values()):
                self._join(node)  # commonmark reads an open paragraph's text here
        super().incorporate_line(ln)

    def add_line(self) -> None:
        """As commonmark's, but into a list: `string_content +=` is quadratic."""
        node = self.tip
        _, parts = self.parts.setdefault(id(node), (node, []))
        if self.partially_consumed_tab:
            self.offset += 1  # skip the tab, add the spaces it stood for
            parts.append(" " * (4 - (self.column % 4)))
        parts.append(self.current_line[self.offset :] + "\n")

    def finalize(self, block: Node, line_number: int) -> None:
        self._join(block)
        super().finalize(block, line_number)

    def _join(self, node: Node) -> None:
        entry = self.parts.pop(id(node), None)
        if entry is not None:
            node.string_content = (node.string_content or "") + "".join(entry[1])

    def process_inlines(self, block: Node) -> None:
        """Nothing: a plan needs the inlines of a few metadata lines only (`inline`)."""

    def inline(self, node: Node) -> bool:
        """Parse the inlines of `node` (a paragraph or heading) and those inside it, once;
        False when one of them is longer than `MAX_INLINE_CHARS` (left unparsed)."""
        fits = True
        walker = node.walker()
        event = walker.nxt()
        todo = []
        while event is not None:
            child = event["node"]
            if event["entering"] and child.t in ("paragraph", "heading"):
                todo.append(child)
            event = walker.nxt()
        for child in todo:
            if id(child) in self.inlined:
                continue
            if len(child.string_content or "") > MAX_INLINE_CHARS:
                fits = False
                continue
            self.deadline.check(int(child.sourcepos[0][0]))
            self.inline_parser.refmap = self.refmap
            self.inline_parser.parse(child)
            self.inlined.add(id(child))
        return fits
