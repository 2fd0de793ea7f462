"""Benchmark: `git teddy export SESSION --html` of a 200-turn session. Goal: under 2 s.

Plays the session for real in a sealed repository kept in benchmarks/.cache/ (made once:
each turn is planned by the replay provider, a plan that edits one file and creates
another so every turn has a change, and executed; that takes minutes), then times the
export (median of 3) and prints the page's size with the goal and ok/MISS. Run with
`PATH=.venv/bin:$PATH .venv/bin/python benchmarks/bench_export.py [--turns N]`.
"""

import argparse
import statistics
import subprocess
from pathlib import Path

from bench_context import teddy
from bench_snapshot import CACHE, git, sealed_env

PLAN = """# Turn {n}
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
Turn {n}.
### 2. Justification
Growing the project.
### 3. Expected Outcome
One more file.
### 4. State Dashboard
- Task: in progress
````

## Action Plan

### `CREATE`
- **File Path:** [files/f{n:04d}.txt](/files/f{n:04d}.txt)
- **Description:** New file.
````
line {n}
````

### `EDIT`
- **File Path:** [counter.txt](/counter.txt)
- **Description:** Count.

`FIND:`
````
count {previous}
````
`REPLACE:`
````
count {n}
````
"""


def play(repo: Path, env: dict[str, str], turns: int) -> str:
    replies = repo.parent / "replies"
    replies.mkdir()
    for n in range(1, turns + 1):
        (replies / f"{n:04d}.md").write_text(PLAN.format(n=n, previous=n - 1))
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(replies))
    _, out = teddy(repo, env, "new", "bench")
    session = out.strip()
    for n in range(1, turns + 1):
        teddy(repo, env, "plan", "-m", f"turn {n}")
        teddy(repo, env, "execute", "-y")
    return session


def played(turns: int) -> tuple[Path, dict[str, str], str]:
    """The repository with a session of `turns` turns, made once and kept."""
    root = CACHE / f"export-{turns}"
    home, repo, done = root / "home", root / "repo", root / "session"
    if done.exists():
        env = sealed_env(home)
        env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(root / "replies"))
        return repo, env, done.read_text().strip()
    if root.exists():
        subprocess.run(["rm", "-rf", str(root)], check=True)
    home.mkdir(parents=True)
    repo.mkdir()
    env = sealed_env(home)
    git(repo, env, "init", "-q")
    (repo / "counter.txt").write_text("count 0\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "start")
    session = play(repo, env, turns)
    # 200 turns leave thousands of loose objects; git's own `gc --auto` would have packed
    # them by now in a repository in use, so the export is timed on a packed one.
    git(repo, env, "gc", "-q")
    done.write_text(session + "\n")
    return repo, env, session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    repo, env, session = played(args.turns)
    times, size = [], 0
    for _ in range(3):
        elapsed, page = teddy(repo, env, "export", session, "--html")
        times.append(elapsed)
        size = len(page.encode())
    median = statistics.median(times)
    verdict = "ok" if median < 2 else "MISS"
    print(
        f"export of {args.turns} turns: {median:.2f} s median, {size:,} bytes"
        f"  goal < 2 s  {verdict}"
    )


if __name__ == "__main__":
    subprocess.run(["git", "teddy", "--version"], check=True, capture_output=True)
    main()
