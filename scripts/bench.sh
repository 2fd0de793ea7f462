#!/usr/bin/env bash
# `make bench`: every benchmark in turn (their repositories cached in benchmarks/.cache/, or
# $TEDDY_BENCH_CACHE), the whole output kept in build/bench-last.txt, then each goal line
# again as a summary: a figure, its ratio to its anchor, the goal and ok or MISS.
# TEDDY_BENCH_FILES scales the 100,000-file repositories down for a quick run (the goals
# are the issue's at the default size only).
set -uo pipefail
cd "$(dirname "$0")/.."
# The cache is made here, on this machine: a symlink left from another checkout (once
# tracked) is replaced by a folder.
cache=benchmarks/.cache
if [ -L "$cache" ]; then
    rm -f "$cache"
fi
mkdir -p build "$cache"
log=build/bench-last.txt
: > "$log"
failed=0
started=$(date +%s)
for bench in snapshot execute context hooks index session_log scale team repomap export plan redact startup refs; do
    echo "== benchmarks/bench_$bench.py" | tee -a "$log"
    python "benchmarks/bench_$bench.py" 2>&1 | tee -a "$log" || {
        failed=1
        echo "== FAILED: benchmarks/bench_$bench.py" | tee -a "$log"
    }
done
echo
echo "== summary: every goal (build/bench-last.txt has the figures)"
echo "== $(($(date +%s) - started)) s in all; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
# A goal line names its goal and ends with its verdict; a split line says where a turn's
# time goes (imports / tokenizer / other Python / git), as issue 31 asks beside its goals.
grep -E "goal.*(ok|MISS|UNDER GOAL)\s*$|/ tokenizer " "$log" | grep -v "^==" || echo "(no goal line printed)"
grep "^== FAILED" "$log"
exit "$failed"
