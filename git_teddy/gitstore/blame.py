"""Blame (a part of GitRepo): which commit last changed each line, from `git blame --porcelain`
(parsed by a pure function), with grafts giving parentless commits a parent."""

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from git_teddy.gitstore import runner
from git_teddy.gitstore.changes import is_object_id
from git_teddy.gitstore.layout import Layout
from git_teddy.gitstore.runner import GitFailed


@dataclass(frozen=True)
class BlamedLine:
    number: int  # in the file as of the blamed commit
    commit: str  # the commit that last changed the line
    summary: str  # that commit's subject
    text: str
    boundary: bool = False  # git's `^`: a root, or the edge of a shallow clone's history


class LineOutOfRange(GitFailed):
    """Blame of a line past the end of the file."""


def parse_blame(porcelain: str) -> list[BlamedLine]:
    """The lines of `git blame --porcelain` output."""
    rows: list[BlamedLine] = []
    summaries: dict[str, str] = {}
    boundaries: set[str] = set()
    commit, number = "", 0
    for line in porcelain.splitlines():
        if line.startswith("\t"):
            summary = summaries.get(commit, "")
            rows.append(BlamedLine(number, commit, summary, line[1:], commit in boundaries))
        elif line.startswith("summary "):
            summaries[commit] = line.removeprefix("summary ")
        elif line == "boundary":
            boundaries.add(commit)
        else:
            parts = line.split(" ")
            if len(parts) >= 3 and is_object_id(parts[0]) and parts[1].isdigit():
                commit, number = parts[0], int(parts[2])
    return rows


class BlamePart:
    """Runs `git blame` at the top of the working tree."""

    toplevel: Path
    layout: Layout

    def blame(
        self,
        commit: str,
        path: str,
        line: int | None = None,
        grafts: Mapping[str, str] | None = None,
    ) -> list[BlamedLine]:
        """Which commit last changed each line of `path` (from the top of the working tree;
        or of line `line` alone) as of `commit`. `grafts` (commit -> the parent it is blamed
        on top of) give parentless commits a parent for this blame alone (`git blame -S`).
        GitFailed when git cannot tell; LineOutOfRange past the file's end."""
        lines = ["-L", f"{line},{line}"] if line is not None else []
        scratch = self.layout.shared.make_folders(self.layout.scratch)
        with tempfile.TemporaryDirectory(dir=scratch, prefix="blame-") as folder:
            revs = Path(folder) / "grafts"
            revs.write_text(
                "".join(f"{child} {parent}\n" for child, parent in (grafts or {}).items())
            )
            args = ["blame", "--porcelain", "-S", str(revs), *lines, commit, "--", path]
            proc = runner.run(args, self.toplevel)  # git would read `path` from the cwd
        if proc.returncode != 0:
            out_of_range = line is not None and "has only" in proc.stderr
            failed = runner.failure(args, proc.stderr.strip())
            raise LineOutOfRange(failed.message) if out_of_range else failed
        return parse_blame(proc.stdout)
