"""Benchmark: what git-teddy's hooks cost a `git commit` and a `git push`.

Prints the median start-up of the installed hooks, run the way git runs them, in a small
repository: prepare-commit-msg with no sessions (the shell check alone, goal < 100 ms),
with an executed session turn (Python starts and compares the staged blobs), and pre-push of
an ordinary branch (the shell check alone). Run with git-teddy on PATH, e.g.
`PATH=.venv/bin:$PATH .venv/bin/python benchmarks/bench_hooks.py`. Sealed git environment.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_snapshot import sealed_env

GOAL_MS = 100.0  # a hook with nothing to do

PLAN = """# A plan
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
S.
### 2. Justification
J.
### 3. Expected Outcome
O.
### 4. State Dashboard
- Task: in progress
````

## Action Plan

### `CREATE`
- **File Path:** [{path}](/{path})
- **Description:** New file.
````
made by turn {n}
````
"""


def run(args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> str:
    proc = subprocess.run(args, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def median_ms(args: list[str], cwd: Path, env: dict[str, str], runs: int, stdin: str = "") -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run(args, cwd, env, stdin)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def make_repo(root: Path, env: dict[str, str]) -> Path:
    repo = root / "repo"
    repo.mkdir()
    run(["git", "init", "-q"], repo, env)
    for i in range(50):
        (repo / f"file{i}.txt").write_text(f"line {i}\n")
    run(["git", "add", "."], repo, env)
    run(["git", "commit", "-qm", "initial"], repo, env)
    run(["git", "teddy", "hooks", "install"], repo, env)
    return repo


def add_turns(repo: Path, env: dict[str, str], turns: int) -> None:
    run(["git", "teddy", "new", "bench"], repo, env)
    plan = repo.parent / "plan.md"
    for n in range(1, turns + 1):
        plan.write_text(PLAN.format(path=f"made{n}.txt", n=n))
        run(["git", "teddy", "plan", "-m", "go", "--from-file", str(plan)], repo, env)
        run(["git", "teddy", "execute", "-y"], repo, env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--turns", type=int, default=10, help="executed turns in the session")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        env = sealed_env(root / "home")
        repo = make_repo(root, env)
        hooks = Path(run(["git", "rev-parse", "--git-path", "hooks"], repo, env).strip())
        prepare, pre_push = str(repo / hooks / "prepare-commit-msg"), str(repo / hooks / "pre-push")
        message = root / "MSG"
        message.write_text("a commit\n")
        head = run(["git", "rev-parse", "HEAD"], repo, env).strip()
        push_line = f"refs/heads/main {head} refs/heads/main {'0' * 40}\n"
        rows = [
            ("prepare-commit-msg, no sessions", [prepare, str(message), "message"], ""),
            ("pre-push of an ordinary branch", [pre_push, "origin", "/nowhere"], push_line),
        ]
        results = [
            (label, median_ms(cmd, repo, env, args.runs, stdin)) for label, cmd, stdin in rows
        ]
        add_turns(repo, env, args.turns)
        run(["git", "add", "made1.txt"], repo, env)
        cmd = [prepare, str(message), "message"]
        label = f"prepare-commit-msg, {args.turns} executed turns, turn 01's file staged"
        results.append((label, median_ms(cmd, repo, env, args.runs)))
        if "Teddy-Turn: 01" not in message.read_text():
            sys.exit("error: the hook did not add the trailers it should have")
    print(f"\nmedian of {args.runs} runs, hooks run directly as git runs them")
    for label, ms in results:
        print(f"{label:64}{ms:>8.1f} ms")
    nothing = max(ms for label, ms in results[:2])
    verdict = "ok" if nothing < GOAL_MS else "OVER GOAL"
    print(f"{'hooks with nothing to do':64}{nothing:>8.1f} ms   goal < {GOAL_MS:g} ms: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
