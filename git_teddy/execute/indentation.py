"""Re-indenting an EDIT's REPLACE (pure): when the whitespace-tolerant match mapped the FIND's
indentation onto different indentation in the file (spaces onto tabs, 2 columns onto 4, a
FIND quoted without its enclosing indentation), the REPLACE gets the same mapping, so a
tab-indented file stays tab-indented and a 4-space file stays 4-space."""

import math
from collections import Counter
from dataclasses import dataclass
from functools import reduce

UNITS = (4, 2, 8, 3)  # widths of a space indentation level, the likelier first
Pair = tuple[str, str]  # (a FIND line's indentation, the matched file line's)


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _content(line: str) -> str:
    return " ".join(line.split())


def indent_unit(*blocks: list[str]) -> str | None:
    """One level of the blocks' indentation: a tab, or for spaces the most common step of
    a usual width between consecutive lines (without steps, the usual width dividing the
    most indentations; a continuation line's odd alignment is no step); None if flat."""
    indents = [indent_of(line) for block in blocks for line in block if line.strip()]
    tabs = sum(indent.startswith("\t") for indent in indents)
    spaces = sum(indent.startswith(" ") for indent in indents)
    if not tabs and not spaces:
        return None
    if tabs > spaces:
        return "\t"
    steps: Counter[int] = Counter()
    for block in blocks:
        steps.update(step for step in _space_steps(block) if step in UNITS)
    if steps:
        return " " * max(steps, key=lambda step: (steps[step], -UNITS.index(step)))
    widths = [len(indent) for indent in indents if indent and set(indent) == {" "}]
    if not widths:
        return None
    divides = {unit: sum(width % unit == 0 for width in widths) for unit in UNITS}
    best = max(UNITS, key=lambda unit: (divides[unit], -UNITS.index(unit)))
    return " " * (best if divides[best] else reduce(math.gcd, widths))


def _space_steps(block: list[str]) -> list[int]:
    steps, previous = [], None
    for line in block:
        if not line.strip():
            continue  # blank lines say nothing about the nesting
        indent = indent_of(line)
        width = len(indent) if "\t" not in indent else None
        if width is not None and previous is not None and width > previous:
            steps.append(width - previous)
        previous = width
    return steps


def _measure(indent: str, unit: str | None) -> tuple[int, int] | None:
    """(levels, alignment spaces after them), or None when `indent` is not made of `unit`."""
    if not indent:
        return 0, 0
    if unit is None:
        return None
    if unit == "\t":
        tabs = len(indent) - len(indent.lstrip("\t"))
        alignment = indent[tabs:]
        return (tabs, len(alignment)) if set(alignment) <= {" "} else None
    if "\t" in indent:
        return None
    return divmod(len(indent), len(unit))


def _level_shift(pairs: list[Pair], find_unit: str | None, file_unit: str) -> int | None:
    """How many levels the file's lines sit deeper than the FIND's, if every pair agrees."""
    shifts = set()
    for find_indent, file_indent in pairs:
        found, wanted = _measure(find_indent, find_unit), _measure(file_indent, file_unit)
        if found is None or wanted is None:
            return None
        if found[1] == 0 and wanted[1] == 0:  # alignment (continuation) lines are no evidence
            shifts.add(wanted[0] - found[0])
    return shifts.pop() if len(shifts) == 1 else None


def _written_like_find(find: list[str], found: list[str], replace: list[str]) -> bool:
    """Whether the REPLACE repeats FIND lines with the FIND's indentation (rather than the
    file's), the only sign that a same-character style difference is to be carried over."""
    mapped = {
        _content(f): (indent_of(f), indent_of(g))
        for f, g in zip(find, found, strict=True)
        if f.strip() and indent_of(f) != indent_of(g)
    }
    votes = 0
    for line in replace:
        known = mapped.get(_content(line))
        if known is not None:
            indent = indent_of(line)
            votes += (indent == known[0]) - (indent == known[1])
    return votes > 0


def _characters(lines: list[str]) -> set[str]:
    return {indent_of(line)[0] for line in lines if indent_of(line) and line.strip()}


def reindent(
    find: list[str], found: list[str], replace: list[str], file_unit: str | None
) -> list[str]:
    """The REPLACE lines with the indentation mapping FIND -> `found` (the matched file lines,
    whose indentation style is `file_unit`) applied; unchanged when the match kept the
    indentation or the mapping is not one consistent shift of levels."""
    pairs = [(indent_of(f), indent_of(g)) for f, g in zip(find, found, strict=True) if f.strip()]
    if file_unit is None or all(f == g for f, g in pairs):
        return replace
    find_unit = indent_unit(find, replace)
    shift = _level_shift(pairs, find_unit, file_unit)
    if shift is None:
        return replace
    mapping = _Mapping(_seen(pairs), find_unit, file_unit, shift)
    find_characters = _characters(find)
    if find_characters and file_unit[0] not in find_characters:
        # tabs for spaces or the other way round: only lines already in the file's style stay
        return [
            line if indent_of(line).startswith(file_unit[0]) else mapping.apply(line)
            for line in replace
        ]
    if not _written_like_find(find, found, replace):
        return replace  # a slip in the FIND alone: the REPLACE is already in the file's style
    return [mapping.apply(line) for line in replace]


def _seen(pairs: list[Pair]) -> dict[str, str]:
    """The FIND indentations the match mapped one way only, with the file's for them."""
    seen: dict[str, set[str]] = {}
    for find_indent, file_indent in pairs:
        seen.setdefault(find_indent, set()).add(file_indent)
    return {find_indent: found.pop() for find_indent, found in seen.items() if len(found) == 1}


@dataclass(frozen=True)
class _Mapping:
    seen: dict[str, str]  # exact answers, alignment lines included
    find_unit: str | None
    file_unit: str
    shift: int  # levels, for the indentations the FIND did not show

    def apply(self, line: str) -> str:
        indent = indent_of(line)
        if not line.strip():
            return line
        if indent in self.seen:
            return self.seen[indent] + line[len(indent) :]
        measured = _measure(indent, self.find_unit)
        if measured is None or measured[0] + self.shift < 0:
            return line
        levels, rest = measured
        return self.file_unit * (levels + self.shift) + " " * rest + line[len(indent) :]
