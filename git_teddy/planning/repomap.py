"""A context's repository map and system information: read from git and the platform, cached
by tree id in the derived-state folder, rendered by artifacts/repomap.py (pure).

The map depends on the snapshot's tree, the budget and the focus: the tracked files the
context lists or the message names. Two caches serve it, both keyed by content:
`teddy/repomap/trees/<tree>.json` holds a tree's listing (its files by centrality with
their sizes and blobs, what the tools are found from, the symbols read so far by blob) and
`teddy/repomap/<tree>-<crc>.json` the map for a budget and focus. A new message that names
no other file than the last one reads two files; only a new tree or a new focus renders
again. A new tree's listing is the newest listing updated by the diff between the two
trees (one `git diff-tree`, the sizes of the changed blobs, each changed path placed by
bisection, the symbols of the changed files read again): a turn that changed three files
pays for three files, not for the tree. Only the first tree (or one whose previous listing
is gone) is listed whole. The listing's census also holds what System Information tells
the project from (root files and folders, packages), so no folder is read for it. The system
information is planning/system_info.py's (its tool probes cached by what is on PATH).
"""

import gc
import json
import marshal
import zlib
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

from git_teddy.artifacts.repomap import (
    MANIFESTS,
    Census,
    TrackedFile,
    in_order,
    mentioned,
    most_shown,
    rank,
    render_map,
    reorder,
    select,
)
from git_teddy.artifacts.symbols import Symbol, file_symbols, has_symbols, mentioned_names
from git_teddy.gitstore.repo import GitRepo
from git_teddy.gitstore.runner import GitFailed
from git_teddy.planning.context_cache import write_derived, write_entry
from git_teddy.planning.system_info import system_information

# bump when an entry's layout or the rendering changes (4: listings made in a subdirectory
# held only that subdirectory, issue 26; 5: the census keeps what System Information reads,
# the files marshalled)
FORMAT = 5
MAX_ENTRIES = 32
MAX_LISTINGS = 8  # one per recent tree: a 100,000-file listing is a few MB
MAX_KNOWN_SYMBOLS = 4096  # files whose symbols are kept by blob across trees
MAX_PYTHON_BYTES = 200_000  # bigger source files are listed without their symbols
MAX_SEARCHED = 2_000  # source files searched for the symbols a message names


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


def _symbols(repo: GitRepo, files: list[TrackedFile]) -> dict[str, tuple[str, list[Symbol]]]:
    """The symbols of the source files among `files`, with their blobs, by path."""
    found = {}
    for file in files:
        if has_symbols(file.path) and 0 < file.size <= MAX_PYTHON_BYTES:
            data = repo.read_object(file.blob)
            found[file.path] = file.blob, file_symbols(file.path, data.decode("utf-8", "replace"))
    return found


@dataclass
class Listing:
    """A tree's files by centrality as (path, size, blob), what its tools are found from,
    and the symbols read of its files so far (path -> (blob, symbols))."""

    tree: str
    files: list[tuple[str, int, str]]
    census: Census
    symbols: dict[str, tuple[str, list[Symbol]]] = field(default_factory=dict)


def _listing_path(repo: GitRepo, tree: str) -> Path:
    return repo.layout.repo_map_cache / "trees" / f"{tree}.json"


def _read_listing(path: Path, tree: str | None = None) -> Listing | None:
    """The listing stored at `path` (of `tree` when given), None when missing or damaged.
    Stored as a line of JSON (the tree, the census, the symbols, a checksum of the rest)
    then the files as a `marshal`ed list of (path, size, blob): 100,000 files load in
    about 10 ms, against 50 ms to split and convert them from text."""
    try:
        head, _, body = path.read_bytes().partition(b"\n")
        entry = json.loads(head)
        if entry["format"] != FORMAT or entry["check"] != zlib.crc32(body):
            return None
        if tree is not None and entry["tree"] != tree:
            return None
        files = _unmarshalled(body)
        if not isinstance(files, list):
            return None
        census = Census()
        census.languages.update({str(k): int(v) for k, v in entry["languages"].items()})
        census.names.update({str(k): int(v) for k, v in entry["names"].items()})
        census.workflows = int(entry["workflows"])
        census.project.update({str(k): int(v) for k, v in entry["project"].items()})
        census.shallow_python = int(entry["shallow_python"])
        symbols = {
            str(p): (str(b), [_symbol(fields) for fields in syms])
            for p, (b, syms) in entry["symbols"].items()
        }
        return Listing(str(entry["tree"]), files, census, symbols)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, EOFError):
        return None  # computed again


def _unmarshalled(body: bytes) -> object:
    """`marshal.loads` with the cyclic collector off: it makes no cycles, and 100,000 tuples
    would set off a few dozen collections (a quarter of the load's time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return marshal.loads(body)
    finally:
        if enabled:
            gc.enable()


def _symbol(fields: list[object]) -> Symbol:
    """A symbol as `_write_listing` stores it (ValueError when it is not)."""
    name, line, end, text, depth, refs = fields
    if not isinstance(refs, list):
        raise ValueError(refs)
    numbers = [int(str(n)) for n in (line, end, depth)]
    return Symbol(
        str(name), numbers[0], numbers[1], str(text), numbers[2], frozenset(map(str, refs))
    )


def _write_listing(repo: GitRepo, listing: Listing) -> None:
    body = marshal.dumps(listing.files)
    head = {
        "format": FORMAT,
        "tree": listing.tree,
        "check": zlib.crc32(body),
        "languages": dict(listing.census.languages),
        "names": dict(listing.census.names),
        "workflows": listing.census.workflows,
        "project": {path: n for path, n in listing.census.project.items() if n},
        "shallow_python": listing.census.shallow_python,
        "symbols": {
            path: [
                blob,
                [[y.name, y.line, y.end, y.text, y.depth, sorted(y.refs)] for y in symbols],
            ]
            for path, (blob, symbols) in listing.symbols.items()
        },
    }
    data = json.dumps(head, separators=(",", ":")).encode() + b"\n" + body
    write_derived(_listing_path(repo, listing.tree), data, repo.layout.shared, MAX_LISTINGS)


def _newest_listing(repo: GitRepo) -> Listing | None:
    folder = repo.layout.repo_map_cache / "trees"
    try:
        stored = sorted(
            ((p.stat().st_mtime_ns, p) for p in folder.iterdir() if p.suffix == ".json"),
            reverse=True,
        )
    except OSError:
        return None
    return _read_listing(stored[0][1]) if stored else None


def _updated(repo: GitRepo, old: Listing, tree: str) -> Listing:
    """`old` brought to `tree` by the diff between their trees: its files placed, its
    census counted and its symbols dropped for the changed paths alone."""
    changes = repo.tree_changes(old.tree, tree)
    gone = {path: size for path, ((size, blob), _) in changes.items() if blob}
    new = [(path, size, blob) for path, (_, (size, blob)) in changes.items() if blob]
    census = Census(
        old.census.languages.copy(),
        old.census.names.copy(),
        old.census.workflows,
        old.census.project.copy(),
        old.census.shallow_python,
    )
    census.count(gone, -1)
    census.count([path for path, _, _ in new], 1)
    symbols = {path: known for path, known in old.symbols.items() if path not in changes}
    return Listing(tree, reorder(old.files, gone, new), census, symbols)


def _listing(repo: GitRepo, tree: str) -> tuple[Listing, bool]:
    """`tree`'s listing: stored, else updated from the newest stored one, else listed
    whole; and whether it is new (to be stored)."""
    listing = _read_listing(_listing_path(repo, tree), tree)
    if listing is not None:
        return listing, False
    previous = _newest_listing(repo)
    if previous is not None:
        try:
            return _updated(repo, previous, tree), True
        except GitFailed:
            pass  # its tree is gone (a gc after a history rewrite): listed whole
    files = in_order(repo.list_files_sized(tree))
    return Listing(tree, files, Census.of(path for path, _, _ in files)), True


def tree_paths(repo: GitRepo, tree: str) -> list[str]:
    """Every file path of `tree` (what `git ls-tree -r` lists, in the map's order): the map's
    listing of `tree`, stored, or made from the last tree's by their diff (and stored, so
    the map reads it back): a context's globs cost what the turn changed."""
    listing, new = _listing(repo, tree)
    if new:
        _write_listing(repo, listing)
    return list(map(itemgetter(0), listing.files))


def _compute(
    repo: GitRepo, listing: Listing, focus: set[str], budget: int, names: frozenset[str]
) -> tuple[list[str], str]:
    tree = listing.tree
    manifests = {
        name: (repo.read_file(tree, name) or b"").decode("utf-8", "replace") for name in MANIFESTS
    }
    # The files defining or calling a symbol the message names come first, with the named
    # ones. Which other files could be shown: those that fit without symbols; then, with
    # their symbols, render_map keeps those that still fit. Symbols read for a blob before
    # are not read again (the listing's are of its tree's blobs: `_updated` drops those of
    # the changed paths).
    named = _naming(repo, listing.files, names) if names else {}
    ranked = rank(listing.files, focus | set(named), most_shown(budget))
    candidates = [f for f in select(ranked, budget, {}) if f.path not in named]
    known = listing.symbols
    found = {f.path: known[f.path] for f in candidates if f.path in known}
    found.update(_symbols(repo, [f for f in candidates if f.path not in known]))
    found.update(named)
    kept = known if len(known) + len(found) <= MAX_KNOWN_SYMBOLS else {}
    listing.symbols = {**kept, **found}
    symbols = {path: listed for path, (_, listed) in found.items()}
    text = render_map(ranked, len(listing.files), budget, symbols, names)
    return listing.census.tools(manifests), text


def _naming(
    repo: GitRepo, files: list[tuple[str, int, str]], names: frozenset[str]
) -> dict[str, tuple[str, list[Symbol]]]:
    """The symbols (with their blobs) of the source files among `files` (path, size, blob;
    the first MAX_SEARCHED) that define a symbol of `names` or use one (its callers): only
    the files whose text has a name are parsed."""
    sources = [f for f in files if has_symbols(f[0]) and 0 < f[1] <= MAX_PYTHON_BYTES]
    found = {}
    for path, _, blob in sources[:MAX_SEARCHED]:
        data = repo.read_object(blob)
        if any(name.encode() in data for name in names):
            symbols = file_symbols(path, data.decode("utf-8", "replace"))
            if any(s.name in names or s.refs & names for s in symbols):
                found[path] = blob, symbols
    return found


def repository_overview(
    repo: GitRepo, tree: str, names: list[str], message: str, budget: int, probe_tools: bool = True
) -> str:
    """System information and the repository map of `tree` ("" when `budget` is 0): `names`
    are the context's resources, `message` the user's; both decide what is shown first."""
    if budget <= 0:
        return ""
    listing, new = _listing(repo, tree)
    focus = mentioned(list(map(itemgetter(0), listing.files)), [message], names)
    symbol_names = mentioned_names(message)
    key = json.dumps(
        [FORMAT, tree, budget, sorted(focus), sorted(symbol_names)], ensure_ascii=False
    )
    path = _entry_path(repo, tree, key)
    hit = _read_entry(path, key)
    if hit is None:
        symbols = listing.symbols
        hit = _compute(repo, listing, focus, budget, symbol_names)
        tools, text = hit
        entry = {"key": key, "tools": tools, "map": text, "check": zlib.crc32(text.encode())}
        write_entry(path, entry, repo.layout.shared, keep=MAX_ENTRIES)
        new = new or listing.symbols != symbols
    if new:
        _write_listing(repo, listing)
    tools, text = hit
    info = system_information(repo, tree, tools, listing.census, probe_tools)
    return f"{info}\n{text}"
