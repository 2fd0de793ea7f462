"""Benchmark: what Python start-up (imports and setup) costs the per-turn commands.

Times `git teddy new NAME`, `git teddy plan --from-file F -m M`, `git teddy execute -y` and
`git teddy context --json` (answered from its cache) in a small repository made in a
temporary folder, where the repository costs next to nothing and start-up is most of the
wall time. For each command: the median wall time, and the median of its import total (the
sum of the top-level imports that `PYTHONPROFILEIMPORTTIME=1` reports, measured in separate
runs since profiling imports slows them). The import total leaves out the bodies of modules
loaded by `importlib.import_module` (the command's own module, gitstore.repo), which
`-X importtime` does not see, and work deferred past import (pydantic validators built on
first use): compare it between versions, not with the wall time. On a shared machine both
figures move by 20%; `valgrind --tool=callgrind` instruction counts are the steady measure.
Then issue 31's turn goal: `plan --from-file` + `execute -y` in a 3-file repository (each
turn a new tree), median of the runs, <= 0.45 s; and its read-only goal: `show`, `log` and
`diff 01` of a 50-turn session (bench_export's, made once in the cache), each <= 0.15 s,
with their import totals and git's share (trace2). Run with `make bench` (git-teddy on PATH).
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_export import played
from bench_snapshot import git, sealed_env, timed, traced
from turn_split import shares, split_line

FILES = 200
# Seconds of imports per command. Issue 16 P1 gives a turn 1.5x `git status` on the
# 100,000-file benchmark repository (0.28 s there): beside the one scan of the working tree
# a turn must make, that leaves ~0.14 s for everything else, start-up included.
IMPORT_GOAL = 0.150
TURN_GOAL = 0.45  # issue 31: one turn (plan --from-file + execute -y) in a 3-file repository
READ_GOAL = 0.15  # issue 31: show / log / diff 01 of a 50-turn session
READ_COMMANDS = ("show", "log", "diff 01")


def make_repo(repo: Path, env: dict[str, str]) -> None:
    repo.mkdir()
    git(repo, env, "init", "-q", "-b", "main")
    for number in range(FILES):
        folder = repo / f"dir-{number % 10}"
        folder.mkdir(exist_ok=True)
        (folder / f"file-{number}.txt").write_text(f"line of file {number}\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-q", "-m", "initial")


def plan_text(
    path: str = "dir-1/file-1.txt", find: str = "line of file 1", replace: str = ""
) -> str:
    """A one-EDIT plan (the shape of bench_execute's) that changes dir-1/file-1.txt."""
    replace = replace or f"{find} edited"
    rationale = "\n".join(
        f"### {n}. {part}\nText."
        for n, part in enumerate(
            ("Synthesis", "Justification", "Expected Outcome", "State Dashboard"), start=1
        )
    )
    return (
        f"# Bench\n- **Agent:** Dev\n\n## Rationale\n````text\n{rationale}\n````\n\n"
        f"## Action Plan\n\n### `EDIT`\n- **File Path:** [{path}](/{path})\n"
        f"- **Description:** Touch it.\n\n`FIND:`\n```\n{find}\n```\n`REPLACE:`\n```\n"
        f"{replace}\n```\n"
    )


def import_total(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Seconds spent importing modules by one run of `args` (its top-level imports' sum)."""
    proc = subprocess.run(
        args, cwd=cwd, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, capture_output=True
    )
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed:\n{proc.stderr.decode()[-2000:]}")
    total = 0
    for line in proc.stderr.decode().splitlines():
        if not line.startswith("import time:"):
            continue
        fields = line.split("|")
        # the name column is indented by two spaces per level: one space is top level
        if len(fields) == 3 and fields[1].strip().isdigit() and not fields[2].startswith("  "):
            total += int(fields[1])
    return total / 1e6


class Bench:
    """Each command's wall times and import totals, the runs of all commands interleaved so
    that the shared machine's noise hits them alike."""

    def __init__(self, repo: Path, env: dict[str, str], plan_file: Path) -> None:
        self.repo, self.env, self.plan_file = repo, env, plan_file
        self.rounds = 0
        self.walls: dict[str, list[float]] = {}
        self.imports: dict[str, list[float]] = {}

    def measure(self, name: str, args: list[str], profile: bool) -> None:
        if profile:
            self.imports.setdefault(name, []).append(import_total(args, self.repo, self.env))
        else:
            self.walls.setdefault(name, []).append(timed(args, self.repo, self.env))

    def round(self, profile: bool) -> None:
        """One session's turn: new, plan, execute, then the context as its cache answers it."""
        n = self.rounds = self.rounds + 1
        steps = [
            ("git status", ["git", "status"]),
            ("new NAME", ["git", "teddy", "new", f"bench-{n}"]),
            (
                "plan --from-file F -m M",
                ["git", "teddy", "plan", "--from-file", str(self.plan_file), "-m", "edit"],
            ),
            ("execute -y", ["git", "teddy", "execute", "-y"]),
        ]
        for name, args in steps:
            self.measure(name, args, profile)
        for _ in range(2):  # the first counts tokens (not stored), the second stores its answer
            timed(["git", "teddy", "context", "--json"], self.repo, self.env)
        self.measure("context --json (cached)", ["git", "teddy", "context", "--json"], profile)
        git(self.repo, self.env, "checkout", "-q", "--", ".")


def small_turns(scratch: Path, env: dict[str, str], runs: int) -> tuple[list[float], list[str]]:
    """Seconds of each turn (`plan --from-file` + `execute -y`, each a new tree) in a
    repository of 3 files, after one warm-up turn; and where the plan's and the execute's
    medians go (imports / tokenizer / other Python / git; one more turn, profiled)."""
    repo = scratch / "small"
    repo.mkdir()
    git(repo, env, "init", "-q", "-b", "main")
    for name in ("a.txt", "b.txt", "c.txt"):
        (repo / name).write_text(f"{name} v0\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-q", "-m", "initial")
    timed(["git", "teddy", "new", "small"], repo, env)
    plan_file = scratch / "small-plan.md"
    plan = ["plan", "--from-file", str(plan_file), "-m", "e"]
    figures: dict[str, list[tuple[float, float]]] = {"plan": [], "execute": []}
    for n in range(1, runs + 2):
        plan_file.write_text(plan_text("a.txt", f"a.txt v{n - 1}", f"a.txt v{n}"))
        figures["plan"].append(traced(["git", "teddy", *plan], repo, env))
        figures["execute"].append(traced(["git", "teddy", "execute", "-y"], repo, env))
    plan_file.write_text(plan_text("a.txt", f"a.txt v{runs + 1}", f"a.txt v{runs + 2}"))
    share = {"plan": shares(plan, repo, env), "execute": shares(["execute", "-y"], repo, env)}
    splits = [
        f"  {name} (3-file repository): "
        + split_line(
            statistics.median(wall for wall, _ in taken[1:]),
            statistics.median(in_git for _, in_git in taken[1:]),
            share[name],
        )
        for name, taken in figures.items()
    ]
    turns = [p[0] + e[0] for p, e in zip(figures["plan"], figures["execute"], strict=True)]
    return turns[1:], splits


def read_commands(turns: int, runs: int) -> dict[str, tuple[float, float, float]]:
    """Each read-only command of a `turns`-turn session: median wall, git's part of it and
    import total (seconds), the commands' runs interleaved after one warm-up each."""
    repo, env, _session = played(turns)
    walls: dict[str, list[tuple[float, float]]] = {name: [] for name in READ_COMMANDS}
    imports: dict[str, list[float]] = {name: [] for name in READ_COMMANDS}
    for name in READ_COMMANDS:
        timed(["git", "teddy", *name.split()], repo, env)
    for _ in range(runs):
        for name in READ_COMMANDS:
            args = ["git", "teddy", *name.split()]
            walls[name].append(traced(args, repo, env))
            imports[name].append(import_total(args, repo, env))
    return {
        name: (
            statistics.median(w for w, _ in walls[name]),
            statistics.median(g for _, g in walls[name]),
            statistics.median(imports[name]),
        )
        for name in READ_COMMANDS
    }


def report_reads(turns: int, figures: dict[str, tuple[float, float, float]]) -> None:
    print(f"\n{'git teddy ... (' + str(turns) + ' turns)':28}{'wall':>9}{'git':>9}{'imports':>10}")
    for name, (wall, in_git, imports) in figures.items():
        print(f"{name:28}{wall:>8.3f}s{in_git:>8.3f}s{imports:>9.3f}s")
    print()
    for name, (wall, _, _) in figures.items():
        verdict = "ok" if wall <= READ_GOAL else "MISS"
        line = f"{name} of a {turns}-turn session"
        print(f"{line:48}{wall:>8.3f}s   goal <= {READ_GOAL:g} s: {verdict}")


def python_startup(env: dict[str, str], cwd: Path, runs: int) -> float:
    return statistics.median(timed([sys.executable, "-c", "pass"], cwd, env) for _ in range(runs))


def report(bench: Bench, python: float, runs: int) -> None:
    status = statistics.median(bench.walls["git status"])
    print(f"\nrepository of {FILES} files in a temporary folder; median of {runs} runs")
    print(f"python -c pass {python:.3f}s, git status {status:.3f}s\n")
    print(f"{'git teddy ...':28}{'wall':>9}{'imports':>10}{'wall - python':>15}")
    for name, walls in bench.walls.items():
        if name == "git status":
            continue
        wall, imports = statistics.median(walls), statistics.median(bench.imports[name])
        print(f"{name:28}{wall:>8.3f}s{imports:>9.3f}s{wall - python:>14.3f}s")
    print()
    for name in bench.walls:
        if name == "git status":
            continue
        imports = statistics.median(bench.imports[name])
        verdict = "ok" if imports <= IMPORT_GOAL else "MISS"
        line = f"imports of {name}"
        print(f"{line:44}{imports:>8.3f}s   goal <= {IMPORT_GOAL:g} s: {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure")
    parser.add_argument("--turns", type=int, default=50, help="turns of the read-only session")
    args = parser.parse_args()
    if shutil.which("git-teddy") is None:
        sys.exit("error: git-teddy is not on PATH\nhint: run `make bench`")
    with tempfile.TemporaryDirectory(prefix="teddy-bench-") as scratch:
        home = Path(scratch) / "home"
        home.mkdir()
        env = sealed_env(home)
        repo = Path(scratch) / "repo"
        make_repo(repo, env)
        plan_file = Path(scratch) / "plan.md"
        plan_file.write_text(plan_text())
        bench = Bench(repo, env, plan_file)
        bench.round(profile=False)  # warm-up: caches, the worktree pool, the page cache
        bench.walls.clear()
        for _ in range(args.runs):
            bench.round(profile=False)
            bench.round(profile=True)
        python = python_startup(env, repo, args.runs)
        turns, splits = small_turns(Path(scratch), env, args.runs)
    report(bench, python, args.runs)
    turn = statistics.median(turns)
    verdict = "ok" if turn <= TURN_GOAL else "MISS"
    label = "a turn in a 3-file repository (plan + execute)"
    print("\n".join(splits))
    print(f"{label:48}{turn:>8.3f}s   goal <= {TURN_GOAL:g} s: {verdict}")
    report_reads(args.turns, read_commands(args.turns, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
