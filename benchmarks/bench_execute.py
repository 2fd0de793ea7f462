"""Benchmark: does a turn's execution cost what its change costs, not what the repository
costs? Times `git teddy execute -y` of a plan that edits 3 files in a 100,000-file repository,
beside the naive cycle of `git worktree add` + `git worktree remove` of the same repository.

Uses the repository benchmarks/bench_snapshot.py generates (and caches). Run with `make bench`.
"""

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_snapshot import CACHE, file_path, git, prepare, sealed_env, timed, traced

EDITED = 3
GOAL = 10.0  # the naive cycle should cost at least this many times a turn
P1_GOAL = 1.5  # issue 16 P1: a warm turn costs at most this many times `git status`


def plan_for(paths: list[str], numbers: list[int], round_: int) -> str:
    edits = "\n".join(
        f"### `EDIT`\n- **File Path:** [{path}](/{path})\n- **Description:** Touch it.\n\n"
        f"`FIND:`\n```\nline of file {number}\n```\n`REPLACE:`\n```\n"
        f"line of file {number} v{round_}\n```\n"
        for path, number in zip(paths, numbers, strict=True)
    )
    parts = ("Synthesis", "Justification", "Expected Outcome", "State Dashboard")
    rationale = "\n".join(f"### {n}. {part}\nText." for n, part in enumerate(parts, start=1))
    header = "# Bench\n- **Agent:** Dev\n\n## Rationale\n"
    return f"{header}````text\n{rationale}\n````\n\n## Action Plan\n\n{edits}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--dirs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--naive-runs",
        type=int,
        default=None,
        help="naive cycles to time (default: --runs; 0: none)",
    )
    args = parser.parse_args()
    if shutil.which("git-teddy") is None:
        sys.exit("error: git-teddy is not on PATH\nhint: run `make bench`")
    repo = CACHE / f"repo-{args.files}-{args.dirs}"
    numbers = [i * (args.files // EDITED) + 7 for i in range(EDITED)]
    paths = [file_path(n, args.dirs) for n in numbers]
    with tempfile.TemporaryDirectory(prefix="teddy-bench-") as scratch:
        env = sealed_env(Path(scratch))
        prepare(repo, env, args.files, args.dirs)
        plan_file = Path(scratch) / "plan.md"
        timed(["git", "teddy", "new", "bench-execute"], repo, env)
        turns, status, in_git = [], [], []
        try:
            for round_ in range(args.runs + 1):  # the first turn fills the worktree pool
                plan_file.write_text(plan_for(paths, numbers, round_))
                timed(
                    ["git", "teddy", "plan", "-m", "edit", "--from-file", str(plan_file)], repo, env
                )
                # side by side with the turn: the machine's noise hits both alike
                status.append(timed(["git", "status"], repo, env))
                total, git_part = traced(["git", "teddy", "execute", "-y"], repo, env)
                turns.append(total)
                in_git.append(git_part)
        finally:
            git(repo, env, "checkout", "-q", "--", *paths)
        naive = []
        for _ in range(args.runs if args.naive_runs is None else args.naive_runs):
            tree = Path(scratch) / "naive"
            add = timed(["git", "worktree", "add", "-q", "--detach", str(tree), "HEAD"], repo, env)
            remove = timed(["git", "worktree", "remove", "--force", str(tree)], repo, env)
            naive.append(add + remove)
    first, warm = turns[0], statistics.median(turns[1:])
    cycle = statistics.median(naive) if naive else None
    anchor = statistics.median(status[1:])
    print(f"\nrepository of {args.files} files; plan editing {EDITED} files; median of {args.runs}")
    print(f"{'git teddy execute -y (first turn)':44}{first:>8.3f}s")
    print(f"{'git teddy execute -y (per turn)':44}{warm:>8.3f}s")
    git_part = statistics.median(in_git[1:])
    print(f"{'  of which git processes':44}{git_part:>8.3f}s   {git_part / anchor:.2f}x git status")
    print(f"{'  the rest: Python (imports, models)':44}{warm - git_part:>8.3f}s")
    print(f"{'git status (same run)':44}{anchor:>8.3f}s")
    if cycle is not None:
        print(f"{'git worktree add + remove (naive cycle)':44}{cycle:>8.3f}s")
        verdict = "ok" if cycle / warm >= GOAL else "UNDER GOAL"
        print(
            f"{'naive cycle / teddy turn':44}{cycle / warm:>8.1f}x   goal >= {GOAL:g}x: {verdict}"
        )
    ratio = warm / anchor
    p1 = "ok" if ratio <= P1_GOAL else "MISS"
    print(f"{'P1 execute -y per turn / git status':44}{ratio:>8.2f}x   goal <= {P1_GOAL:g}x: {p1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
