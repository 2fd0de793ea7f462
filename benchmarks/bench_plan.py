"""Benchmark: sanitize + parse + validate of a generated plan of more than 1 MB, beside the time
CommonMark alone takes to parse the same text. Goal: within 2x of CommonMark alone.

The plan repeats CREATE / EDIT / EXECUTE actions whose fences are nested with equal lengths,
the way models write them, so the sanitizer has real work to do. Prints median times of a
few runs; asserts nothing. Run with `make bench`, or `python benchmarks/bench_plan.py`.
"""

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import commonmark

from git_teddy.artifacts.plan import check_plan, sanitize

# The same generated plan the corpus test parses.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "plan"))
from big_plan import big_plan

GOAL = 2.0
_SUFFIXES = itertools.count(1)  # a text never timed twice, by any of the measures


def median_time(work: Callable[[str], object], text: str, runs: int) -> float:
    """The median time of `work` on `text`; each run gets a text of its own (one more
    trailing newline), as git-teddy keeps the answers for the texts it read last."""
    times = []
    for _ in range(runs):
        fresh = text + "\n" * next(_SUFFIXES)
        start = time.perf_counter()
        work(fresh)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_050_000, help="plan size in bytes")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    text, _chunks = big_plan(args.size)
    plan, problems = check_plan(text)
    assert plan is not None, problems  # a benchmark of a failing parse would mean nothing
    clean = sanitize(text)

    ours = median_time(check_plan, text, args.runs)
    sanitizing = median_time(sanitize, text, args.runs)
    alone = median_time(lambda fresh: commonmark.Parser().parse(fresh), clean, args.runs)
    ratio = ours / alone

    print(f"plan: {len(text.encode()):,} bytes, {len(plan.actions):,} actions")
    print(f"commonmark parse alone:          {alone * 1000:8.1f} ms")
    print(f"sanitize + parse + validate:     {ours * 1000:8.1f} ms")
    print(f"  of which sanitize:             {sanitizing * 1000:8.1f} ms")
    verdict = "ok" if ratio <= GOAL else "MISS"
    print(f"plan parse: {ratio:.2f}x commonmark alone   goal <= {GOAL:g}x: {verdict}")


if __name__ == "__main__":
    main()
