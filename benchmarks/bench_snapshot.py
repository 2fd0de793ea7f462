"""Benchmark: does `git teddy new` (which snapshots the working tree) cost what `git status`
costs in a large repository, and does `git teddy --version` start fast?

Generates once, under benchmarks/.cache/ (git-ignored), a committed repository of 100,000
small files in 100 folders, then prints median times. Run with `make bench` (git-teddy must be
on PATH). Everything runs in a sealed git environment: temporary HOME, no system config.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

# Made by `make bench` (scripts/bench.sh) on this machine; $TEDDY_BENCH_CACHE elsewhere.
CACHE = Path(os.environ.get("TEDDY_BENCH_CACHE") or Path(__file__).resolve().parent / ".cache")
# The large repositories' size: the issues' goals are for 100,000 files; a smaller size
# (TEDDY_BENCH_FILES=20000) makes a quick run whose verdicts are only indicative.
FILES = int(os.environ.get("TEDDY_BENCH_FILES") or 100_000)
STARTUP_GOAL = 0.2  # seconds, for `git teddy --version`
MODIFIED = 10
P2_GOAL = 1.5  # issue 16 P2: `git teddy new` (a snapshot) costs at most this times `git status`


def sealed_env(home: Path) -> dict[str, str]:
    """No user or system git config, a fixed identity: results don't depend on the machine."""
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_AUTHOR_NAME": "Bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "Bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
    }


def git(repo: Path, env: dict[str, str], *args: str, stdin: bytes | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=repo, env=env, input=stdin, capture_output=True, check=False
    )
    if proc.returncode != 0:
        sys.exit(f"error: git {' '.join(args)} failed:\n{proc.stderr.decode()}")
    return proc.stdout.decode()


def file_path(number: int, dirs: int) -> str:
    return f"dir-{number % dirs:03d}/file-{number // dirs:05d}.txt"


def fast_import_stream(files: int, dirs: int) -> Iterator[bytes]:
    """One commit holding every file, as a `git fast-import` stream (far faster than
    writing files and running `git add`)."""
    yield b"commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\n"
    yield b"data 8\ninitial\n"
    for number in range(files):
        content = f"line of file {number}\n".encode()
        yield f"M 100644 inline {file_path(number, dirs)}\n".encode()
        yield b"data %d\n%s\n" % (len(content), content)


def generate(repo: Path, env: dict[str, str], files: int, dirs: int) -> None:
    print(f"generating {files} files in {dirs} folders under {repo} (once) ...", flush=True)
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    git(repo, env, "init", "-q", "-b", "main")
    git(repo, env, "fast-import", "--quiet", stdin=b"".join(fast_import_stream(files, dirs)))
    git(repo, env, "reset", "-q", "--hard", "main")
    time.sleep(1.1)  # past the index's mtime, so the refresh below clears racily-clean entries
    git(repo, env, "status", "--porcelain")
    (repo / ".git" / "bench-complete").write_text(f"{files} {dirs}\n")


def prepare(repo: Path, env: dict[str, str], files: int, dirs: int) -> None:
    marker = repo / ".git" / "bench-complete"
    if not marker.exists() or marker.read_text() != f"{files} {dirs}\n":
        generate(repo, env, files, dirs)
    # Sessions left by earlier runs would be refs to scan: start each run without them.
    refs = git(repo, env, "for-each-ref", "--format=delete %(refname)", "refs/teddy/")
    refs += git(repo, env, "for-each-ref", "--format=delete %(refname)", "refs/heads/teddy/")
    git(repo, env, "update-ref", "--stdin", stdin=refs.encode())
    git(repo, env, "reset", "-q", "--hard", "main")
    git(repo, env, "status", "--porcelain")


def timed(args: Sequence[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed:\n{proc.stderr.decode()}")
    return elapsed


def traced(args: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """`timed`, and how much of it the git processes it started took (their trace2 exit
    events' elapsed times): the part of a command that grows with the repository; the rest
    is Python (start-up, imports, models)."""
    with tempfile.NamedTemporaryFile(suffix=".trace2") as trace:
        total = timed(args, cwd, {**env, "GIT_TRACE2_EVENT": trace.name})
        events = [json.loads(line) for line in Path(trace.name).read_text().splitlines()]
    # `git teddy` is git's own process (a session id without "/"); the git processes
    # git-teddy starts are its children ("<sid>/<sid>"), theirs one level deeper
    git_seconds = sum(
        event["t_abs"]
        for event in events
        if event["event"] == "exit" and event["sid"].count("/") == 1
    )
    return total, git_seconds


class Runner:
    """Medians of `runs` timings after one warm-up; session names never repeat."""

    def __init__(self, repo: Path, env: dict[str, str], runs: int) -> None:
        self.repo, self.env, self.runs, self.sessions = repo, env, runs, 0

    def teddy_new(self) -> list[str]:
        self.sessions += 1
        return ["git", "teddy", "new", f"bench-{self.sessions}"]

    def status_and_new(self) -> tuple[float, float, float]:
        """Medians of `git status`, `git teddy new` and of the git processes within it,
        taken in turns: the shared machine's noise hits both alike."""
        timed(["git", "status"], self.repo, self.env)
        timed(self.teddy_new(), self.repo, self.env)
        status, new, git_part = [], [], []
        for _ in range(self.runs):
            status.append(timed(["git", "status"], self.repo, self.env))
            total, in_git = traced(self.teddy_new(), self.repo, self.env)
            new.append(total)
            git_part.append(in_git)
        return statistics.median(status), statistics.median(new), statistics.median(git_part)


def modify(repo: Path, files: int, dirs: int) -> list[str]:
    step = files // MODIFIED
    paths = [file_path(i * step, dirs) for i in range(MODIFIED)]
    for path in paths:
        with (repo / path).open("a") as handle:
            handle.write("modified\n")
    return paths


def startup(env: dict[str, str], cwd: Path, runs: int) -> tuple[float, float]:
    def median(args: list[str]) -> float:
        timed(args, cwd, env)
        return statistics.median(timed(args, cwd, env) for _ in range(runs))

    return median([sys.executable, "-c", "pass"]), median(["git", "teddy", "--version"])


def report(
    files: int,
    dirs: int,
    runs: int,
    clean: tuple[float, float, float],
    dirty: tuple[float, float, float],
    boot: tuple[float, float],
) -> None:
    print(f"\nrepository of {files} files in {dirs} folders; median of {runs} runs\n")
    print(f"{'':28}{'clean tree':>12}{f'{MODIFIED} modified':>14}")
    print(f"{'git status':28}{clean[0]:>11.3f}s{dirty[0]:>13.3f}s")
    print(f"{'git teddy new':28}{clean[1]:>11.3f}s{dirty[1]:>13.3f}s")
    print(f"{'  of which git processes':28}{clean[2]:>11.3f}s{dirty[2]:>13.3f}s")
    ratios = (clean[1] / clean[0], dirty[1] / dirty[0])
    print(f"{'teddy new / git status':28}{ratios[0]:>11.2f}x{ratios[1]:>13.2f}x")
    in_git = (clean[2] / clean[0], dirty[2] / dirty[0])
    print(f"{'  its git part / git status':28}{in_git[0]:>11.2f}x{in_git[1]:>13.2f}x")
    for name, ratio in zip(("clean", f"{MODIFIED} modified"), ratios, strict=True):
        verdict = "ok" if ratio <= P2_GOAL else "MISS"
        line = f"P2 new / git status ({name})"
        print(f"{line:40}{ratio:>8.2f}x   goal <= {P2_GOAL:g}x: {verdict}")
    python, teddy = boot
    verdict = "ok" if teddy < STARTUP_GOAL else "MISS"
    print(f"\n{'start-up':28}{'median':>12}")
    print(f"{'python -c pass':28}{python:>11.3f}s")
    print(f"{'git teddy --version':28}{teddy:>11.3f}s   goal < {STARTUP_GOAL} s: {verdict}")
    print(f"{'ratio':28}{teddy / python:>11.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--dirs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure")
    args = parser.parse_args()
    if shutil.which("git-teddy") is None:
        sys.exit("error: git-teddy is not on PATH\nhint: run `make bench`")
    repo = CACHE / f"repo-{args.files}-{args.dirs}"
    with tempfile.TemporaryDirectory(prefix="teddy-bench-") as home:
        env = sealed_env(Path(home))
        prepare(repo, env, args.files, args.dirs)
        runner = Runner(repo, env, args.runs)
        clean = runner.status_and_new()
        changed = modify(repo, args.files, args.dirs)
        try:
            dirty = runner.status_and_new()
        finally:
            git(repo, env, "checkout", "-q", "--", *changed)
        boot = startup(env, repo, args.runs)
    report(args.files, args.dirs, args.runs, clean, dirty, boot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
