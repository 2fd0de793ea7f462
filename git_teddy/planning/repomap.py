"""A context's repository map and system information: read from git and the platform, cached
by tree id in the derived-state folder, rendered by artifacts/repomap.py (pure).

The map depends on the snapshot's tree, the budget and the focus: the tracked files the
context lists or the message names. Two caches serve it, both keyed by content:
`teddy/repomap/paths/<tree>.json` holds a tree's tracked paths (to find the focus of a new
message without listing the tree again) and `teddy/repomap/<tree>-<crc>.json` the map for a
budget and focus. A new message that names no other file than the last one reads two
files; only a new tree or a new focus renders again. The system facts are not stored (git
or the shell may change between runs without the tree changing); they cost one
`git --version`.
"""

import json
import os
import platform
import zlib
from pathlib import Path

from git_teddy.artifacts.repomap import (
    MANIFESTS,
    SystemFacts,
    TrackedFile,
    detect_tools,
    mentioned,
    most_shown,
    rank,
    render_map,
    render_system_info,
    select,
)
from git_teddy.artifacts.symbols import Symbol, file_symbols, has_symbols, mentioned_names
from git_teddy.gitstore.repo import GitRepo
from git_teddy.planning.context_cache import write_entry

# bump when an entry's layout or the rendering changes (4: listings made in a subdirectory
# held only that subdirectory, issue 26)
FORMAT = 4
MAX_ENTRIES = 32
MAX_PATH_LISTS = 8  # one per recent tree: a 100,000-file list is a few MB
MAX_PYTHON_BYTES = 200_000  # bigger source files are listed without their symbols
MAX_SEARCHED = 2_000  # source files searched for the symbols a message names


def system_facts(repo: GitRepo) -> SystemFacts:
    return SystemFacts(
        os=f"{platform.system()} {platform.release()} ({platform.machine()})",
        shell=os.environ.get("SHELL") or os.environ.get("COMSPEC") or "unknown",
        git=repo.git_version(),
        python=platform.python_version(),
    )


def _entry_path(repo: GitRepo, tree: str, key: str) -> Path:
    return repo.layout.repo_map_cache / f"{tree}-{zlib.crc32(key.encode()):08x}.json"


def _read_entry(path: Path, key: str) -> tuple[list[str], str] | None:
    try:
        entry = json.loads(path.read_bytes())
        tools, text = entry["tools"], entry["map"]
        valid = entry["key"] == key and entry["check"] == zlib.crc32(text.encode())
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None  # missing or damaged: computed again
    if not valid or not isinstance(text, str) or not isinstance(tools, list):
        return None
    return [str(tool) for tool in tools], text


def _symbols(
    repo: GitRepo, files: list[TrackedFile], blobs: dict[str, str]
) -> dict[str, list[Symbol]]:
    """The symbols of the source files among `files` (`blobs`: their object ids)."""
    found = {}
    for file in files:
        if has_symbols(file.path) and 0 < file.size <= MAX_PYTHON_BYTES:
            data = repo.read_object(blobs[file.path])
            found[file.path] = file_symbols(file.path, data.decode("utf-8", "replace"))
    return found


def _tracked_paths(repo: GitRepo, tree: str) -> list[str]:
    """The paths `tree` tracks, from their cache or from git (then stored)."""
    path = repo.layout.repo_map_cache / "paths" / f"{tree}.json"
    try:
        entry = json.loads(path.read_bytes())
        paths = entry["paths"]
        if (
            entry["tree"] == tree
            and entry.get("format") == FORMAT
            and entry["check"] == zlib.crc32("\n".join(paths).encode())
        ):
            return [str(p) for p in paths]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass  # missing or damaged: listed again
    paths = [name for name, _, _ in repo.list_files_sized(tree)]
    entry = {
        "tree": tree,
        "format": FORMAT,
        "paths": paths,
        "check": zlib.crc32("\n".join(paths).encode()),
    }
    write_entry(path, entry, repo.layout.shared, keep=MAX_PATH_LISTS)
    return paths


def _naming(
    repo: GitRepo, files: list[TrackedFile], blobs: dict[str, str], names: frozenset[str]
) -> dict[str, list[Symbol]]:
    """The symbols of the source files (the first MAX_SEARCHED) that define a symbol of
    `names` or use one (its callers): only the files whose text has a name are parsed."""
    sources = [f for f in files if has_symbols(f.path) and 0 < f.size <= MAX_PYTHON_BYTES]
    found = {}
    for file in sources[:MAX_SEARCHED]:
        data = repo.read_object(blobs[file.path])
        if any(name.encode() in data for name in names):
            symbols = file_symbols(file.path, data.decode("utf-8", "replace"))
            if any(s.name in names or s.refs & names for s in symbols):
                found[file.path] = symbols
    return found


def _compute(
    repo: GitRepo, tree: str, focus: set[str], budget: int, names: frozenset[str]
) -> tuple[list[str], str]:
    listing = repo.list_files_sized(tree)
    files = [TrackedFile(path, size) for path, size, _ in listing]
    blobs = {path: oid for path, _, oid in listing}
    paths = list(blobs)
    manifests = {
        name: (repo.read_file(tree, name) or b"").decode("utf-8", "replace") for name in MANIFESTS
    }
    # The files defining or calling a symbol the message names come first, with the named
    # ones. Which other files could be shown: those that fit without symbols; then, with
    # their symbols, render_map keeps those that still fit.
    named = _naming(repo, files, blobs, names) if names else {}
    ranked = rank(files, focus | set(named), most_shown(budget))
    more = [f for f in select(ranked, budget, {}) if f.path not in named]
    symbols = {**named, **_symbols(repo, more, blobs)}
    text = render_map(ranked, len(files), budget, symbols, names)
    return detect_tools(paths, manifests), text


def repository_overview(
    repo: GitRepo, tree: str, names: list[str], message: str, budget: int
) -> str:
    """System information and the repository map of `tree` ("" when `budget` is 0): `names`
    are the context's resources, `message` the user's; both decide what is shown first."""
    if budget <= 0:
        return ""
    paths = _tracked_paths(repo, tree)
    focus = set(names).intersection(paths) | mentioned(paths, [message])
    symbol_names = mentioned_names(message)
    key = json.dumps(
        [FORMAT, tree, budget, sorted(focus), sorted(symbol_names)], ensure_ascii=False
    )
    path = _entry_path(repo, tree, key)
    hit = _read_entry(path, key)
    if hit is None:
        hit = _compute(repo, tree, focus, budget, symbol_names)
        tools, text = hit
        entry = {"key": key, "tools": tools, "map": text, "check": zlib.crc32(text.encode())}
        write_entry(path, entry, repo.layout.shared, keep=MAX_ENTRIES)
    tools, text = hit
    return f"{render_system_info(system_facts(repo), tools)}\n{text}"
