"""A command's output as the report keeps it and failures quote it (pure): the head, the
first error and the tail of long output with the cuts marked, and the error lines picked
from it. `OutputBuffer` takes the output as it comes and holds only that, so a command
printing gigabytes costs teddy no more memory than one printing a page."""

import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

ERROR_CONTEXT = (3, 3)  # lines kept before and after a first error that falls in the cut
SUMMARY_CHARS = 160  # the most of an error line a one-line summary quotes
WHOLE_LIMIT = 256 * 1024  # output up to this size (or outputCap) is kept whole, then clipped
NOTED_ERRORS = 5  # error lines noted of a streamed output (error_lines quotes 3, deduplicated)
LINE_KEPT = 4096  # bytes of a long line looked at for an error (more when the cap keeps more)

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
# Bytes a line must hold to state or mention an error: the only lines of a streamed output
# looked at one by one.
_MAY_BE_ERROR = re.compile(rb"Error|Exception|Traceback|error|fatal:|FAILED|ERROR")
# A line that only says how long something took (`Duration:  302.45ms`, `Done in 0.31s`):
# never the error a summary quotes, even when it is the last line.
_TIMING = re.compile(
    r"^\W*[a-z ]*(?:duration|time|took|elapsed|done in|finished in)[a-z ]*:?\s*"
    r"\(?[\d.,]+\s*(?:µs|us|ms|s|sec|secs|seconds|m|min)\)?\.?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Line:
    text: str  # the line (its newline included), or its start when it was too long to keep
    size: int  # the whole line's size in bytes


def _whole(line: str) -> _Line:
    return _Line(line, len(line.encode()))


def clip_output(text: str, cap: int) -> str:
    """`text` kept within about `cap` bytes: its first and last lines, and its first error
    line with some context when that falls between them, each cut marked with a line
    `[... N lines cut ...]` (an overlong line is cut too, its cut marked on it)."""
    lines = [_whole(line) for line in text.splitlines(keepends=True)]
    if len(text.encode()) <= cap:  # one limit, in bytes: no count of lines cuts it
        return text
    kept: dict[int, str] = {}
    _keep(kept, lines, range(len(lines)), len(lines), cap // 4)
    _keep(kept, lines, range(len(lines) - 1, -1, -1), len(lines), cap // 2)
    first = next((i for i in _stating(lines) if i not in kept), None)
    if first is not None:
        before, after = ERROR_CONTEXT
        window = range(max(first - before, 0), min(first + after + 1, len(lines)))
        _keep(kept, lines, [first, *(i for i in window if i != first)], len(window), cap // 4)
    return _render(kept, len(lines))


def _stating(lines: Sequence[_Line]) -> Iterable[int]:
    return (i for i, line in enumerate(lines) if _states_error(line.text))


def _states_error(line: str) -> bool:
    return bool(_STATES_ERROR.search(line.strip()))


def _keep(
    kept: dict[int, str],
    lines: Sequence[_Line] | Mapping[int, _Line],
    order: Iterable[int],
    most: int,
    budget: int,
) -> None:
    """Keep lines in `order` (skipping kept ones) while `most` lines and `budget` bytes
    allow; an edge line that alone exceeds the budget is kept cut to it."""
    taken = 0
    for index in order:
        if index in kept:
            continue
        size = lines[index].size
        if taken >= most or size > budget:
            if taken == 0:
                kept[index] = _cut_line(lines[index], budget)
            return
        kept[index] = lines[index].text
        budget -= size
        taken += 1


def _cut_line(line: _Line, budget: int) -> str:
    body = line.text.rstrip("\n")
    whole = line.size - (len(line.text) - len(body))  # its bytes without the newline
    start = body.encode()[:budget].decode("utf-8", "ignore")  # never half a character
    return f"{start}[... {whole - len(start.encode())} bytes cut]\n"


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


# Colour and cursor codes (CSI sequences, and the other two-character escapes).
_ESCAPE_CODES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# What a YAML literal block cannot hold: control characters (tab and newline aside), the
# characters YAML reads as line breaks, a byte order mark.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


def readable(text: str) -> tuple[str, list[str]]:
    """`text` as a report shows it, readable as block text, and what was changed to make it
    so: colour and cursor codes removed, CRLF line ends as LF, and any other control
    character shown as its Unicode picture (␍ for a lone CR, ␀ for NUL, ...)."""
    notes = []
    plain = _ESCAPE_CODES.sub("", text)
    if plain != text:
        notes.append("colour and cursor codes removed")
    if "\r\n" in plain:
        plain = plain.replace("\r\n", "\n")
        notes.append("CRLF line ends shown as LF")
    if _UNPRINTABLE.search(plain):
        plain = _UNPRINTABLE.sub(_picture, plain)
        notes.append("control characters shown as their pictures (␍ is a CR, ␀ a NUL, ...)")
    return plain, notes


def cut_notes(lines: int, size: int, cap: int, setting: str) -> list[str]:
    """What a report says of an output it cut: how much there was, the limit and its name,
    what was kept (each note a short plain line: YAML neither quotes nor folds it)."""
    return [
        f"cut to {setting} ({cap:,} bytes) from {lines:,} lines and {size:,} bytes",
        "kept the head, the first error with the lines around it, and the tail",
    ]


def _picture(match: re.Match[str]) -> str:
    code = ord(match[0])
    if code < 0x20:
        return chr(0x2400 + code)
    return "␡" if code == 0x7F else f"<U+{code:04X}>"


class OutputBuffer:
    """One stream of a command's output, taken chunk by chunk as it comes: kept whole while
    it is small (`clipped` is then clip_output's), else only what the report can keep (its
    head, its first error with context, its tail, the error lines a summary quotes) and its
    line count; memory within a few `cap`s whatever the output's size."""

    def __init__(self, cap: int, whole_limit: int = WHOLE_LIMIT) -> None:
        self._cap = cap
        self._limit = max(whole_limit, cap)
        self._whole: bytearray | None = bytearray()
        self._stream: _Stream | None = None
        self.size = 0  # bytes taken
        self._newlines = 0
        self._ends_line = True

    @property
    def lines(self) -> int:
        return self._newlines + (not self._ends_line)

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        self._newlines += chunk.count(b"\n")
        self._ends_line = chunk.endswith(b"\n") if chunk else self._ends_line
        if self._whole is not None:
            self._whole += chunk
            if len(self._whole) <= self._limit:
                return
            chunk, self._whole = bytes(self._whole), None
            self._stream = _Stream(self._cap)
        assert self._stream is not None
        self._stream.add(chunk)

    def clipped(self) -> str:
        """The output as the report keeps it (see clip_output)."""
        if self._stream is None:
            return clip_output(self._text(), self._cap)
        return self._stream.clipped()

    def kept(self) -> str:
        """The whole output while it is kept whole, else what the report keeps of it."""
        return self._text() if self._stream is None else self.clipped()

    def error_text(self) -> str:
        """Text whose error lines (error_lines, first_error) are the whole output's."""
        return self._text() if self._stream is None else self._stream.error_text()

    def _text(self) -> str:
        return bytes(self._whole or b"").decode("utf-8", "replace")


class _Stream:
    """An output too large to keep whole, as lines by index: the candidates for the head, the
    first error's window and the tail (clip_output's choice is made from them at the end),
    and the first lines stating or mentioning an error."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.longest = max(cap // 2, LINE_KEPT) + 1  # bytes kept of a line: enough for any part
        self.count = 0  # complete lines taken: the index of the next one
        self.head: dict[int, _Line] = {}
        self.head_bytes = 0
        self.head_open = True
        self.error_at: int | None = None
        self.window: dict[int, _Line] = {}
        self.tail: deque[tuple[int, _Line]] = deque()
        self.tail_bytes = 0
        self.recent: deque[tuple[int, _Line]] = deque(maxlen=ERROR_CONTEXT[0])  # before an error
        self.stating: list[str] = []
        self.mentioning: list[str] = []
        self.last_line = ""  # the last line that is not blank nor a timing, stripped
        # lines for the tail not pushed yet: (first index, a block's lines or one, bytes, lines)
        self.pending_tail: deque[tuple[int, bytes | _Line, int, int]] = deque()
        self.pending_bytes = self.pending_lines = 0
        self.partial = bytearray()  # the line not yet ended, its start
        self.partial_size = 0

    # ---- taking chunks ----

    def add(self, chunk: bytes) -> None:
        start = 0
        if self.partial_size:
            newline = chunk.find(b"\n")
            if newline < 0:
                self._extend_partial(chunk)
                return
            self._extend_partial(chunk[: newline + 1])
            self._take_partial()
            start = newline + 1
        end = chunk.rfind(b"\n") + 1
        if end > start:
            self._take_block(chunk, start, end)
        self._extend_partial(chunk[max(start, end) :])

    def _extend_partial(self, data: bytes) -> None:
        self.partial += data[: max(self.longest - len(self.partial), 0)]
        self.partial_size += len(data)

    def _take_partial(self, ended: bool = True) -> None:
        raw, size = bytes(self.partial), self.partial_size
        self.partial, self.partial_size = bytearray(), 0
        self._take(self._line(raw, size, ended))

    def _line(self, raw: bytes, size: int, ended: bool | None = None) -> _Line:
        """A line from its first bytes `raw` and its whole `size`; `ended` by a newline
        (by default: when `raw` is)."""
        start = raw[: self.longest]
        text = start.decode("utf-8", "replace")
        if (raw.endswith(b"\n") if ended is None else ended) and not start.endswith(b"\n"):
            text += "\n"
        return _Line(text, size)

    def _take(self, line: _Line) -> None:
        """One line looked at alone: the head's, the window's, an error's."""
        index = self.count
        self.count += 1
        self._last(line.text)
        if self.head_open and self._to_head(index, line):
            self._note(line.text)
        else:
            self._after_head(index, line)
        self._defer_tail(index, line, 1, alone=False)

    def _last(self, line: str) -> None:
        stripped = line.strip()
        if stripped and not _TIMING.match(stripped):
            self.last_line = stripped

    def _to_head(self, index: int, line: _Line) -> bool:
        fits = self.head_bytes + line.size <= self.cap // 4
        if fits or not self.head:
            self.head[index] = line
            self.head_bytes += line.size
            self.head_open = fits
            return True
        self.head_open = False
        return False

    def _after_head(self, index: int, line: _Line) -> None:
        if self.error_at is not None and index <= self.error_at + ERROR_CONTEXT[1]:
            self.window[index] = line
        elif self.error_at is None and _states_error(line.text):
            self.error_at = index
            self.window = {**self._before(index), index: line}
        self._note(line.text)

    def _take_block(self, chunk: bytes, start: int, end: int) -> None:
        """Whole lines `chunk[start:end]`: those the head or the error's window still wants
        one by one, then a scan for error lines, then the last ones for the tail."""
        while start < end and (self.head_open or self._window_open()):
            newline = chunk.index(b"\n", start, end)
            self._take(self._line(chunk[start : newline + 1], newline + 1 - start))
            start = newline + 1
        if start < end and self._scanning():
            self._scan(chunk, start, end)
        base = self.count
        self.count += chunk.count(b"\n", start, end)
        body = chunk[start:end].rstrip()
        if body:
            last = body[body.rfind(b"\n") + 1 :][: self.longest]
            self._last(last.decode("utf-8", "replace"))
        # the block's last lines: from the one holding the byte cap // 2 before its end, and
        # at least the few an error's window may want before it
        first = chunk.rfind(b"\n", start, max(start, end - self.cap // 2 - 1)) + 1 or start
        for _ in range(ERROR_CONTEXT[0]):
            if first <= start:
                break
            first = chunk.rfind(b"\n", start, first - 1) + 1 or start
        index = base + chunk.count(b"\n", start, first)
        block = chunk[first:end]
        self._defer_tail(index, block, block.count(b"\n"), alone=first > start)

    def _defer_tail(self, index: int, lines: "bytes | _Line", count: int, alone: bool) -> None:
        """Lines for the tail set aside (a block's last ones, or one line), pushed one by one
        only when an error's window or the end needs them: those that newer ones leave out
        are dropped unread, so a stream of tiny lines costs no Python per line. `alone`: they
        fill the tail by themselves (what came before is dropped)."""
        if alone:
            self.pending_tail.clear()
            self.pending_bytes = self.pending_lines = 0
        size = lines.size if isinstance(lines, _Line) else len(lines)
        self.pending_tail.append((index, lines, size, count))
        self.pending_bytes += size
        self.pending_lines += count
        while len(self.pending_tail) > 1:  # newer lines fill the tail and the window's before
            _, _, oldest_size, oldest_count = self.pending_tail[0]
            if self.pending_bytes - oldest_size <= self.cap // 2 or (
                self.pending_lines - oldest_count < ERROR_CONTEXT[0]
            ):
                break
            self.pending_tail.popleft()
            self.pending_bytes -= oldest_size
            self.pending_lines -= oldest_count

    def _flush_tail(self) -> None:
        for index, lines, _, _ in self.pending_tail:
            if isinstance(lines, _Line):
                self._push_tail(index, lines)
                continue
            for raw in lines.splitlines(keepends=True):
                self._push_tail(index, self._line(raw, len(raw)))
                index += 1
        self.pending_tail.clear()
        self.pending_bytes = self.pending_lines = 0

    def _window_open(self) -> bool:
        return self.error_at is not None and self.count <= self.error_at + ERROR_CONTEXT[1]

    def _scanning(self) -> bool:
        return (
            self.error_at is None
            or len(self.stating) < NOTED_ERRORS
            or (not self.stating and len(self.mentioning) < NOTED_ERRORS)
        )

    def _scan(self, chunk: bytes, start: int, end: int) -> None:
        """The lines of `chunk[start:end]` that may state or mention an error, looked at;
        the first stating one after the head opens the error's window."""
        done, index = start, self.count  # `done`: the start of line `index`
        for match in _MAY_BE_ERROR.finditer(chunk, start, end):
            if match.start() < done:
                continue
            line_start = chunk.rfind(b"\n", start, match.start()) + 1 or start
            index += chunk.count(b"\n", done, line_start)
            done = chunk.index(b"\n", match.start(), end) + 1
            line = self._line(chunk[line_start:done], done - line_start)
            if self.error_at is None and _states_error(line.text):
                self._open_window(chunk, start, line_start, index)
                self._window_after(chunk, done, end, index + 1)
            self._note(line.text)
            index += 1
            if not self._scanning():
                return

    def _open_window(self, chunk: bytes, start: int, at: int, index: int) -> None:
        self.error_at = index
        self.window = self._before(index)
        line_end = at
        for before in range(index - 1, index - 1 - ERROR_CONTEXT[0], -1):
            if line_end <= start:
                break
            line_start = chunk.rfind(b"\n", start, line_end - 1) + 1 or start
            self.window[before] = self._line(chunk[line_start:line_end], line_end - line_start)
            line_end = line_start
        newline = chunk.index(b"\n", at)
        self.window[index] = self._line(chunk[at : newline + 1], newline + 1 - at)

    def _before(self, index: int) -> dict[int, _Line]:
        """The lines before line `index` the last ones taken hold."""
        self._flush_tail()
        return {i: line for i, line in self.recent if i >= index - ERROR_CONTEXT[0]}

    def _window_after(self, chunk: bytes, start: int, end: int, index: int) -> None:
        """The lines after the error the window holds, as far as this block goes (the next
        block gives the rest, taken one by one)."""
        while start < end and index <= (self.error_at or 0) + ERROR_CONTEXT[1]:
            newline = chunk.index(b"\n", start, end)
            self.window[index] = self._line(chunk[start : newline + 1], newline + 1 - start)
            start, index = newline + 1, index + 1

    def _note(self, line: str) -> None:
        stripped = line.strip()
        if _states_error(stripped):
            found = self.stating
        elif _MENTIONS_ERROR.search(stripped):
            found = self.mentioning
        else:
            return
        if len(found) < NOTED_ERRORS and stripped not in found:
            found.append(stripped)

    def _push_tail(self, index: int, line: _Line) -> None:
        """The tail's candidates: the last lines, as many as cap // 2 bytes can keep (the
        newest always, cut if need be when the report is written)."""
        if self.tail and self.tail[-1][0] != index - 1:
            self.tail.clear()
            self.tail_bytes = 0
            self.recent.clear()
        self.tail.append((index, line))
        self.recent.append((index, line))
        self.tail_bytes += line.size
        while len(self.tail) > 1 and (self.tail_bytes > self.cap // 2):
            self.tail_bytes -= self.tail.popleft()[1].size

    # ---- the output as the report keeps it ----

    def _finish(self) -> None:
        if self.partial_size:  # the last line, without a newline
            self._take_partial(ended=False)
        self._flush_tail()

    def clipped(self) -> str:
        self._finish()
        lines = {**self.head, **self.window, **dict(self.tail)}
        kept: dict[int, str] = {}
        _keep(kept, lines, sorted(self.head), len(self.head), self.cap // 4)
        _keep(kept, lines, [i for i, _ in reversed(self.tail)], len(self.tail), self.cap // 2)
        if self.error_at is not None and self.error_at not in kept:
            order = [self.error_at, *(i for i in sorted(self.window) if i != self.error_at)]
            _keep(kept, lines, order, len(order), self.cap // 4)
        return _render(kept, self.count)

    def error_text(self) -> str:
        """The noted error lines, then the last line that is not blank: error_lines picks
        from them what it would from the whole output."""
        self._finish()
        last = [self.last_line] if self.last_line else []
        return "\n".join([*self.stating, *self.mentioning, *last]) + "\n"


def error_lines(stdout: str, stderr: str, most: int = 3) -> list[str]:
    """The first lines (at most `most`, stripped) that state an error, from stderr, else from
    stdout; else those that mention one; else the last line of output that is not a timing."""
    for pattern in (_STATES_ERROR, _MENTIONS_ERROR):
        for stream in (stderr, stdout):
            found = [_PYTEST_MARK.sub("", s) for s in _stripped(stream) if pattern.search(s)]
            if found:
                return list(dict.fromkeys(found))[:most]
    last = [line for line in _stripped(stderr or stdout) if not _TIMING.match(line)]
    return last[-1:]


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
