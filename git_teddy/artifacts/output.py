"""A command's output as the report keeps it and failures quote it (pure): the head, the
first error and the tail of long output with the cuts marked, and the error lines picked
from it."""

import re
from collections.abc import Iterable, Sequence

HEAD_LINES = 100  # a pytest run's first failure is usually within its first hundred lines
TAIL_LINES = 100  # the summary a test runner or build tool ends with
ERROR_CONTEXT = (3, 3)  # lines kept before and after a first error that falls in the cut
SUMMARY_CHARS = 160  # the most of an error line a one-line summary quotes

# Lines that state an error: `NameError: ...` (pytest's `E   NameError: ...` too),
# `error: ...` (compilers, git), `error[E0308]:` (rustc), `fatal: ...`, and the lines test
# runners start a failure with (`FAILED tests/...`, `ERROR tests/...`).
_STATES_ERROR = re.compile(
    r"(?:^|\s)[\w.]*(?:Error|Exception)(?::|$)|\berror(?:\[\w+\])?:|\bfatal:|^(?:FAILED|ERROR)\b"
)
# pytest's mark on the lines of an error (`E       NameError: ...`): the error is the rest
_PYTEST_MARK = re.compile(r"^E\s+(?=\S)")
# Lines that mention one, when no line states one (`Traceback (most recent call last):`).
_MENTIONS_ERROR = re.compile(r"Error|Exception|Traceback|error:|FAILED|ERROR")


def clip_output(text: str, cap: int) -> str:
    """`text` kept within about `cap` bytes: its first and last lines, and its first error
    line with some context when that falls between them, each cut marked with a line
    `[... N lines cut ...]` (an overlong line is cut too, its cut marked on it)."""
    lines = text.splitlines(keepends=True)
    if len(text.encode()) <= cap and len(lines) <= HEAD_LINES + TAIL_LINES:
        return text
    kept: dict[int, str] = {}
    _keep(kept, lines, range(len(lines)), HEAD_LINES, cap // 4)
    _keep(kept, lines, range(len(lines) - 1, -1, -1), TAIL_LINES, cap // 2)
    first = next((i for i in _stating(lines) if i not in kept), None)
    if first is not None:
        before, after = ERROR_CONTEXT
        window = range(max(first - before, 0), min(first + after + 1, len(lines)))
        _keep(kept, lines, [first, *(i for i in window if i != first)], len(window), cap // 4)
    return _render(kept, len(lines))


def _stating(lines: Sequence[str]) -> Iterable[int]:
    return (i for i, line in enumerate(lines) if _STATES_ERROR.search(line.strip()))


def _keep(
    kept: dict[int, str], lines: Sequence[str], order: Iterable[int], most: int, budget: int
) -> None:
    """Keep lines in `order` (skipping kept ones) while `most` lines and `budget` bytes
    allow; an edge line that alone exceeds the budget is kept cut to it."""
    taken = 0
    for index in order:
        if index in kept:
            continue
        size = len(lines[index].encode())
        if taken >= most or size > budget:
            if taken == 0:
                kept[index] = _cut_line(lines[index], budget)
            return
        kept[index] = lines[index]
        budget -= size
        taken += 1


def _cut_line(line: str, budget: int) -> str:
    data = line.rstrip("\n").encode()
    start = data[:budget].decode("utf-8", "ignore")  # never half a character
    return f"{start}[... {len(data) - len(start.encode())} bytes cut]\n"


def _render(kept: dict[int, str], total: int) -> str:
    parts: list[str] = []
    previous = -1
    for index in sorted(kept):
        if index > previous + 1:
            parts.append(_cut_mark(index - previous - 1, parts))
        parts.append(kept[index])
        previous = index
    if previous < total - 1:
        parts.append(_cut_mark(total - 1 - previous, parts))
    return "".join(parts)


def _cut_mark(count: int, before: Sequence[str]) -> str:
    newline = "\n" if before and not before[-1].endswith("\n") else ""
    return f"{newline}[... {count} line{'s' if count != 1 else ''} cut ...]\n"


def error_lines(stdout: str, stderr: str, most: int = 3) -> list[str]:
    """The first lines (at most `most`, stripped) that state an error, from stderr, else from
    stdout; else those that mention one; else the last line of output."""
    for pattern in (_STATES_ERROR, _MENTIONS_ERROR):
        for stream in (stderr, stdout):
            found = [_PYTEST_MARK.sub("", s) for s in _stripped(stream) if pattern.search(s)]
            if found:
                return list(dict.fromkeys(found))[:most]
    return list(_stripped(stderr or stdout))[-1:]


def _stripped(text: str) -> Iterable[str]:
    return (s for s in (line.strip() for line in text.splitlines()) if s)


def first_error(stdout: str, stderr: str) -> str | None:
    """The one error line a failure's summary quotes (cut to SUMMARY_CHARS); None for no
    output."""
    found = error_lines(stdout, stderr, most=1)
    if not found:
        return None
    line = found[0]
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"


def failure_excerpt(stdout: str, stderr: str, summary: str = "", tail: int = 10) -> list[str]:
    """What a failure callout quotes of the output: its error lines, then its last lines
    (from stderr, else stdout), `...` between them; a line the `summary` ends with (it
    quotes the first error) or that the last lines hold is not repeated."""
    stream = (stderr or stdout).strip("\n").splitlines()
    last = [line for line in stream[-tail:] if line.strip()]
    shown = {_PYTEST_MARK.sub("", line.strip()) for line in last}
    errors = [
        line
        for line in error_lines(stdout, stderr)
        if line not in shown and not summary.endswith(f": {line}")
    ]
    last = [line for line in last if not summary.endswith(f": {line.strip()}")]
    return [*errors, "...", *last] if errors and last else [*errors, *last]
