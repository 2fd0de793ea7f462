"""Diffs of commits (a part of GitRepo): `git diff` to the user's terminal, and plain patches
and stats that depend on none of the user's diff settings."""

from collections.abc import Sequence
from pathlib import Path

from git_teddy.gitstore import runner


class DiffsPart:
    """Runs git's diff commands."""

    cwd: Path

    def show_diff(self, old: str, new: str, options: Sequence[str], color: str | None) -> int:
        """`git diff` of two commits to the user's terminal (or pager), the user's options
        and paths after them as `git diff` takes them (paths relative to the current
        folder); `color` (always/never/auto) when the user chose it for git-teddy. The exit
        code git gave (1 for differences with `--exit-code`)."""
        chosen = [f"--color={color}"] if color else []
        return runner.attached(["diff", *chosen, old, new, *options], self.cwd)

    def diff_texts(self, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """The plain patch between each pair of commits (old, new), in one git process: no
        colour, no external diff or textconv, none of the user's diff settings (what a page
        shows must not depend on this machine). `git diff-tree --stdin` takes "commit
        parent" lines and heads each non-empty patch with the commit's id, in input order."""
        todo = list(dict.fromkeys(pair for pair in pairs if pair[0] != pair[1]))
        if len({new for _, new in todo}) < len(todo):  # a header would be ambiguous
            return [self._patches([pair]).get(pair, "") for pair in pairs]
        found = self._patches(todo)
        return [found.get(pair, "") for pair in pairs]

    def diff_stat(self, old: str, new: str) -> str:
        """`git diff --stat` of two commits, plain (no colour, none of the user's diff
        settings): what changed, a line a file."""
        args = ["diff-tree", "-r", "--stat", "--no-color", "--no-ext-diff", old, new]
        return runner.output(args, self.cwd)

    def _patches(self, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        args = ["diff-tree", "--stdin", "-r", "-p", "--no-color", "--no-ext-diff", "--no-textconv"]
        lines = "".join(f"{new} {old}\n" for old, new in pairs)
        out = runner.output(args, self.cwd, input=lines) if pairs else ""
        patches: dict[tuple[str, str], list[str]] = {}
        news = {new for _, new in pairs}  # a patch line is never a bare commit id
        position, current = 0, None
        for line in out.splitlines(keepends=True):
            header = line.rstrip("\n")
            if header in news:
                while pairs[position][1] != header:
                    position += 1  # pairs without a difference print nothing
                current = pairs[position]
                position += 1
                patches[current] = []
            elif current is not None:
                patches[current].append(line)
        return {pair: "".join(text) for pair, text in patches.items()}
