"""Problems found in a plan, each with a line, what is wrong and how to fix it.

The hints are written for the model that wrote the plan: the retry loop sends them back
verbatim (`format_problems`), so each one says what to write instead.
"""

import re
from dataclasses import dataclass

from git_teddy.artifacts.paths import NAME_MAX, is_dotgit
from git_teddy.errors import TeddyError

RATIONALE_PARTS = ("Synthesis", "Justification", "Expected Outcome", "State Dashboard")

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class Problem:
    line: int
    message: str
    hint: str

    def as_dict(self) -> dict[str, int | str]:
        return {"line": self.line, "message": self.message, "hint": self.hint}


class PlanError(TeddyError):
    """An invalid plan; `problems` lists everything wrong with it, in line order."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda problem: problem.line)
        count = len(self.problems)
        super().__init__(
            f"the plan has {count} problem{'s' if count != 1 else ''}:\n"
            + format_problems(self.problems),
            "fix each problem at the line given, then validate again",
        )


def format_problems(problems: list[Problem]) -> str:
    """One block per problem, ready to print or to send back to a model."""
    return "\n".join(
        f"line {problem.line}: {problem.message}\n  hint: {problem.hint}" for problem in problems
    )


LINK_HINT = "write paths as root-relative links: [path/from/root](/path/from/root)"


def check_path(path: str, line: int, where: str) -> list[Problem]:
    """Paths must stay inside the working tree and out of `.git`."""
    if not path:
        return [Problem(line, f"{where} has an empty path", LINK_HINT)]
    if "\0" in path:
        return [Problem(line, f"{where}: path contains a NUL character", LINK_HINT)]
    if path.startswith(("/", "\\", "~")) or _DRIVE.match(path) or _SCHEME.match(path):
        return [
            Problem(
                line,
                f"{where}: `{path}` is an absolute path on disk",
                "paths are relative to the project root; " + LINK_HINT,
            )
        ]
    parts = re.split(r"[/\\]", path)
    if ".." in parts:
        return [
            Problem(
                line,
                f"{where}: `{path}` contains `..`",
                "only files inside the project can be used; name them from the project root",
            )
        ]
    if any(is_dotgit(part) for part in parts):  # `.GIT`, `.git.`, `GIT~1` are `.git` too
        return [
            Problem(
                line,
                f"{where}: `{path}` points into `.git`",
                "plans must not touch git's own files; git-teddy records history itself",
            )
        ]
    if any(len(part.encode("utf-8", "surrogateescape")) > NAME_MAX for part in parts):
        return [
            Problem(
                line,
                f"{where}: `{path}` has a file name longer than {NAME_MAX} bytes",
                "no file system takes such a name; choose a shorter one",
            )
        ]
    return []


def check_url(url: str, line: int, where: str) -> list[Problem]:
    if re.match(r"^https?://[^\s/]+", url):
        return []
    return [
        Problem(
            line,
            f"{where}: `{url}` is not an http(s) URL",
            "link URLs in full, e.g. [example.com/docs](https://example.com/docs)",
        )
    ]


def check_rationale(text: str, line: int) -> list[Problem]:
    """The four parts must all be there, in order, each on its own heading line."""
    found: list[tuple[int, str]] = []
    for offset, text_line in enumerate(text.split("\n")):
        for number, part in enumerate(RATIONALE_PARTS, start=1):
            if _is_part_heading(text_line, number, part):
                found.append((offset, part))
    names = [part for _, part in found]
    missing = [
        f"`### {number}. {part}`"
        for number, part in enumerate(RATIONALE_PARTS, start=1)
        if part not in names
    ]
    if missing:
        return [Problem(line, f"the Rationale is missing {', '.join(missing)}", _rationale_hint())]
    if list(dict.fromkeys(names)) != list(RATIONALE_PARTS):
        return [Problem(line, "the Rationale's parts are out of order", _rationale_hint())]
    return []


def _is_part_heading(text_line: str, number: int, part: str) -> bool:
    pattern = rf"^\s*(?:#+\s*)?(?:{number}\s*[.)]\s*)?{re.escape(part)}\s*:?\s*$"
    return re.match(pattern, text_line, re.IGNORECASE) is not None


def _rationale_hint() -> str:
    parts = ", ".join(f"`### {n}. {p}`" for n, p in enumerate(RATIONALE_PARTS, start=1))
    return f"inside the Rationale's fenced block, write the headings {parts}, in this order"
