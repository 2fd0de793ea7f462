"""Dynamic code fencing (spec 004, section 2.1): make every fence of a plan unambiguous.

Models nest code blocks with fences of equal length, which CommonMark closes too early. The
sanitizer finds where each block was meant to end and lengthens its fences so that they are
strictly longer than any run of the fence character inside. Content lines are never changed.

Where a block ends is read the way CommonMark reads it unless that reading is suspicious:
the content holds a run of the fence character as long as the fence, the block is never
closed, or, where the format says what comes next (Rationale, Memos, CREATE, EDIT, ...), the
block is followed by something else. Then the structure the format guarantees decides:
nested openers with an info string are matched with their closers, and the block ends at
the first closing fence followed by a section heading, an action heading, a `FIND:` or
`REPLACE:` marker, or the end of the plan.

With the fences settled, the path links of metadata lines whose meaning is clear are
written as root-relative links (links.py); `Sanitized.repairs` says which, for the user.
"""

import re
from dataclasses import dataclass
from enum import Enum

from git_teddy.artifacts.plan.bounds import Deadline
from git_teddy.artifacts.plan.links import repair_line
from git_teddy.artifacts.plan.models import ACTION_TYPES, normalize_action_name

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_SECTION = re.compile(r"^ {0,3}##[ \t]+(rationale|memos|action[ \t]+plan)[ \t:#]*$", re.IGNORECASE)
_HEADING3 = re.compile(r"^ {0,3}###[ \t]+(?:\d+[.)][ \t]*)?(.*?)[ \t#]*$")
_TITLE = re.compile(r"^ {0,3}#(?:[ \t]|$)")
_MARKER_NOISE = re.compile(r"[`*_\s]")


@dataclass(frozen=True)
class Fence:
    indent: str
    char: str
    length: int
    info: str


class Context(Enum):
    """What the plan's format expects after a code block in the current part of the plan."""

    FREE = "free"  # prose may follow (header, CHAT_WITH_USER, INVOKE, CONCLUDE)
    STRICT = "strict"  # only structure may follow (sections, most actions)
    RESEARCH = "research"  # structure or the next query's fence


@dataclass(frozen=True)
class Sanitized:
    text: str
    origin: list[int]  # 1-based line in the input for each output line
    unclosed: int | None = None  # the line (of `text`) of a fence left open to the end
    repairs: tuple[tuple[int, str], ...] = ()  # (line of the input, what) of links.py


def parse_fence(line: str) -> Fence | None:
    match = _FENCE.match(line)
    if match is None:
        return None
    indent, run, rest = match.groups()
    if run[0] == "`" and "`" in rest:
        return None  # CommonMark: a backtick fence's info string has no backtick
    return Fence(indent, run[0], len(run), rest.strip())


def is_marker(line: str) -> str | None:
    """`FIND:` / `**REPLACE:**` / `find:` ... -> "FIND" or "REPLACE"."""
    if ":" not in line:
        return None  # the quick answer for almost every line (sanitizing stays fast)
    bare = _MARKER_NOISE.sub("", line).upper()
    return bare[:-1] if bare in ("FIND:", "REPLACE:") else None


def action_heading(line: str) -> str | None:
    """The raw name of a `### ` heading, or None for other lines."""
    match = _HEADING3.match(line)
    return match.group(1) if match else None


def longest_run(text: str, char: str) -> int:
    runs = re.findall(re.escape(char) + "+", text)
    return max(map(len, runs), default=0)


def fence_for(content: str, char: str = "`") -> str:
    """The shortest fence that is longer than any run of `char` in `content` (at least 3)."""
    return char * max(3, longest_run(content, char) + 1)


def split_lines(text: str) -> list[str]:
    """Split on the line ends CommonMark knows (LF, CRLF, CR), and no others."""
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def sanitize(text: str) -> str:
    """The plan with unambiguous fences; idempotent; content lines are kept as they are."""
    return sanitize_with_origin(text).text


_RECENT: dict[str, Sanitized] = {}  # the last few results: a reply is sanitized once, when
_KEPT = 4  # checked, and the turn records that text without sanitizing it again


def sanitize_with_origin(text: str, deadline: Deadline | None = None) -> Sanitized:
    """`sanitize`, and where each line came from; raises bounds.TooSlow past `deadline`."""
    known = _RECENT.get(text)
    if known is None:
        known = _sanitize(text, deadline)
        _RECENT[text] = known
        while len(_RECENT) > _KEPT:
            del _RECENT[next(iter(_RECENT))]
    return known


def _sanitize(text: str, deadline: Deadline | None) -> Sanitized:
    lines = split_lines(text)
    origin = list(range(1, len(lines) + 1))
    # Fixing fences can reveal a title that was inside a broken block before: drop what
    # precedes the title again until it comes first. And a run can add closing fences (for
    # blocks the author left open) that an earlier block, read again, would take for its own
    # end: run again until nothing changes, so that sanitizing is idempotent. A correctly
    # fenced plan takes one run; a few rounds at most otherwise (bounded anyway).
    for _ in range(16):
        start, wrapper = _find_title(lines)
        if start:
            lines, origin = lines[start:], origin[start:]
            if wrapper is not None:
                lines, origin = _drop_closing_wrapper(lines, origin, wrapper)
        fixer = _Fixer(lines, deadline)
        fixed, kept = fixer.run()
        changed = fixed != lines
        lines, origin = fixed, [origin[i] for i in kept]
        if not changed and not _find_title(lines)[0]:
            break
    repairs = _repair_links(lines)
    return Sanitized(
        "\n".join(lines),
        origin,
        fixer.unclosed,
        tuple((origin[index], what) for index, what in repairs),
    )


def _repair_links(lines: list[str]) -> list[tuple[int, str]]:
    """Rewrite, in place, the path metadata lines outside code blocks that links.py repairs;
    (index, what was changed) for each. The fences are unambiguous by now."""
    repairs = []
    open_fence: Fence | None = None
    action: str | None = None
    for index, line in enumerate(lines):
        fence = parse_fence(line)
        if open_fence is not None:
            open_fence = None if _can_close(fence, open_fence) else open_fence
            continue
        if fence is not None:
            open_fence = fence
            continue
        if line.lstrip().startswith("#"):
            name = action_heading(line)
            action = normalize_action_name(name) if name is not None else None
            continue
        fixed = repair_line(line, action) if action is not None else None
        if fixed is not None:
            lines[index], what = fixed
            repairs.append((index, what))
    return repairs


def _find_title(lines: list[str]) -> tuple[int, Fence | None]:
    """Where the `#` title starts, and the fence wrapping the whole plan, if any.

    Models often write prose before the plan, or wrap the plan in a ```markdown fence.
    """
    open_fence: Fence | None = None
    opened_at = 0
    for index, line in enumerate(lines):
        fence = parse_fence(line)
        if open_fence is None:
            if _TITLE.match(line):
                return index, None
            if fence is not None:
                open_fence, opened_at = fence, index
        elif _TITLE.match(line) and _wraps_plan(lines, opened_at, index, open_fence):
            return index, open_fence
        elif _can_close(fence, open_fence):
            open_fence = None
    return 0, None


def _wraps_plan(lines: list[str], opened_at: int, title: int, fence: Fence) -> bool:
    """A fence wraps the plan if it is a Markdown fence right before the title, and the
    plan's sections come before anything that could close it."""
    if fence.info.lower() not in ("", "md", "markdown") or any(
        line.strip() for line in lines[opened_at + 1 : title]
    ):
        return False
    for line in lines[title + 1 :]:
        if _SECTION.match(line):
            return True
        if _can_close(parse_fence(line), fence):
            return False
    return False


def _drop_closing_wrapper(
    lines: list[str], origin: list[int], wrapper: Fence
) -> tuple[list[str], list[int]]:
    """Drop the wrapper's closing fence (the last one that can close it) and what follows."""
    for index in range(len(lines) - 1, -1, -1):
        if _can_close(parse_fence(lines[index]), wrapper):
            return [*lines[:index], ""], origin[: index + 1]  # keep the final line end
    return lines, origin


def _can_close(other: Fence | None, fence: Fence) -> bool:
    """Whether `other` closes `fence` in CommonMark."""
    return (
        other is not None
        and not other.info
        and other.char == fence.char
        and other.length >= fence.length
    )


def _lengthened(opener: str, fence: Fence, content: list[str]) -> tuple[str, str]:
    """Opening and closing fences longer than any run of the fence character in `content`."""
    length = max(longest_run("\n".join(content), fence.char) + 1, fence.length)
    info = opener[len(fence.indent) :].lstrip(fence.char)
    return f"{fence.indent}{fence.char * length}{info}", f"{fence.indent}{fence.char * length}"


def _glued_to_text(out: list[str]) -> bool:
    """Whether the last line written is text (not blank, not a fence) a line would join."""
    return bool(out) and bool(out[-1].strip()) and parse_fence(out[-1]) is None


def _context_after(line: str) -> Context | None:
    """The new context if `line` starts a part of the plan, else None."""
    if "#" not in line:
        return None  # sections and actions are headings
    if _SECTION.match(line):
        return Context.STRICT
    name = action_heading(line)
    if name is None:
        return None
    action = normalize_action_name(name)
    if action == "RESEARCH":
        return Context.RESEARCH
    if action in ("CHAT_WITH_USER", "INVOKE", "CONCLUDE") or action not in ACTION_TYPES:
        return Context.FREE
    return Context.STRICT


class _Fixer:
    """One pass over the lines: find each block's real end and rewrite its fences."""

    def __init__(self, lines: list[str], deadline: Deadline | None) -> None:
        self.lines = lines
        self.deadline = deadline
        self.unclosed: int | None = None  # 1-based output line of a block open to the end
        self.fences = [parse_fence(line) for line in lines]
        self.boundary = [self._is_boundary(line) for line in lines]
        self.next_nonblank = self._next_nonblank()
        self.context = Context.FREE

    def _is_boundary(self, line: str) -> bool:
        if "#" not in line and ":" not in line:
            return False  # neither a heading nor a marker
        if _SECTION.match(line) or is_marker(line):
            return True
        name = action_heading(line)
        if name is None:
            return False
        return name.startswith("`") or normalize_action_name(name) in ACTION_TYPES

    def _next_nonblank(self) -> list[int]:
        result = [len(self.lines)] * (len(self.lines) + 1)
        following = len(self.lines)
        for index in range(len(self.lines) - 1, -1, -1):
            result[index] = following
            if self.lines[index].strip():
                following = index
        return result

    def run(self) -> tuple[list[str], list[int]]:
        out: list[str] = []
        origin: list[int] = []
        index = 0
        while index < len(self.lines):
            fence = self.fences[index]
            if fence is None:
                self.context = _context_after(self.lines[index]) or self.context
                if is_marker(self.lines[index]) and _glued_to_text(out):
                    out.append("")  # else CommonMark reads the marker as part of a list item
                    origin.append(index)
                out.append(self.lines[index])
                origin.append(index)
                index += 1
                continue
            index = self._emit_block(index, fence, out, origin)
        return out, origin

    def _emit_block(self, start: int, fence: Fence, out: list[str], origin: list[int]) -> int:
        if self.deadline is not None:
            self.deadline.check(start + 1)  # finding a block's end may scan to the end
        close, stop = self._find_close(start, fence)
        if close is None and stop == len(self.lines):
            return self._emit_open_to_end(start, fence, out, origin)
        end = close if close is not None else stop
        while close is None and end > start + 1 and not self.lines[end - 1].strip():
            end -= 1  # a block closed for its author ends at its last non-blank line
        content = self.lines[start + 1 : end]
        opener, closer = self.lines[start], self.lines[close] if close is not None else ""
        if close is None or longest_run("\n".join(content), fence.char) >= fence.length:
            opener, closer = _lengthened(self.lines[start], fence, content)
        out.extend([opener, *content, closer])
        origin.extend([start, *range(start + 1, end), close if close is not None else end - 1])
        return close + 1 if close is not None else end

    def _emit_open_to_end(self, start: int, fence: Fence, out: list[str], origin: list[int]) -> int:
        """A block never closed runs to the end, as in CommonMark; no closing fence is added
        (one would be a candidate end for blocks before it on the next run)."""
        content = self.lines[start + 1 :]
        if not any(line.strip() for line in content):
            return len(self.lines)  # a lone opening fence at the end: a stray, e.g. of a wrapper
        self.unclosed = len(out) + 1
        out.extend([_lengthened(self.lines[start], fence, content)[0], *content])
        origin.extend(range(start, len(self.lines)))
        return len(self.lines)

    def _find_close(self, start: int, fence: Fence) -> tuple[int | None, int]:
        """(closing line or None, line where the search stopped)."""
        first = self._commonmark_close(start, fence)
        if first is not None and self._reading_is_sound(start, first, fence):
            return first, first + 1
        return self._recover_close(start, fence, first)

    def _commonmark_close(self, start: int, fence: Fence) -> int | None:
        for index in range(start + 1, len(self.lines)):
            if _can_close(self.fences[index], fence):
                return index
        return None

    def _reading_is_sound(self, start: int, close: int, fence: Fence) -> bool:
        content = "\n".join(self.lines[start + 1 : close])
        return longest_run(content, fence.char) < fence.length and self._followed_well(close)

    def _followed_well(self, close: int) -> bool:
        if self.context is Context.FREE:
            return True
        following = self.next_nonblank[close]
        if following >= len(self.lines) or self.boundary[following]:
            return True
        return self.context is Context.RESEARCH and self.fences[following] is not None

    def _recover_close(self, start: int, fence: Fence, first: int | None) -> tuple[int | None, int]:
        depth = 0
        last_bare: int | None = None
        stop = len(self.lines)
        first_boundary: int | None = None
        for index in range(start + 1, len(self.lines)):
            if first_boundary is None and self.boundary[index]:
                first_boundary = index
            other = self.fences[index]
            if other is not None and other.char == fence.char and other.length >= fence.length:
                if other.info:
                    depth += 1  # an inner opener as long as ours: a nested block
                elif depth:
                    depth -= 1
                    last_bare = index
                else:
                    last_bare = index
                    if self._followed_well(index):
                        return index, index + 1
                continue
            if depth == 0 and self.boundary[index]:
                stop = index
                break
        if first is not None and first < stop:
            content = "\n".join(self.lines[start + 1 : first])
            if longest_run(content, fence.char) < fence.length:
                return first, first + 1  # clean content: keep CommonMark's reading
        if first_boundary is not None and (
            last_bare is None or (first_boundary < last_bare and not self._followed_well(last_bare))
        ):
            # Never closed: the author forgot the closing fence. A closing fence that nothing
            # vouches for (not followed well) is only a guess, and a guess must not swallow a
            # boundary: once the block is lengthened, its inner fences no longer count as
            # nested openers, so the next run would end it at that boundary.
            return None, first_boundary
        return last_bare, stop
