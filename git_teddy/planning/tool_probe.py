"""The developer tools on PATH and their versions, and what `import <package>` finds from the
project root: each probe a process with a timeout, all cached in `system/tools.json`.

The cache holds while its stamp holds: the executables found on PATH for every probed name,
each by path, size and modification time (stat calls, no process). A tool installed, removed
or upgraded changes the stamp, and the probes run again; the stamp is also part of the key
of `git teddy context`'s cached answers (planning/context_cache.py), which is why this
module needs nothing beyond a lean part of the standard library.
"""

import json
import os
import zlib
from collections.abc import Callable
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore.permissions import Shared

PROBE_TIMEOUT = 5.0  # seconds per probe: a tool that hangs is shown as "version unknown"
MAX_IMPORT_ENTRIES = 8
# The developer tools probed on PATH: (name shown, arguments that print its version).
TOOL_PROBES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("python3", ("--version",)),
    ("pip", ("--version",)),
    ("uv", ("--version",)),
    ("pytest", ("--version",)),
    ("ruff", ("--version",)),
    ("mypy", ("--version",)),
    ("black", ("--version",)),
    ("tox", ("--version",)),
    ("nox", ("--version",)),
    ("node", ("--version",)),
    ("npm", ("--version",)),
    ("yarn", ("--version",)),
    ("pnpm", ("--version",)),
    ("make", ("--version",)),
    ("cargo", ("--version",)),
    ("go", ("version",)),
)
# Where a top-level module is found, without running it (find_spec of a top-level name
# imports nothing of the project).
FIND_SPEC = (
    "import importlib.util as u, sys\n"
    "s = u.find_spec(sys.argv[1])\n"
    "locations = list(s.submodule_search_locations or []) if s else []\n"
    "print((s.origin if s and s.origin not in (None, 'namespace') else '')"
    " or (locations[0] if locations else ''))\n"
)


def which(name: str) -> str | None:
    """The executable `name` resolves to on PATH, as a shell would find it."""
    for folder in os.get_exec_path():
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _executable_stamp(name: str) -> list[object]:
    """The executable `name` on PATH: its path, size and modification time ([name]: none)."""
    path = which(name)
    try:
        stat = os.stat(path) if path else None
    except OSError:
        stat = None
    return [name, path, stat.st_size, stat.st_mtime_ns] if stat else [name]


def tools_stamp() -> str:
    """Which executables the probes would run: their paths, sizes and modification times."""
    found = [_executable_stamp(name) for name, _ in TOOL_PROBES]
    return f"{zlib.crc32(json.dumps(found).encode()):08x}"


def _run(argv: list[str], cwd: Path | None = None) -> str | None:
    """The output of a probe, or None when it fails or times out."""
    import subprocess

    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=PROBE_TIMEOUT,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout or done.stderr


def _read(cache_file: Path) -> dict[str, object]:
    try:
        data = json.loads(cache_file.read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(cache_file: Path, data: dict[str, object], shared: Shared) -> None:
    """Atomically (a temporary file renamed); a folder that cannot be written costs a probe
    next time, nothing else."""
    import tempfile

    try:
        shared.make_folders(cache_file.parent)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=cache_file.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, separators=(",", ":"))
        shared.adjust(tmp)
        os.replace(tmp, cache_file)
    except (OSError, TeddyError):  # TeddyError: a file where the folder should be
        return


class Probes:
    """The probes of one repository's derived-state folder (`cache_file`), cached."""

    def __init__(self, cache_file: Path, shared: Shared) -> None:
        self.cache_file = cache_file
        self.shared = shared
        self.stamp = tools_stamp()
        data = _read(cache_file)
        self.data: dict[str, object] = data if data.get("stamp") == self.stamp else {}
        self.data["stamp"] = self.stamp

    def tools(self) -> list[tuple[str, str | None]]:
        """Each probed tool with its `--version` output ("" when it gave none), or None
        when it is not on PATH; probed in parallel, once per stamp."""
        cached = self.data.get("tools")
        if isinstance(cached, list) and len(cached) == len(TOOL_PROBES):
            return [(str(name), out if isinstance(out, str) else None) for name, out in cached]
        from concurrent.futures import ThreadPoolExecutor

        def probe(item: tuple[str, tuple[str, ...]]) -> tuple[str, str | None]:
            name, args = item
            path = which(name)
            if path is None:
                return name, None
            return name, _run([path, *args]) or ""

        with ThreadPoolExecutor(4) as pool:
            found = list(pool.map(probe, TOOL_PROBES))
        self.data["tools"] = [list(item) for item in found]
        _write(self.cache_file, self.data, self.shared)
        return found

    def git_version(self, ask: Callable[[], str]) -> str:
        """git's version, `ask`ed (of gitstore) once per state of the `git` on PATH: every
        `plan` shows it, and it changes only with that executable."""
        stamp = _executable_stamp("git")
        cached = self.data.get("git")
        known = isinstance(cached, list) and len(cached) == 2 and cached[0] == stamp
        if known and isinstance(cached, list) and isinstance(cached[1], str):
            return cached[1]
        version = ask()
        self.data["git"] = [stamp, version]
        _write(self.cache_file, self.data, self.shared)
        return version

    def import_origin(self, module: str, toplevel: Path, tree: str) -> tuple[bool, str | None]:
        """Whether `python3` could be asked, and the file `import <module>` finds from the
        project root (None: nothing). Cached by the snapshot's tree and the stamp."""
        key = json.dumps([tree, module, str(toplevel), os.environ.get("PYTHONPATH", "")])
        imports = self.data.get("imports")
        known = dict(imports) if isinstance(imports, dict) else {}
        if key in known:
            origin = known[key]
            return True, origin if isinstance(origin, str) and origin else None
        python = which("python3") or which("python")
        if python is None:
            return False, None
        output = _run([python, "-c", FIND_SPEC, module], cwd=toplevel)
        if output is None:
            return False, None
        origin = output.strip() or None
        known[key] = origin or ""
        self.data["imports"] = dict(list(known.items())[-MAX_IMPORT_ENTRIES:])
        _write(self.cache_file, self.data, self.shared)
        return True, origin
