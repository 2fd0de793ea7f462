"""FIND/REPLACE edits (pure): an exact unique match first, then a whitespace-tolerant one;
failing both, the closest region of the file is reported so the model can correct itself."""

import difflib
from dataclasses import dataclass

MAX_CLOSEST_SCAN = 20_000  # lines; beyond this the closest-region search is skipped


@dataclass(frozen=True)
class EditFailure(Exception):
    message: str
    closest: str | None = None
    closest_line: int | None = None


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


def apply_edit(text: str, find: str, replace: str) -> str:
    if not find.strip():
        raise EditFailure("the FIND block is empty; quote the exact text to replace")
    count = text.count(find)
    if count == 1:
        return text.replace(find, replace, 1)
    if count > 1:
        raise EditFailure(
            f"the FIND text occurs {count} times; include more lines to make it unique"
        )
    lines = text.split("\n")
    find_lines = find.strip("\n").split("\n")
    matches = _tolerant_matches(lines, find_lines)
    if len(matches) == 1:
        start = matches[0]
        return "\n".join([*lines[:start], replace, *lines[start + len(find_lines) :]])
    if len(matches) > 1:
        raise EditFailure(
            f"the FIND text matches {len(matches)} places when whitespace is ignored; "
            "include more lines to make it unique"
        )
    closest = _closest(lines, find_lines)
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
