"""READ of part of a file (pure): a line range (`[app.py](/app.py#L120-L180)`, `#L120` for
one line) or a symbol (`#split_into`, a member as `#Stack.push`), read from the snapshot and
shown with the file's line numbers.

The entry keeps its fragment in the context lists (`app.py#L120-L180`), so it is counted,
listed and PRUNEd like any entry (a `#` followed by anything else is part of the file's
name). A range starting at 0 or ending before it starts is a problem of the plan's form
(parse.py); a range past the end or a name the file does not define is a
problem of the plan in its snapshot (plan/parts.py), sent back to the model like the others.
"""

import re
from dataclasses import dataclass

LINES = re.compile(r"^L(\d+)(?:-L?(\d+))?$")
SYMBOL = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*[?!]?$")
SEPARATOR = " | "  # between a line's number and its text
PART_HINT = (
    "READ a part of a file as a line range, [app.py](/app.py#L120-L180), or as a symbol the "
    "repository map lists under the file, [app.py](/app.py#split_into)"
)


class PartError(ValueError):
    """A part that the file does not have; `hint` says what to READ instead."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class Excerpt:
    start: int
    end: int
    total: int  # lines of the file
    text: str  # the lines, numbered

    @property
    def note(self) -> str:
        return f"lines {self.start}-{self.end} of {self.total}, numbered"


def split_part(resource: str) -> tuple[str, str | None]:
    """("app.py", "L120-L180") for `app.py#L120-L180`, ("app.py", "split_into") for
    `app.py#split_into`; (resource, None) for a whole file, `C#.md` and `notes#1.txt` too."""
    path, mark, fragment = resource.rpartition("#")
    if not mark or not path or "://" in resource or resource.startswith("session:"):
        return resource, None
    if not (LINES.match(fragment) or SYMBOL.match(fragment)):
        return resource, None
    return path, fragment


def fragment_problem(fragment: str) -> str | None:
    """What is wrong with a range (`split_part` takes only ranges and names as parts)."""
    lines = LINES.match(fragment)
    if lines is None:
        return None
    start, end = int(lines[1]), int(lines[2] or lines[1])
    if start < 1:
        return "line numbers start at 1"
    return None if end >= start else f"the range ends (line {end}) before it starts"


def resolve(path: str, text: str, fragment: str) -> tuple[int, int]:
    """The first and last line `fragment` names in `text` (the file at `path`)."""
    total = len(text.splitlines())
    lines = LINES.match(fragment)
    if lines:
        start, end = int(lines[1]), int(lines[2] or lines[1])
        if end > total:
            raise PartError(
                f"{path} has {total} lines; `#{fragment}` goes past its end",
                f"READ a range within lines 1-{total}, or the whole file",
            )
        return start, end
    # imported here, not at start-up: the plan parser imports this module
    from git_teddy.artifacts.symbols import file_symbols, find

    found = find(file_symbols(path, text), fragment)
    if not found:
        raise PartError(
            f"{path} defines no symbol `{fragment}`",
            "name a symbol as the repository map lists it under the file (`Class.method` "
            "for a member), or READ a line range",
        )
    if len(found) > 1:
        where = ", ".join(f"line {symbol.line}" for symbol in found)
        raise PartError(
            f"{path} defines `{fragment}` {len(found)} times ({where})",
            "name the one you mean as `Class.method`, or READ its line range",
        )
    return found[0].line, found[0].end


def excerpt(path: str, text: str, fragment: str) -> Excerpt:
    """The part's lines, each after its number in the file and `SEPARATOR`."""
    start, end = resolve(path, text, fragment)
    lines = text.splitlines()
    width = len(str(end))
    numbered = [
        f"{n:>{width}}{SEPARATOR}{lines[n - 1]}" if lines[n - 1] else f"{n:>{width}} |"
        for n in range(start, end + 1)  # an empty line gets no trailing blank
    ]
    return Excerpt(start, end, len(lines), "\n".join(numbered) + "\n")
