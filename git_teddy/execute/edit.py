"""FIND/REPLACE edits (pure): an exact unique match first, then a whitespace-tolerant one;
failing both, the closest region of the file is reported so the model can correct itself.
Only the matched lines change: every other line keeps its bytes and its line ending (CRLF,
LF, a mix), new lines take the matched region's ending, a missing final newline stays
missing, and a tolerant match's indentation mapping is carried over to the REPLACE."""

import difflib
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass

from git_teddy.execute.indentation import indent_unit, reindent

MAX_CLOSEST_SCAN = 20_000  # lines; beyond this the closest-region search is skipped


@dataclass(frozen=True)
class EditFailure(Exception):
    message: str
    closest: str | None = None
    closest_line: int | None = None


@dataclass(frozen=True)
class _Lines:
    """A file as `text.split("\\n")` would cut it, each line's ending kept apart: "\\r\\n" or
    "\\n", and "" for the last piece (empty when the file ends with a newline)."""

    bodies: list[str]
    ends: list[str]

    @classmethod
    def of(cls, text: str) -> "_Lines":
        pieces = text.split("\n")
        bodies, ends = [], []
        for piece in pieces[:-1]:
            crlf = piece.endswith("\r")
            bodies.append(piece[:-1] if crlf else piece)
            ends.append("\r\n" if crlf else "\n")
        return cls([*bodies, pieces[-1]], [*ends, ""])

    def splice(self, first: int, last: int, new: list[str]) -> str:
        """The text with lines first..last (inclusive) replaced by the `new` line bodies."""
        ends = _new_ends(self.bodies[first : last + 1], self.ends[first : last + 1], new)
        ends = [end or self._dominant_end() for end in ends[:-1]] + ends[-1:]
        head = "".join(b + e for b, e in zip(self.bodies[:first], self.ends[:first], strict=True))
        middle = "".join(b + e for b, e in zip(new, ends, strict=True))
        tail = zip(self.bodies[last + 1 :], self.ends[last + 1 :], strict=True)
        return head + middle + "".join(b + e for b, e in tail)

    def _dominant_end(self) -> str:
        counts = Counter(end for end in self.ends if end)
        return counts.most_common(1)[0][0] if counts else "\n"


def _new_ends(old: list[str], old_ends: list[str], new: list[str]) -> list[str]:
    """Endings for the new lines: a line the REPLACE kept keeps its own, the others take the
    region's most common one, and the last keeps the region's last (so a file without a
    final newline keeps not having one). "" means "the file's most common one"."""
    counts = Counter(end for end in old_ends if end)
    region_end = counts.most_common(1)[0][0] if counts else ""
    ends = [region_end] * len(new)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, old_start, old_stop, new_start, _new_stop in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(old_stop - old_start):
                ends[new_start + offset] = old_ends[old_start + offset] or region_end
    ends[-1] = old_ends[-1]
    return ends


def _normalize(line: str) -> str:
    return " ".join(line.split())


def _tolerant_matches(lines: list[str], find: list[str]) -> list[int]:
    wanted = [_normalize(line) for line in find]
    normalized = [_normalize(line) for line in lines]
    size = len(wanted)
    return [i for i in range(len(lines) - size + 1) if normalized[i : i + size] == wanted]


def _closest(lines: list[str], find: list[str]) -> tuple[int, str] | None:
    size = max(len(find), 1)
    if not lines or len(lines) > MAX_CLOSEST_SCAN:
        return None
    target = "\n".join(_normalize(line) for line in find)
    best, best_start = -1.0, 0
    for start in range(max(len(lines) - size + 1, 1)):
        window = "\n".join(_normalize(line) for line in lines[start : start + size])
        matcher = difflib.SequenceMatcher(None, target, window, autojunk=False)
        if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
            continue
        ratio = matcher.ratio()
        if ratio > best:
            best, best_start = ratio, start
    return best_start + 1, "\n".join(lines[best_start : best_start + size])


def _exact(lines: _Lines, view: str, find: str, replace: str) -> str:
    """The one exact occurrence replaced character for character, in the lines it touches."""
    starts, offset = [], 0
    for body in lines.bodies:
        starts.append(offset)
        offset += len(body) + 1
    begin = view.index(find)
    end = begin + len(find)
    # the line holding the character after the match too: a FIND ending in a newline then
    # still leaves a whole line behind it in the region
    first, last = bisect_right(starts, begin) - 1, bisect_right(starts, end) - 1
    region = "\n".join(lines.bodies[first : last + 1])
    cut_from, cut_to = begin - starts[first], end - starts[first]
    new = region[:cut_from] + replace + region[cut_to:]
    return lines.splice(first, last, new.split("\n"))


def _tolerant(lines: _Lines, start: int, find: list[str], replace: str) -> str:
    found = lines.bodies[start : start + len(find)]
    unit = _file_unit(lines.bodies, found)
    new = reindent(find, found, replace.split("\n"), unit)
    return lines.splice(start, start + len(find) - 1, new)


def _file_unit(bodies: list[str], found: list[str]) -> str | None:
    """The matched lines' indentation character; the whole file's width for spaces."""
    local, whole = indent_unit(found), indent_unit(bodies)
    if local is None or whole is None:
        return local or whole
    return local if "\t" in (local, whole) else whole


def apply_edit(text: str, find: str, replace: str) -> str:
    # FIND and REPLACE come from the plan as LF text; the file's own endings are kept apart
    find, replace = find.replace("\r\n", "\n"), replace.replace("\r\n", "\n")
    if not find.strip():
        raise EditFailure("the FIND block is empty; quote the exact text to replace")
    lines = _Lines.of(text)
    view = "\n".join(lines.bodies)
    count = view.count(find)
    if count == 1:
        return _exact(lines, view, find, replace)
    if count > 1:
        raise EditFailure(
            f"the FIND text occurs {count} times; include more lines to make it unique"
        )
    find_lines = find.strip("\n").split("\n")
    matches = _tolerant_matches(lines.bodies, find_lines)
    if len(matches) == 1:
        return _tolerant(lines, matches[0], find_lines, replace)
    if len(matches) > 1:
        raise EditFailure(
            f"the FIND text matches {len(matches)} places when whitespace is ignored; "
            "include more lines to make it unique"
        )
    closest = _closest(lines.bodies, find_lines)
    if closest is None:
        raise EditFailure("the FIND text was not found in the file")
    line, region = closest
    raise EditFailure(
        f"the FIND text was not found; the closest region starts at line {line}", region, line
    )


def apply_edits(text: str, pairs: list[tuple[str, str]]) -> str:
    """All pairs in order; the first failure names which pair failed."""
    for number, (find, replace) in enumerate(pairs, start=1):
        try:
            text = apply_edit(text, find, replace)
        except EditFailure as failure:
            prefix = f"FIND/REPLACE pair {number}: " if len(pairs) > 1 else ""
            raise EditFailure(
                prefix + failure.message, failure.closest, failure.closest_line
            ) from None
    return text
