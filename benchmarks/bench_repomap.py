"""Benchmark: the repository map of a context on a 100,000-file repository, cold (nothing
cached: `git ls-tree -r -l`, ranking, Python symbols, rendering), warm (cached by tree id)
and for a new message naming no file (what each `plan` asks: the tree's paths and the map
read from their caches), as a ratio to `git ls-files` timed in the same run. Goal: warm
<= 1.5x `git ls-files`.

Generates once, under benchmarks/.cache/ (git-ignored), a committed repository of 100,000
files in 100 folders, one in ten a small Python module, then prints median times. The map is
computed in this process, as `plan` and `context` compute it (the tree id known from the
turn's snapshot). Asserts nothing. Run with `make bench`.
"""

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench_snapshot import CACHE, FILES, git, sealed_env, timed

WARM_GOAL = 1.5
BUDGET = 1024


def file_path(number: int, dirs: int) -> str:
    suffix = "py" if number % 10 == 0 else "txt"
    return f"pkg-{number % dirs:03d}/mod_{number // dirs:05d}.{suffix}"


def content(number: int) -> bytes:
    if number % 10 == 0:
        return f"class Thing{number}:\n    def run(self):\n        return {number}\n".encode()
    return f"line of file {number}\n".encode()


def fast_import_stream(files: int, dirs: int) -> Iterator[bytes]:
    yield b"commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\n"
    yield b"data 8\ninitial\n"
    yield b"M 100644 inline pyproject.toml\ndata 26\n[tool.pytest.ini_options]\n\n"
    for number in range(files - 1):
        data = content(number)
        yield f"M 100644 inline {file_path(number, dirs)}\n".encode()
        yield b"data %d\n%s\n" % (len(data), data)


def prepare(repo: Path, env: dict[str, str], files: int, dirs: int) -> None:
    marker = repo / ".git" / "bench-complete"
    if marker.exists() and marker.read_text() == f"{files} {dirs}\n":
        return
    print(f"generating {files} files in {dirs} folders under {repo} (once) ...", flush=True)
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    git(repo, env, "init", "-q", "-b", "main")
    git(repo, env, "fast-import", "--quiet", stdin=b"".join(fast_import_stream(files, dirs)))
    git(repo, env, "reset", "-q", "--hard", "main")
    marker.write_text(f"{files} {dirs}\n")


def median(action: Callable[[], object], runs: int, before: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        before()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--dirs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = sealed_env(Path(home))
        repo = CACHE / f"repomap-{args.files}"
        prepare(repo, env, args.files, args.dirs)
        import os

        os.environ.update(env)  # this process's git calls run in the sealed environment
        from git_teddy.gitstore.repo import GitRepo
        from git_teddy.planning.repomap import repository_overview

        git_repo = GitRepo.discover(repo)
        tree = git(repo, env, "rev-parse", "HEAD^{tree}").strip()
        cache = git_repo.layout.repo_map_cache

        def overview() -> str:
            return repository_overview(git_repo, tree, [], "", BUDGET)

        def clear() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        timed(["git", "ls-files"], repo, env)
        ls_files = statistics.median(
            timed(["git", "ls-files"], repo, env) for _ in range(args.runs)
        )
        cold = median(overview, args.runs, clear)
        overview()
        warm = median(overview, args.runs, lambda: None)
        messages = iter(range(10**6))

        def new_message() -> str:  # what each `plan` asks: a message never seen
            return repository_overview(git_repo, tree, [], f"change {next(messages)}", BUDGET)

        fresh = median(new_message, args.runs, lambda: None)
        text = overview()
    shown = text.count("\n")
    print(f"\nrepository map of {args.files} files ({BUDGET} tokens, {shown} lines)")
    print(f"median of {args.runs} runs\n")
    print(f"{'git ls-files':28}{ls_files:>10.3f}s")
    print(f"{'map, cold':28}{cold:>10.3f}s{cold / ls_files:>9.1f}x")
    print(f"{'map, warm (cached)':28}{warm:>10.3f}s{warm / ls_files:>9.2f}x")
    print(f"{'map, a new message':28}{fresh:>10.3f}s{fresh / ls_files:>9.2f}x")
    verdict = "ok" if warm <= WARM_GOAL * ls_files else "MISS"
    print(f"\ngoal: warm <= {WARM_GOAL}x git ls-files: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
