"""Peak memory of a command, for the tests that bound teddy's memory whatever the size of
what it reads: the command runs under a fresh Python process that reports the largest
resident set among its descendants (`RUSAGE_CHILDREN`), so nothing this test process ran
before counts; a memory bound, not a time bound."""

import json
import subprocess
import sys
from pathlib import Path

_MEASURE = """
import json, resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    proc = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.PIPE)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": proc.returncode, "peak_kib": peak,
                  "stderr": proc.stderr.decode("utf-8", "replace")[-20000:]}))
"""


def peak_rss(args: list[str], cwd: Path, env: dict[str, str], out: Path) -> tuple[int, float, str]:
    """`args` run in `cwd`, its stdout written to `out`: its exit status, the peak resident
    set of it and its descendants in MiB (the largest one's, as Linux reports `ru_maxrss`),
    and its stderr."""
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(out), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    found = json.loads(proc.stdout)
    return found["rc"], found["peak_kib"] / 1024, found["stderr"]
