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
    python_symbols,
    rank,
    render_map,
    render_system_info,
    select,
)
from git_teddy.gitstore.repo import GitRepo
from git_teddy.planning.context_cache import write_entry

# bump when an entry's layout or the rendering changes (3: listings made in a subdirectory
# held only that subdirectory, issue 26)
FORMAT = 3
MAX_ENTRIES = 32
MAX_PATH_LISTS = 8  # one per recent tree: a 100,000-file list is a few MB
MAX_PYTHON_BYTES = 200_000  # bigger modules are listed without their symbols


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
) -> dict[str, list[str]]:
    """Top-level symbols of the Python files among `files` (`blobs`: their object ids)."""
    found = {}
    for file in files:
        if file.path.endswith(".py") and 0 < file.size <= MAX_PYTHON_BYTES:
            data = repo.read_object(blobs[file.path])
            found[file.path] = python_symbols(data.decode("utf-8", "replace"))
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


def _compute(repo: GitRepo, tree: str, focus: set[str], budget: int) -> tuple[list[str], str]:
    listing = repo.list_files_sized(tree)
    files = [TrackedFile(path, size) for path, size, _ in listing]
    blobs = {path: oid for path, _, oid in listing}
    paths = list(blobs)
    manifests = {
        name: (repo.read_file(tree, name) or b"").decode("utf-8", "replace") for name in MANIFESTS
    }
    # Which Python files could be shown: those that fit without symbols; then, with their
    # symbols, render_map keeps those that still fit.
    ranked = rank(files, focus, most_shown(budget))
    symbols = _symbols(repo, select(ranked, budget, {}), blobs)
    return detect_tools(paths, manifests), render_map(ranked, len(files), budget, symbols)


def repository_overview(
    repo: GitRepo, tree: str, names: list[str], message: str, budget: int
) -> str:
    """System information and the repository map of `tree` ("" when `budget` is 0): `names`
    are the context's resources, `message` the user's; both decide what is shown first."""
    if budget <= 0:
        return ""
    paths = _tracked_paths(repo, tree)
    focus = set(names).intersection(paths) | mentioned(paths, [message])
    key = json.dumps([FORMAT, tree, budget, sorted(focus)], ensure_ascii=False)
    path = _entry_path(repo, tree, key)
    hit = _read_entry(path, key)
    if hit is None:
        hit = _compute(repo, tree, focus, budget)
        tools, text = hit
        entry = {"key": key, "tools": tools, "map": text, "check": zlib.crc32(text.encode())}
        write_entry(path, entry, repo.layout.shared, keep=MAX_ENTRIES)
    tools, text = hit
    return f"{render_system_info(system_facts(repo), tools)}\n{text}"
