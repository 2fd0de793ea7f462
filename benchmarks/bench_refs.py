"""Benchmark: do refs that are not git-teddy's cost a command nothing? Times `plan
--from-file`, `execute -y`, `show`, `list` and `context` in a small repository with one
session, beside copies of it holding 20,000 unrelated remote-tracking branches: packed (as
`git fetch` and `git clone` leave them) and loose. Goal (issue 24): each command costs at
most 1.2x what it costs without them.

The copies are timed in turns, command by command, so the shared machine's noise hits them
alike. The figure is the CPU time (user + system) of the command and every process it
starts, which a busy machine disturbs far less than wall time; wall time is printed beside
it. Asserts nothing. Run with `make bench`, or `python benchmarks/bench_refs.py`.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench_snapshot import git, sealed_env

GOAL = 1.2
COMMANDS = ("plan", "execute", "show", "list", "context")
FILES = 50


def plan_for(round_: int) -> str:
    """A plan creating one file (no EXECUTE: a turn that costs what teddy costs)."""
    parts = ("Synthesis", "Justification", "Expected Outcome", "State Dashboard")
    rationale = "\n".join(f"### {n}. {part}\nText." for n, part in enumerate(parts, start=1))
    path = f"notes/round-{round_}.txt"
    create = (
        f"### `CREATE`\n- **File Path:** [{path}](/{path})\n- **Description:** New.\n"
        f"````\nround {round_}\n````\n"
    )
    head = "# Bench\n- **Agent:** Dev\n\n## Rationale\n"
    return f"{head}````text\n{rationale}\n````\n\n## Action Plan\n\n{create}"


def measured(args: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, its children included) of one command."""
    before, start = _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed in {cwd}:\n{err.decode()}{out.decode()}")
    # communicate() reaped the child: the children's times now count it and its own.
    return wall, _children_cpu() - before


def _children_cpu() -> float:
    usage = os.times()
    return usage.children_user + usage.children_system


def make_repo(root: Path, env: dict[str, str]) -> Path:
    """A small project with one session of one executed turn."""
    repo = root / "plain"
    repo.mkdir()
    git(repo, env, "init", "-q", "-b", "main")
    for number in range(FILES):
        folder = repo / f"dir-{number % 5}"
        folder.mkdir(exist_ok=True)
        (folder / f"file-{number}.txt").write_text(f"line of file {number}\n")
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("dir-0/file-0.txt\n")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-q", "-m", "initial")
    git(repo, env, "teddy", "new", "bench-refs")
    return repo


def unrelated_refs(repo: Path, env: dict[str, str], count: int, packed: bool) -> None:
    """`count` remote-tracking branches of another remote, as a monorepo's fetch leaves them."""
    head = git(repo, env, "rev-parse", "HEAD").strip()
    lines = "".join(
        f"create refs/remotes/origin/team-{n % 50}/feature-{n} {head}\n" for n in range(count)
    )
    git(repo, env, "update-ref", "--stdin", stdin=lines.encode())
    if packed:
        git(repo, env, "pack-refs", "--all")


def one_round(
    repo: Path, env: dict[str, str], plan: Path, round_: int
) -> dict[str, tuple[float, float]]:
    """Wall and CPU time of each command of one turn, in the order a user runs them."""
    plan.write_text(plan_for(round_))
    commands = {
        "plan": ["git", "teddy", "plan", "-m", f"round {round_}", "--from-file", str(plan)],
        "execute": ["git", "teddy", "execute", "-y"],
        "show": ["git", "teddy", "show"],
        "list": ["git", "teddy", "list"],
        "context": ["git", "teddy", "context"],
    }
    return {name: measured(args, repo, env) for name, args in commands.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--refs", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("git-teddy") is None:
        sys.exit("error: git-teddy is not on PATH\nhint: run `make bench`")
    with tempfile.TemporaryDirectory(prefix="teddy-bench-refs-") as scratch:
        root = Path(scratch)
        env = sealed_env(root)
        plain = make_repo(root, env)
        repos = {"plain": plain, "packed": root / "packed", "loose": root / "loose"}
        for name, packed in (("packed", True), ("loose", False)):
            shutil.copytree(plain, repos[name], symlinks=True)
            unrelated_refs(repos[name], env, args.refs, packed)
        times: Times = {r: {c: ([], []) for c in COMMANDS} for r in repos}
        for round_ in range(args.runs + 1):  # the first round warms caches and the pool
            for name, repo in repos.items():
                figures = one_round(repo, env, root / f"plan-{name}.md", round_)
                for command, (wall, cpu) in figures.items():
                    if round_:
                        times[name][command][0].append(wall)
                        times[name][command][1].append(cpu)
    report(times, args.refs, args.runs)
    return 0


Times = dict[str, dict[str, tuple[list[float], list[float]]]]  # repo -> command -> wall, cpu
LAYOUTS = ("plain", "packed", "loose")


def report(times: Times, refs: int, runs: int) -> None:
    print(f"\nseconds, median of {runs}; {refs:,} unrelated remote-tracking branches")
    print(f"{'':12}{'CPU: none':>10}{'packed':>10}{'loose':>10}{'wall: none':>12}{'packed':>10}")
    for command in COMMANDS:
        cpu = [statistics.median(times[r][command][1]) for r in LAYOUTS]
        wall = [statistics.median(times[r][command][0]) for r in LAYOUTS[:2]]
        print(
            f"{command:12}"
            + "".join(f"{value:>10.3f}" for value in cpu)
            + f"{wall[0]:>12.3f}{wall[1]:>10.3f}"
        )
    for layout in ("packed", "loose"):
        for command in COMMANDS:
            base = statistics.median(times["plain"][command][1])
            ratio = statistics.median(times[layout][command][1]) / base
            verdict = "ok" if ratio <= GOAL else "MISS"
            label = f"{command} CPU with {refs:,} {layout} refs / without"
            print(f"{label:44}{ratio:>8.2f}x   goal <= {GOAL:g}x: {verdict}")


if __name__ == "__main__":
    sys.exit(main())
