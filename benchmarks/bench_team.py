"""Benchmark: team transfer at 10, 1,000 and 10,000 sessions (issue 24 item 3): `git teddy
fetch` and `git teddy push` cost what git costs for the same refs, and a no-op fetch does not
grow with the team.

Remotes are generated once under benchmarks/.cache/ (or $TEDDY_BENCH_CACHE) by
bench_scale's builder: copies of one real 10-turn session written by `git fast-import`,
where `git teddy push` puts them (`refs/teddy/sessions/<id>/main`, `refs/teddy/keep/<id>`).

For each size, in fresh clones of the project (its branch only), side by side with plain git
on the same refs in the same run:
- first fetch: `git teddy fetch origin` vs `git fetch origin` of the session and keep refs;
- no-op fetch: the same again, nothing changed (median of a few);
- list: `git teddy list` right after (the fetch brought the index up to date) and once more
  with no index (built from the refs: every session read) vs `git for-each-ref` of the
  fetched session refs;
- first push: every session, as local branches, to a remote with the project only, vs
  `git push` of the same refs; no-op push: the same again.
Goals (ok/MISS): a first fetch or push at most 2x plain git's, a no-op fetch or push at most
1.5x plain git's, each plus git-teddy's start, measured in the same run (`git teddy fetch
--help`: python and the command's imports, which plain git does not pay and which do not
grow with the team); a no-op fetch at 10,000 sessions at most 1.5x the one at 10. Run with
git-teddy on PATH: `PATH=.venv/bin:$PATH .venv/bin/python benchmarks/bench_team.py`.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_scale import make_remote, make_template
from bench_snapshot import CACHE, git, sealed_env

SIZES = (10, 1_000, 10_000)
VERSION = "v2"  # of the generated remotes (v1 chained every session onto the last)
FIRST_GOAL = 2.0  # a first fetch, over plain git's
NOOP_GOAL = 1.5  # a no-op fetch or push, over plain git's (start-up allowance aside)
GROWTH_GOAL = 1.5  # a no-op fetch at the largest size, over the one at the smallest
STARTS = 5  # runs of `git teddy fetch --help`, median taken: git-teddy's start
REPEATS = 3  # no-op runs, median taken
LIST_LIMIT = 300.0  # seconds: a `git teddy list` still running then is stopped (shown as is)
SESSION_REFS = ["+refs/teddy/sessions/*:refs/remotes/origin/teddy/*"]
KEEP_REFS = ["+refs/teddy/keep/*:refs/teddy/keep/*"]
PUSHED_REFS = ["refs/heads/teddy/*:refs/teddy/sessions/*", "refs/teddy/keep/*:refs/teddy/keep/*"]


def cache_root() -> Path:
    return Path(os.environ.get("TEDDY_BENCH_CACHE") or CACHE) / f"team-{VERSION}"


def timed(args: list[str], cwd: Path, env: dict[str, str], limit: float | None = None) -> float:
    """Seconds `args` took; `limit` when it had not ended by then (it is stopped)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return float(limit or 0)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(args)} failed in {cwd}:\n{proc.stderr.decode()}")
    return took


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


# ---- the remotes -------------------------------------------------------------------------


def cached_remotes(env: dict[str, str], sizes: tuple[int, ...]) -> dict[int, Path]:
    """A bare remote per size, generated once (the template session first)."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    template_root = root / "template"
    if not (template_root / "ready").exists():
        shutil.rmtree(template_root, ignore_errors=True)
        template_root.mkdir()
        (template_root / "ready").write_text(make_template(template_root, env)[1])
    session = (template_root / "ready").read_text()
    remotes = {}
    for size in sizes:
        where = root / f"size-{size}"
        if not (where / "ready").exists():
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir()
            start = time.perf_counter()
            make_remote(where, template_root / "template", session, size, env)
            (where / "ready").write_text("")
            print(f"generated {size} sessions in {time.perf_counter() - start:.0f} s ({where})")
        remotes[size] = where / f"remote-{size}.git"
    return remotes


def project_clone(remote: Path, where: Path, env: dict[str, str], linked: bool = False) -> Path:
    """A clone of the project alone (main), `origin` its remote; `linked`: with every object
    of the remote already here (hard links, `git clone --local`), so a fetch moves refs only."""
    if linked:
        git(where.parent, env, "clone", "-q", "--local", str(remote), str(where))
        return where
    git(where.parent, env, "init", "-q", str(where))
    git(where, env, "remote", "add", "origin", str(remote))
    git(where, env, "fetch", "-q", "origin", "refs/heads/main:refs/remotes/origin/main")
    git(where, env, "checkout", "-q", "-b", "main", "origin/main")
    return where


def empty_remote(where: Path, source: Path, env: dict[str, str]) -> Path:
    """A bare remote holding the project alone, added to `source` as `team`."""
    git(where.parent, env, "init", "-q", "--bare", str(where))
    git(source, env, "push", "-q", str(where), "main")
    git(source, env, "remote", "remove", "team") if "team" in git(source, env, "remote") else None
    git(source, env, "remote", "add", "team", str(where))
    return where


# ---- measuring ---------------------------------------------------------------------------


def measure_fetch(remote: Path, tmp: Path, env: dict[str, str], linked: bool) -> dict[str, float]:
    ours = project_clone(remote, tmp / "ours", env, linked)
    plain = project_clone(remote, tmp / "plain", env, linked)
    teddy_fetch = ["git", "teddy", "fetch", "origin"]
    git_fetch = ["git", "fetch", "-q", "--no-tags", "origin", *SESSION_REFS, *KEEP_REFS]
    figures = {"first fetch": timed(teddy_fetch, ours, env)}
    figures["plain first fetch"] = timed(git_fetch, plain, env)
    figures["no-op fetch"] = median_of(REPEATS, lambda: timed(teddy_fetch, ours, env))
    figures["plain no-op fetch"] = median_of(REPEATS, lambda: timed(git_fetch, plain, env))
    start = ["git", "teddy", "fetch", "--help"]
    figures["start"] = median_of(STARTS, lambda: timed(start, ours, env))
    figures["list"] = timed(["git", "teddy", "list"], ours, env, LIST_LIMIT)
    (ours / ".git" / "teddy" / "index.toon").unlink(missing_ok=True)
    figures["list, no index"] = timed(["git", "teddy", "list"], ours, env, LIST_LIMIT)
    listing = ["git", "for-each-ref", "refs/remotes/origin/teddy/"]
    figures["plain list"] = median_of(REPEATS, lambda: timed(listing, ours, env))
    return figures


def measure_push(remote: Path, tmp: Path, env: dict[str, str], linked: bool) -> dict[str, float]:
    """Sessions as local branches (as their author has them), pushed to a remote with the
    project alone; then pushed again (nothing to send). `linked`: the no-op push alone, to
    the remote they came from."""
    source = project_clone(remote, tmp / "author", env, linked)
    git(source, env, "fetch", "-q", "--no-tags", "origin",
        "+refs/teddy/sessions/*:refs/heads/teddy/*", *KEEP_REFS)  # fmt: skip
    git(source, env, "pack-refs", "--all")
    teddy_push = ["git", "teddy", "push", "team"]
    git_push = ["git", "push", "-q", "team", *PUSHED_REFS]
    if linked:
        git(source, env, "remote", "add", "team", str(remote))
        return {
            "no-op push": median_of(REPEATS, lambda: timed(teddy_push, source, env)),
            "plain no-op push": median_of(REPEATS, lambda: timed(git_push, source, env)),
        }
    empty_remote(tmp / "ours.git", source, env)
    figures = {"first push": timed(teddy_push, source, env)}
    figures["no-op push"] = median_of(REPEATS, lambda: timed(teddy_push, source, env))
    empty_remote(tmp / "plain.git", source, env)
    figures["plain first push"] = timed(git_push, source, env)
    figures["plain no-op push"] = median_of(REPEATS, lambda: timed(git_push, source, env))
    return figures


def line(
    name: str, ours: float, plain: float, goal: float | None, allowance: float = 0, vs: str = "git"
) -> None:
    """A figure, its ratio to plain git's (or to the smallest team's), and the goal's
    verdict (no goal: information)."""
    ratio = ours / plain if plain else float("inf")
    text = f"{name:<26} {ours * 1000:8.0f} ms vs {vs:>3} {plain * 1000:8.0f} ms  {ratio:6.2f}x"
    if goal is not None:
        met = ours <= goal * plain + allowance
        extra = f" + start {allowance * 1000:.0f} ms" if allowance else ""
        text += f"  goal <= {goal:g}x{extra}  {'ok' if met else 'MISS'}"
    print(text)


def report(size: int, figures: dict[str, float], linked: bool) -> None:
    start = figures["start"]
    objects = ", objects already here" if linked else ""
    print(f"-- {size} sessions (git-teddy's start: {start * 1000:.0f} ms{objects})")
    for kind, goal in (("first", None if linked else FIRST_GOAL), ("no-op", NOOP_GOAL)):
        for action in ("fetch", "push"):
            name = f"{kind} {action}"
            if name in figures:
                line(f"{name} ({size})", figures[name], figures[f"plain {name}"], goal, start)
    line(f"list ({size})", figures["list"], figures["plain list"], None)
    line(f"list, no index ({size})", figures["list, no index"], figures["plain list"], None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--no-push", action="store_true", help="measure fetch and list only")
    parser.add_argument(
        "--linked",
        action="store_true",
        help="clones that have every object already (hard links): no-op figures only, fast at"
        " any size (a first fetch then moves refs alone, so it has no goal)",
    )
    args = parser.parse_args()
    sizes = tuple(sorted(args.sizes))
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="teddy-bench-team-") as home:
        env = sealed_env(Path(home))
        remotes = cached_remotes(env, sizes)
        for size in sizes:
            # Beside the remotes: hard links need the same file system.
            with tempfile.TemporaryDirectory(prefix="run-", dir=cache_root()) as tmp:
                figures = measure_fetch(remotes[size], Path(tmp), env, args.linked)
                if not args.no_push:
                    figures |= measure_push(remotes[size], Path(tmp), env, args.linked)
                report(size, figures, args.linked)  # before the clones' slow removal
                sys.stdout.flush()
            results[size] = figures
    small, big = results[sizes[0]], results[sizes[-1]]
    if len(sizes) > 1:
        print(f"-- growth from {sizes[0]} to {sizes[-1]} sessions")
        line("no-op fetch growth", big["no-op fetch"], small["no-op fetch"], GROWTH_GOAL, 0, "")
        line("plain no-op fetch growth", big["plain no-op fetch"], small["plain no-op fetch"],
             None, 0, "")  # fmt: skip


if __name__ == "__main__":
    main()
