"""The whole answer of `git teddy context`, cached in the derived-state folder.

Assembling a context needs click, the session store (pydantic) and dulwich, whose imports
alone cost several times what a warm answer should. So `git teddy context` first looks for
its answer here, with a few git commands (gitstore's standard-library modules: the same
runner, discovery, settings reading and derived-state layout as the full command) and a
lean part of the standard library (no dataclasses or hashlib either); any miss, doubt or
error runs the full command instead, which may then store its answer.

An answer is stored under a key made of everything it depends on: the tree of the user's
working tree (as a snapshot would record it), the session branches (local and fetched),
the token-count cache file, this worktree's current session (session.current), the `teddy.*`
settings and TEDDY_* variables, the developer tools on PATH, the arguments and
the code of git-teddy itself; the entry also records the session's current-branch marker.
Only answers the full command would print again are stored: none listing a URL (fetched
afresh each time), none computed while a tokenizer had to be loaded (a first count may
resolve another encoding than the next run would), none while anything moved meanwhile.
Entries are written to a temporary file then renamed, so readers see whole files, and carry
a checksum: a damaged entry is a miss.
"""

import functools
import json
import os
import shlex
import zlib
from collections.abc import Mapping
from pathlib import Path

from git_teddy import __version__
from git_teddy.errors import TeddyError
from git_teddy.gitstore import permissions, plumbing
from git_teddy.gitstore.layout import Layout, read_worktree_session
from git_teddy.gitstore.worktree_tree import worktree_tree
from git_teddy.planning.tool_probe import tools_stamp
from git_teddy.session.refnames import session_ref_patterns
from git_teddy.settings import Settings

FORMAT = 6  # bump when an entry's layout or meaning changes
MAX_ENTRIES = 16  # the newest are kept: recent states of the working tree
OUTPUTS = ("json", "text")


class Miss(Exception):
    """Nothing to serve: the full command runs."""


# ---- what an answer depends on -----------------------------------------------------------------


class Place:
    """Where a repository keeps what an answer is made from. A git failure (not a
    repository...) is a TeddyError: no answer, the full command decides what to say."""

    def __init__(self, cwd: Path) -> None:
        self.location = plumbing.locate(cwd)
        self.layout = Layout(self.location.common_dir)

    def tree(self) -> str:
        """The tree a snapshot of the working tree would record now."""
        where = self.location
        scratch = self.layout.shared.make_folders(self.layout.scratch)
        status_home = self.layout.shared.make_folders(self.layout.status_indexes)
        return worktree_tree(where.cwd, where.index_file, scratch, status_home)

    def markers(self) -> dict[str, str]:
        """Every session's current-branch marker, as written."""
        folder = self.layout.sessions
        found = {}
        for session in sorted(os.listdir(folder)) if folder.is_dir() else []:
            marker = self.layout.read_marker(session)
            if marker is not None:
                found[session] = marker
        return found


class State:
    """Everything an answer depends on besides the working tree and the arguments."""

    def __init__(self, place: Place) -> None:
        try:
            stat = place.layout.tokens_file.stat()
        except FileNotFoundError:
            # Stored answers all came from a token cache: without one, none can be valid.
            raise Miss("no token-count cache") from None
        self.config, remotes = plumbing.read_config_and_remotes(
            place.location.cwd, "teddy", also=(permissions.KEY,)
        )
        # core.sharedRepository, read in the same git process: what is written gets git's modes.
        place.layout.shared = permissions.Shared.from_config(self.config)
        self.config.pop(permissions.KEY, None)
        try:
            prefix = Settings.verified(self.config).ref_prefix
        except TeddyError:
            raise Miss("a bad setting: the full command says which") from None
        # Which token-count cache file: it is replaced, never rewritten in place.
        self.tokens = [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns]
        self.environ = _environ_digest()
        self.refs = _session_refs(place.location.cwd, prefix, remotes)
        # This worktree's current session (session.current): the session of `context` without -s.
        self.current = read_worktree_session(place.location.git_dir)
        # The developer tools on PATH that System Information names (stat calls only).
        self.tools = tools_stamp()

    def parts(self) -> list[object]:
        return [self.tokens, self.config, self.environ, self.refs, self.current, self.tools]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.parts() == other.parts()


def _environ_digest() -> str:
    """The TEDDY_* variables that override settings, as a digest: TEDDY_API_KEY is one of them,
    and a secret is never written anywhere. hashlib is slow to import, so only when needed."""
    found = sorted([k, v] for k, v in os.environ.items() if k.startswith("TEDDY_"))
    if not found:
        return ""
    import hashlib

    return hashlib.sha256(json.dumps(found).encode()).hexdigest()


def _session_refs(cwd: Path, prefix: str, remotes: list[str]) -> dict[str, str]:
    """The session branches, local and fetched, with their tips (other remote branches do
    not matter, and are not read). A broken ref git leaves out is a miss: the full command
    may see it."""
    return plumbing.list_refs(cwd, *session_ref_patterns(prefix, remotes), strict=True)


@functools.cache
def _code_stamp() -> str:
    """Which git-teddy computed an answer: its version and its source files (size, mtime),
    so an edited or reinstalled copy never serves another copy's answers."""
    root = Path(__file__).parent.parent  # all of git_teddy, not just this package
    listing = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith((".py", ".xml"))):  # prompts too
            stat = os.stat(os.path.join(folder, name))
            listing.append(f"{folder}/{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return f"{__version__}:{len(listing)}:{zlib.crc32(chr(10).join(listing).encode()):08x}"


def cache_key(state: State, tree: str, session_spec: str | None, depth: int) -> str:
    parts = [FORMAT, _code_stamp(), session_spec, depth, tree, *state.parts()]
    return json.dumps(parts, ensure_ascii=False)


def _entry_path(place: Place, tree: str, key: str) -> Path:
    """One file per key; the key itself is inside and compared in full."""
    return place.layout.context_cache / f"{tree}-{zlib.crc32(key.encode()):08x}.json"


def _checksum(fields: list[object]) -> int:
    return zlib.crc32(json.dumps(fields).encode())


# ---- the answer and how it is printed ----------------------------------------------------------


class Answer:
    """What `git teddy context` shows: system information and the repository map (the
    `overview` text and its tokens), the resources with their token counts, the system
    prompt's tokens, and the total of all that: what a request holds besides the message."""

    def __init__(
        self,
        session: str,
        agent: str,
        encoding: str,
        resources: list[tuple[str, int, str | None]],
        overview: tuple[str, int] = ("", 0),
        pruned: list[str] | None = None,
        system_tokens: int = 0,
    ) -> None:
        self.session, self.agent, self.encoding = session, agent, encoding
        self.resources = resources
        self.overview, self.overview_tokens = overview
        self.pruned = pruned or []  # `!PATH` in session.context: excluded for the session
        self.system_tokens = system_tokens
        resource_tokens = sum(tokens for _, tokens, _ in resources)
        self.total = resource_tokens + self.overview_tokens + system_tokens

    def render(self, output: str) -> str:
        """What the command prints (`json` for --json, else `text`), without the last newline."""
        if output == "json":
            rows = [{"resource": n, "tokens": t, "note": note} for n, t, note in self.resources]
            data = {
                "session": self.session,
                "agent": self.agent,
                "encoding": self.encoding,
                "resources": rows,
                "overview": self.overview,
                "overview_tokens": self.overview_tokens,
                "system_prompt_tokens": self.system_tokens,
                "total_tokens": self.total,
                "pruned": self.pruned,
            }
            return json.dumps(data, indent=2, ensure_ascii=False)
        lines = [
            f"{tokens:>8}  {name}{f'  ({note})' if note else ''}"
            for name, tokens, note in self.resources
        ]
        if self.overview:
            lines.append(f"{self.overview_tokens:>8}  (system information and repository map)")
        if self.system_tokens:
            lines.append(f"{self.system_tokens:>8}  (system prompt of {self.agent})")
        lines += [
            f"{'pruned':>8}  {name}  (excluded for this session: READ it or "
            f"`git teddy add {shlex.quote(name)}` to bring it back)"
            for name in self.pruned
        ]
        summary = f"{len(self.resources)} resources, {self.encoding}, agent {self.agent}"
        head = [self.overview.rstrip("\n"), ""] if self.overview else []
        return "\n".join([*head, *lines, f"{self.total:>8}  total ({summary})"])


# ---- looking up (no click, pydantic nor dulwich) ----------------------------------------------


# What a lookup that missed read (its Place and State), for the full command's Watch in the
# same process: the repository is read once (its refs, its settings) either way.
_LOOKED_UP: dict[Path, tuple[Place, State]] = {}


def lookup(cwd: Path, session_spec: str | None, depth: int, output: str) -> str:
    """The stored output for the repository at `cwd` as it is now, or Miss."""
    place = Place(cwd)
    if not place.layout.context_cache.is_dir():
        raise Miss("nothing stored yet")
    state = State(place)
    _LOOKED_UP[cwd] = (place, state)
    tree = place.tree()
    key = cache_key(state, tree, session_spec, depth)
    try:
        entry = json.loads(_entry_path(place, tree, key).read_bytes())
        fields = [entry["key"], entry["session"], entry["marker"]]
        fields += [entry[name] for name in OUTPUTS]
        valid = entry["check"] == _checksum(fields)
    except (OSError, ValueError, TypeError, KeyError):
        raise Miss("no entry, or a damaged one") from None
    session, text = entry["session"], entry[output]
    if not valid or entry["key"] != key or not isinstance(text, str):
        raise Miss("a damaged entry, or another key's")
    if not isinstance(session, str) or "/" in session or session.startswith("."):
        raise Miss("a damaged entry")
    if place.layout.read_marker(session) != entry["marker"]:
        raise Miss("the session's current branch changed")
    return text


def parse_args(argv: list[str]) -> tuple[str | None, int, bool] | None:
    """`context`'s options (session, depth, --json) when plainly given; None for anything
    else, which the full command (click) then parses and reports on."""
    session, depth, as_json = None, 0, False
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg == "--json":
            as_json = True
            continue
        if name not in ("-s", "--session", "--context-depth"):
            return None
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        if name == "--context-depth":
            if not (value.isascii() and value.isdigit()):
                return None
            depth = int(value)
        elif not value or value.startswith("-"):
            return None
        else:
            session = value
    return session, depth, as_json


# ---- storing (after the full command) -----------------------------------------------------


def _place_and_state(cwd: Path) -> tuple[Place, State]:
    place = Place(cwd)
    return place, State(place)


class Watch:
    """Observes what the full command's answer depends on before it runs, so that the answer
    is stored only if nothing moved while it was computed."""

    def __init__(self, cwd: Path) -> None:
        looked_up = _LOOKED_UP.pop(cwd, None)
        self.place, self.state = looked_up or _place_and_state(cwd)
        self.markers = self.place.markers()

    @classmethod
    def start(cls, cwd: Path) -> "Watch | None":
        """None when no answer could be stored (no token cache yet, not a repository...)."""
        try:
            return cls(cwd)
        except (Miss, TeddyError, OSError, ValueError):
            return None

    def remember(self, tree: str, session_spec: str | None, depth: int, answer: Answer) -> bool:
        """Store `answer` (computed from the working tree `tree`) if the full command would
        print it again; True when stored."""
        from git_teddy.planning.context import is_url
        from git_teddy.planning.tokens import TokenCounter

        if TokenCounter.tokenizer_needed or any(is_url(name) for name, _, _ in answer.resources):
            return False
        try:
            if State(self.place) != self.state or self.place.markers() != self.markers:
                return False
        except (Miss, TeddyError, OSError, ValueError):
            return False
        key = cache_key(self.state, tree, session_spec, depth)
        session, marker = answer.session, self.markers.get(answer.session)
        outputs = {output: answer.render(output) for output in OUTPUTS}
        check = _checksum([key, session, marker, *outputs.values()])
        entry = {"key": key, "session": session, "marker": marker, **outputs, "check": check}
        return write_entry(_entry_path(self.place, tree, key), entry, self.place.layout.shared)


def write_entry(
    path: Path, entry: Mapping[str, object], shared: permissions.Shared, keep: int = MAX_ENTRIES
) -> bool:
    """Atomically (a temporary file renamed), then drop the oldest entries past `keep` in
    its folder. A derived folder that cannot be written costs speed, nothing else. `shared`:
    the modes core.sharedRepository asks for."""
    return write_derived(path, json.dumps(entry, separators=(",", ":")).encode(), shared, keep)


def write_derived(path: Path, data: bytes, shared: permissions.Shared, keep: int) -> bool:
    """`write_entry` of bytes already made."""
    import tempfile

    try:
        shared.make_folders(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            shared.adjust(tmp)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _prune(path.parent, keep)
    except (OSError, TeddyError):  # TeddyError: a file where the cache folder should be
        return False
    return True


def _prune(folder: Path, keep: int) -> None:
    entries = []
    for path in folder.iterdir():
        if path.is_dir():
            continue  # another cache's folder inside this one
        try:
            entries.append((path.stat().st_mtime_ns, path))
        except FileNotFoundError:
            continue  # another process pruned it
    for _, path in sorted(entries, reverse=True)[keep:]:
        path.unlink(missing_ok=True)
