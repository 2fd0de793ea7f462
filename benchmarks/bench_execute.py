"""Benchmark: does a turn's execution cost what its change costs, not what the repository
costs? Times `git teddy plan` + `git teddy execute -y` of a plan that edits 3 files in a
100,000-file repository (each turn a new tree), then the same with an EXECUTE action (run in
the pooled scratch worktree), beside `git status` and the naive cycle of `git worktree add` +
`git worktree remove` of the same repository. Issue 31's goals: a turn <= 3x `git status`,
a turn's execute with an EXECUTE <= 4x after the first.

Uses the repository benchmarks/bench_snapshot.py generates (and caches). Run with `make bench`.
"""

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_snapshot import CACHE, FILES, file_path, git, prepare, sealed_env, timed, traced
from turn_split import shares, split_line

EDITED = 3
GOAL = 10.0  # the naive cycle should cost at least this many times a turn
EXECUTE_GOAL = 4.0  # issue 31 (was 16 P1's 1.5x): a warm execute, over `git status`
TURN_GOAL = 3.0  # issue 31: a whole turn (plan + execute, a new tree each), over `git status`


def plan_for(paths: list[str], numbers: list[int], round_: int, command: bool = False) -> str:
    edits = "\n".join(
        f"### `EDIT`\n- **File Path:** [{path}](/{path})\n- **Description:** Touch it.\n\n"
        f"`FIND:`\n```\nline of file {number}\n```\n`REPLACE:`\n```\n"
        f"line of file {number} v{round_}\n```\n"
        for path, number in zip(paths, numbers, strict=True)
    )
    parts = ("Synthesis", "Justification", "Expected Outcome", "State Dashboard")
    rationale = "\n".join(f"### {n}. {part}\nText." for n, part in enumerate(parts, start=1))
    if command:
        edits += "\n### `EXECUTE`\n- **Description:** Run.\n- **Expected Outcome:** Works.\n"
        edits += "````shell\ntrue\n````\n"
    header = "# Bench\n- **Agent:** Dev\n\n## Rationale\n"
    return f"{header}````text\n{rationale}\n````\n\n## Action Plan\n\n{edits}"


class Turns:
    """Each turn's `plan`, `execute -y` (and its git part) and a `git status` beside them,
    taken in turns: the shared machine's noise hits them alike."""

    def __init__(self) -> None:
        self.plans: list[float] = []
        self.plans_in_git: list[float] = []
        self.executes: list[float] = []
        self.in_git: list[float] = []
        self.status: list[float] = []
        self.shares: dict[str, dict[str, float]] = {}

    def take(self, repo: Path, env: dict[str, str], plan_file: Path) -> None:
        total, git_part = traced([*plan_args(plan_file)], repo, env)
        self.plans.append(total)
        self.plans_in_git.append(git_part)
        self.status.append(timed(["git", "status"], repo, env))
        total, git_part = traced(["git", "teddy", "execute", "-y"], repo, env)
        self.executes.append(total)
        self.in_git.append(git_part)

    def profile(self, repo: Path, env: dict[str, str], plan_file: Path) -> None:
        """One more turn, under cProfile (not timed): the shares of the split."""
        self.shares["plan"] = shares(plan_args(plan_file)[2:], repo, env)
        self.shares["execute"] = shares(["execute", "-y"], repo, env)

    def split(self, command: str) -> str:
        walls, in_git = (
            (self.plans, self.plans_in_git) if command == "plan" else (self.executes, self.in_git)
        )
        return split_line(self.warm(walls), self.warm(in_git), self.shares[command])

    def warm(self, figures: list[float]) -> float:
        return statistics.median(figures[1:])  # the first turn fills the worktree pool


def plan_args(plan_file: Path) -> list[str]:
    return ["git", "teddy", "plan", "-m", "edit", "--from-file", str(plan_file)]


def report(files: int, runs: int, edits: Turns, commands: Turns, naive: list[float]) -> None:
    print(f"\nrepository of {files} files; plans editing {EDITED} files; median of {runs}")
    for title, turns in (("3 EDITs", edits), (f"{EDITED} EDITs + EXECUTE true", commands)):
        anchor = turns.warm(turns.status)
        execute, git_part = turns.warm(turns.executes), turns.warm(turns.in_git)
        print(f"\n{title}")
        print(f"{'git teddy plan (per turn)':44}{turns.warm(turns.plans):>8.3f}s")
        print(f"{'git teddy execute -y (first turn)':44}{turns.executes[0]:>8.3f}s")
        print(f"{'git teddy execute -y (per turn)':44}{execute:>8.3f}s")
        print(f"{'  of which git processes':44}{git_part:>8.3f}s   {git_part / anchor:.2f}x status")
        print(f"{'  the rest: Python (imports, models)':44}{execute - git_part:>8.3f}s")
        print(f"{'git status (same run)':44}{anchor:>8.3f}s")
        if turns.shares:
            for command in ("plan", "execute"):
                print(f"  {command} ({title}, {files} files): {turns.split(command)}")
    anchor = edits.warm(edits.status)
    whole = statistics.median(
        p + e for p, e in zip(edits.plans[1:], edits.executes[1:], strict=True)
    )
    if naive:
        cycle = statistics.median(naive)
        warm = edits.warm(edits.executes)
        print(f"\n{'git worktree add + remove (naive cycle)':44}{cycle:>8.3f}s")
        verdict = "ok" if cycle / warm >= GOAL else "UNDER GOAL"
        label = "naive cycle / teddy execute (3 EDITs)"
        print(f"{label:44}{cycle / warm:>8.1f}x   goal >= {GOAL:g}x: {verdict}")
    print()
    label = f"turn (plan + execute) at {files} files / status"
    verdict = "ok" if whole <= TURN_GOAL * anchor else "MISS"
    print(f"{label:48}{whole / anchor:>8.2f}x   goal <= {TURN_GOAL:g}x: {verdict}")
    ratio = commands.warm(commands.executes) / commands.warm(commands.status)
    verdict = "ok" if ratio <= EXECUTE_GOAL else "MISS"
    label = f"execute with an EXECUTE at {files} files / status"
    print(f"{label:48}{ratio:>8.2f}x   goal <= {EXECUTE_GOAL:g}x: {verdict}")


def first_use(commands: Turns, checkout: float, files: int) -> None:
    """Issue 31: the first EXECUTE turn makes the scratch worktree at the cost of at most
    one checkout of the tree (`git worktree add` of it): what the first turn's execute costs
    beyond a warm one, over that."""
    extra = commands.executes[0] - commands.warm(commands.executes)
    print(f"{'git worktree add (one checkout)':44}{checkout:>8.3f}s")
    label = f"first EXECUTE turn's extra at {files} files / checkout"
    verdict = "ok" if extra <= checkout else "MISS"
    print(f"{label:48}{extra / checkout:>8.2f}x   goal <= 1x: {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--dirs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--naive-runs",
        type=int,
        default=1,
        help="naive cycles to time (0: none); each adds and removes a whole worktree",
    )
    args = parser.parse_args()
    if shutil.which("git-teddy") is None:
        sys.exit("error: git-teddy is not on PATH\nhint: run `make bench`")
    repo = CACHE / f"repo-{args.files}-{args.dirs}"
    numbers = [i * (args.files // EDITED) + 7 for i in range(EDITED)]
    paths = [file_path(n, args.dirs) for n in numbers]
    edits, commands = Turns(), Turns()
    with tempfile.TemporaryDirectory(prefix="teddy-bench-") as scratch:
        env = sealed_env(Path(scratch))
        prepare(repo, env, args.files, args.dirs)
        plan_file = Path(scratch) / "plan.md"
        timed(["git", "teddy", "new", "bench-execute"], repo, env)
        try:
            for round_ in range(2 * (args.runs + 1)):
                turns = edits if round_ <= args.runs else commands
                plan_file.write_text(plan_for(paths, numbers, round_, turns is commands))
                turns.take(repo, env, plan_file)
            for number, turns in enumerate((edits, commands)):
                plan_file.write_text(plan_for(paths, numbers, 2 * args.runs + 2 + number,
                                              turns is commands))  # fmt: skip
                turns.profile(repo, env, plan_file)
        finally:
            git(repo, env, "checkout", "-q", "--", *paths)
        naive, checkouts = [], []
        for _ in range(args.naive_runs):
            tree = Path(scratch) / "naive"
            add = timed(["git", "worktree", "add", "-q", "--detach", str(tree), "HEAD"], repo, env)
            remove = timed(["git", "worktree", "remove", "--force", str(tree)], repo, env)
            naive.append(add + remove)
            checkouts.append(add)
    report(args.files, args.runs, edits, commands, naive)
    if checkouts:
        first_use(commands, statistics.median(checkouts), args.files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
