"""Benchmark: does a session commit cost the same in a 200-turn session as in a 2-turn one?

Every session commit regenerates `session.md` from the turns (session/logfiles.py); per-turn
pieces are cached by the turn folder's tree id, so the cost should not grow with the session.
Generates once, under benchmarks/.cache/ (git-ignored), two repositories: a session with 2
turns planned (`plan --from-file`) and executed, and one where turns 03..200 are copies of
turn 02 made with git plumbing (each with its own turn.yaml and plan title, one commit per
turn), then times `git teddy pause` (one session commit) in each. Goal: the 200-turn commit
within 2x of the 2-turn one. Then issue 31's read goal: `show`, `log` and `diff 01` of a
50-turn session (made the same way), each <= 0.15 s (median). Run with `make bench`
(git-teddy must be on PATH).
"""

import argparse
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

from bench_hooks import PLAN, run
from bench_snapshot import CACHE, git, sealed_env

GOAL = 2.0  # the 200-turn commit over the 2-turn one
READ_GOAL = 0.15  # issue 31: seconds for `show`, `log`, `diff 01` of a 50-turn session
READ_TURNS = 50
SESSION = "bench"
VERSION = "1"  # bump when the generated sessions change


def teddy(repo: Path, env: dict[str, str], *args: str) -> str:
    return run(["git", "teddy", *args], repo, env)


def make_session(root: Path, env: dict[str, str], turns: int) -> Path:
    """A repository whose session `bench` has `turns` turns (2 real ones, the rest copied)."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    git(repo, env, "init", "-q")
    for i in range(20):
        (repo / f"file{i}.txt").write_text(f"line {i}\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "initial")
    teddy(repo, env, "new", SESSION)
    plan = root / "plan.md"
    for n in (1, 2):
        plan.write_text(PLAN.format(path=f"made{n}.txt", content=f"made by turn {n}"))
        teddy(repo, env, "plan", "-m", f"turn {n}", "--from-file", str(plan))
        teddy(repo, env, "execute", "-y")
    if turns > 2:
        copy_turns(repo, env, turns)
    return repo


def copy_turns(repo: Path, env: dict[str, str], turns: int) -> None:
    """Turns 03..`turns` as copies of turn 02, one commit each, by plumbing."""
    pattern = f"refs/heads/teddy/*-{SESSION}/main"
    ref = git(repo, env, "for-each-ref", "--format=%(refname)", pattern).strip()
    tip = git(repo, env, "rev-parse", ref).strip()
    message = git(repo, env, "log", "-1", "--format=%B", tip)
    root_lines = git(repo, env, "ls-tree", f"{tip}^{{tree}}").splitlines()
    turn_lines = git(repo, env, "ls-tree", f"{tip}:02").splitlines()
    blob = {line.split("\t")[1]: line.split()[2] for line in turn_lines}
    record = git(repo, env, "cat-file", "blob", blob["turn.yaml"])
    plan = git(repo, env, "cat-file", "blob", blob["plan.md"])
    for n in range(3, turns + 1):
        name = f"{n:02d}"
        changed = {
            "turn.yaml": re.sub(r"(?m)^turn: .*$", f"turn: '{name}'", record),
            "plan.md": plan.replace("# A plan", f"# A plan for turn {name}", 1),
        }
        ids = {
            path: git(repo, env, "hash-object", "-w", "--stdin", stdin=text.encode()).strip()
            for path, text in changed.items()
        }
        folder = "\n".join(
            re.sub(r" [0-9a-f]{40,64}\t", f" {ids[path]}\t", line) if path in ids else line
            for line, path in ((line, line.split("\t")[1]) for line in turn_lines)
        )
        folder_id = git(repo, env, "mktree", stdin=(folder + "\n").encode()).strip()
        root_lines.append(f"040000 tree {folder_id}\t{name}")
        tree = git(repo, env, "mktree", stdin=("\n".join(root_lines) + "\n").encode()).strip()
        text = re.sub(r"(?m)^Teddy-Turn: .*$", f"Teddy-Turn: {name}", message)
        tip = git(repo, env, "commit-tree", tree, "-p", tip, stdin=text.encode()).strip()
    git(repo, env, "update-ref", ref, tip)


def cached_session(env: dict[str, str], turns: int) -> Path:
    """The generated repository for `turns`, made once under benchmarks/.cache/."""
    root = CACHE / f"session-log-{turns}-v{VERSION}"
    repo = root / "repo"
    if not (root / "done").exists():
        shutil.rmtree(root, ignore_errors=True)
        print(f"generating a {turns}-turn session under {root} ...", flush=True)
        make_session(root, env, turns)
        (root / "done").write_text("ok\n")
    return repo


def commit_ms(repo: Path, env: dict[str, str], runs: int) -> float:
    """Median time of one session commit (`git teddy pause`), after a warm-up commit."""
    teddy(repo, env, "pause")  # warm-up: regenerates session.md, fills the caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        teddy(repo, env, "pause")
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def read_seconds(repo: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    """Median wall time of each read-only command on session `bench`, after a warm-up."""
    medians = {}
    reads = {
        "show": ["show", SESSION],
        "log": ["log", SESSION],
        "diff 01": ["diff", f"{SESSION}/01"],
    }
    for name, args in reads.items():
        teddy(repo, env, *args)  # warm-up: the OS caches, teddy's own
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            teddy(repo, env, *args)
            times.append(time.perf_counter() - start)
        medians[name] = statistics.median(times)
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    home = CACHE / "session-log-home"
    home.mkdir(parents=True, exist_ok=True)
    env = sealed_env(home)
    small, large = cached_session(env, 2), cached_session(env, args.turns)
    phases = teddy(large, env, "show", SESSION).count("\n")
    small_ms, large_ms = commit_ms(small, env, args.runs), commit_ms(large, env, args.runs)
    ratio = large_ms / small_ms
    verdict = "ok" if ratio <= GOAL else "MISS"
    print(f"\nmedian of {args.runs} runs of `git teddy pause` (one session commit)")
    print(f"{'2-turn session':40}{small_ms:>8.1f} ms")
    print(f"{f'{args.turns}-turn session':40}{large_ms:>8.1f} ms   ({phases} lines of show)")
    print(f"{'P9 ratio':40}{ratio:>8.2f}x   goal <= {GOAL:g}x: {verdict}")
    reads = read_seconds(cached_session(env, READ_TURNS), env, args.runs)
    print(f"\nmedian of {args.runs} runs, a {READ_TURNS}-turn session")
    for name, seconds in reads.items():
        label = f"git teddy {name} ({READ_TURNS} turns)"
        verdict = "ok" if seconds <= READ_GOAL else "MISS"
        print(f"{label:40}{seconds:>8.3f}s   goal <= {READ_GOAL:g} s: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
