#!/usr/bin/env bash
# `make bench`: every benchmark in turn (their repositories cached in benchmarks/.cache/),
# the whole output kept in build/bench-last.txt, then each goal line again as a summary:
# a figure, its ratio to its anchor, the goal and ok or MISS.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
log=build/bench-last.txt
: > "$log"
failed=0
for bench in snapshot execute context hooks index session_log scale team repomap export plan redact startup refs; do
    echo "== benchmarks/bench_$bench.py" | tee -a "$log"
    python "benchmarks/bench_$bench.py" 2>&1 | tee -a "$log" || failed=1
done
echo
echo "== summary: every goal (build/bench-last.txt has the figures)"
grep -E "(ok|MISS)\s*$" "$log" | grep -v "^==" || echo "(no goal line printed)"
exit "$failed"
