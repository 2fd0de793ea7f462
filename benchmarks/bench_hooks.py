"""Benchmark: what git-teddy's hooks cost a `git commit` and a `git push`.

Prints the median start-up of the installed hooks, run the way git runs them, in a small
repository: prepare-commit-msg with no sessions (the shell check alone, goal < 100 ms),
with an executed session turn (Python starts and compares the staged blobs), and pre-push of
an ordinary branch (the shell check alone); then a real `git push` of an ordinary branch to
a local remote with the hook and without (what it adds: no Python, issue 31 item 7). Then
issue 16 P7: a `git rebase` of 30 commits with the hooks installed and without, in a
repository with 1,000 sessions (copies of one session's refs, made by plumbing): the hook's
cost per ordinary commit, goal <= 10 ms. Run with git-teddy on PATH, e.g.
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
REBASE_GOAL_MS = 10.0  # P7: what the hook adds to an ordinary commit, with 1,000 sessions

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
{content}
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


def push_cost(root: Path, env: dict[str, str], repo: Path, runs: int) -> tuple[float, float]:
    """Issue 31 item 7: the median `git push` of an ordinary branch (a new commit each run, to
    a local bare remote) with the installed pre-push hook, and without any hook."""
    bare = root / "remote.git"
    run(["git", "init", "-q", "--bare", str(bare)], root, env)
    run(["git", "remote", "add", "origin", str(bare)], repo, env)
    run(["git", "push", "-q", "origin", "main"], repo, env)
    hook = Path(run(["git", "rev-parse", "--git-path", "hooks/pre-push"], repo, env).strip())
    installed = (repo / hook).read_bytes()
    figures = []
    for with_hook in (True, False):
        if not with_hook:
            (repo / hook).unlink()
        times = []
        for _ in range(runs + 1):  # the first: a warm-up
            run(["git", "commit", "-q", "--allow-empty", "-m", "more", "--no-verify"], repo, env)
            start = time.perf_counter()
            run(["git", "push", "-q", "origin", "main"], repo, env)
            times.append((time.perf_counter() - start) * 1000)
        figures.append(statistics.median(times[1:]))
    (repo / hook).write_bytes(installed)
    (repo / hook).chmod(0o755)
    return figures[0], figures[1]


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
        plan.write_text(PLAN.format(path=f"made{n}.txt", content=f"made by turn {n}"))
        run(["git", "teddy", "plan", "-m", "go", "--from-file", str(plan)], repo, env)
        run(["git", "teddy", "execute", "-y"], repo, env)


def copy_sessions(repo: Path, env: dict[str, str], count: int) -> int:
    """`count` more sessions, each a copy of the existing one's refs (its branch and its
    snapshots under another session id), made in one `git update-ref --stdin`."""
    refs = run(["git", "for-each-ref", "--format=%(objectname) %(refname)"], repo, env)
    teddy_refs = [line.split() for line in refs.splitlines() if "/teddy/" in line]
    session = next(r.split("/")[3] for _, r in teddy_refs if r.startswith("refs/heads/teddy/"))
    lines = [
        f"create {ref.replace(session, f'{session}-{n:04d}')} {sha}\n"
        for n in range(count)
        for sha, ref in teddy_refs
    ]
    run(["git", "update-ref", "--stdin"], repo, env, "".join(lines))
    return len(lines) + len(teddy_refs)


def make_branch(repo: Path, env: dict[str, str], commits: int) -> tuple[str, str]:
    """A branch `topic` of `commits` commits (one file each) beside one new commit on main:
    what a rebase of `topic` onto main replays. Returns (topic's tip, main's tip)."""
    run(["git", "checkout", "-qb", "topic"], repo, env)
    for n in range(commits):
        (repo / f"topic{n}.txt").write_text(f"topic change {n}\n")
        run(["git", "add", f"topic{n}.txt"], repo, env)
        run(["git", "commit", "-qm", f"topic {n}", "--no-verify"], repo, env)
    topic = run(["git", "rev-parse", "HEAD"], repo, env).strip()
    run(["git", "checkout", "-q", "main"], repo, env)
    (repo / "upstream.txt").write_text("upstream\n")
    run(["git", "add", "upstream.txt"], repo, env)
    run(["git", "commit", "-qm", "upstream", "--no-verify"], repo, env)
    return topic, run(["git", "rev-parse", "HEAD"], repo, env).strip()


def rebase_ms(repo: Path, env: dict[str, str], topic: str, runs: int) -> float:
    """Median time of `git rebase main` replaying `topic` (reset between runs)."""
    times = []
    for _ in range(runs):
        run(["git", "checkout", "-q", "-B", "topic", topic], repo, env)
        start = time.perf_counter()
        run(["git", "rebase", "-q", "main"], repo, env)
        times.append((time.perf_counter() - start) * 1000)
    run(["git", "checkout", "-q", "main"], repo, env)
    return statistics.median(times)


def rebase_figures(root: Path, env: dict[str, str], sessions: int, commits: int, runs: int) -> None:
    """P7: a rebase of `commits` commits with the hooks installed and without, in a
    repository with `sessions` sessions; ms per commit, their difference and the goal."""
    repo = root / "rebase-repo"
    repo.mkdir()
    run(["git", "init", "-q"], repo, env)
    (repo / "README.md").write_text("rebase benchmark\n")
    run(["git", "add", "."], repo, env)
    run(["git", "commit", "-qm", "initial"], repo, env)
    add_turns(repo, env, 2)
    refs = copy_sessions(repo, env, sessions - 1)
    topic, _ = make_branch(repo, env, commits)
    without = rebase_ms(repo, env, topic, runs)
    empty = repo / ".git" / "hooks" / "prepare-commit-msg"
    empty.write_text("#!/bin/sh\n:\n")  # what git pays to start any hook: the reference
    empty.chmod(0o755)
    nothing = rebase_ms(repo, env, topic, runs)
    empty.unlink()
    run(["git", "teddy", "hooks", "install"], repo, env)
    start = time.perf_counter()
    run(["git", "checkout", "-q", "-B", "topic", topic], repo, env)
    run(["git", "rebase", "-q", "main"], repo, env)  # its first commit makes the applied list
    first = (time.perf_counter() - start) * 1000
    run(["git", "checkout", "-q", "main"], repo, env)
    with_hook = rebase_ms(repo, env, topic, runs)
    per_without, per_with = without / commits, with_hook / commits
    extra = per_with - per_without
    verdict = "ok" if extra <= REBASE_GOAL_MS else "MISS"
    print(
        f"\n{sessions} sessions ({refs} refs), `git rebase` of {commits} commits, median of {runs}"
    )
    print(f"{'rebase without the hooks':64}{per_without:>8.1f} ms/commit")
    print(f"{'rebase with an empty #!/bin/sh prepare-commit-msg (reference)':64}", end="")
    print(f"{nothing / commits:>8.1f} ms/commit")
    print(f"{'rebase with the hooks':64}{per_with:>8.1f} ms/commit")
    label = "first rebase with the hooks (it makes the applied list)"
    print(f"{label:64}{first / commits:>8.1f} ms/commit")
    print(
        f"{'P7 hook cost per commit':64}{extra:>8.1f} ms   goal <= {REBASE_GOAL_MS:g} ms: {verdict}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--turns", type=int, default=10, help="executed turns in the session")
    parser.add_argument("--sessions", type=int, default=1000, help="sessions, for the rebase")
    parser.add_argument("--commits", type=int, default=30, help="commits the rebase replays")
    parser.add_argument("--rebase-runs", type=int, default=3)
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
        pushed, plain = push_cost(root, env, repo, args.runs)
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
    print(f"{'git push of an ordinary branch, pre-push hook installed':64}{pushed:>8.1f} ms")
    print(f"{'git push of an ordinary branch, no hook':64}{plain:>8.1f} ms")
    print(f"{'  what the hook adds to an ordinary push':64}{pushed - plain:>8.1f} ms")
    nothing = max(ms for label, ms in results[:2])
    verdict = "ok" if nothing < GOAL_MS else "MISS"
    print(f"{'hooks with nothing to do':64}{nothing:>8.1f} ms   goal < {GOAL_MS:g} ms: {verdict}")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        rebase_figures(
            root, sealed_env(root / "home"), args.sessions, args.commits, args.rebase_runs
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
