"""The derived-state folder, `$(git rev-parse --git-common-dir)/teddy/`: every path in it,
named once for the slow paths and the fast ones alike. What is here is local and never
pushed; it is shared by all worktrees of the repository, and each part can be rebuilt or
remade (caches, scratch space) or is a local choice like HEAD (a session's current branch).

    teddy/
      tokens.json              token counts by blob id (git_teddy.planning.tokens)
      token-pieces.marshal     token counts of pre-split pieces: new texts counted without a
                               tokenizer (git_teddy.planning.token_pieces)
      context-cache/           whole answers of `git teddy context` (planning.context_cache)
      repomap/<tree>-<key>.json  a context's repository map by tree id (planning.repomap)
      system/tools.json        the developer tools on PATH and their versions, and what
                               `import <package>` finds (planning.tool_probe)
      index.toon               the session index behind `list` and `stats` (git_teddy.index)
      log-cache/<tree>.json    what `session.md` needs from one turn folder, by the folder's
                               tree id (git_teddy.session.logcache)
      applied/<blob>           empty files named by the blobs teddy wrote into a working tree,
                               and by every turn result's new blobs when first made: a commit
                               none of whose staged blobs is there cannot be an applied result,
                               and the prepare-commit-msg hook decides so in shell, with `[ -e ]`
                               (no Python, no process but git diff-index)
      applied-by/<blob>        the turns (`session turn snapshot`, a line each) whose result,
                               merged with the user's edits, gave a blob teddy wrote into a
                               working tree: the prepare-commit-msg hook names them
      tmp/                     temporary indexes: working-tree snapshots, applying a result
      status/<key>-<state>.index  a copy of a worktree's index (one per state of it) with
                               git's untracked cache: a snapshot's `git status` runs on it
                               (gitstore.status_tree), the user's index never written
      worktrees/wt-N.lock      the locks of the pool of scratch worktrees where plans run
                               (the worktrees themselves live outside the project, in a
                               per-user cache folder: gitstore.pool)
      hooks/                   the post-commit hook of scratch worktrees
      kept-remotes             names `git teddy fetch URL` keeps sessions under
                               (refs/remotes/<name>/) that are no configured remote, a line
                               each: ref listings ask for their prefixes too
      no-hooks/                an empty hooks folder: teddy's other git calls in scratch
                               worktrees run none of the user's hooks (it need not exist)
      sessions/<id>/branch     the conversation branch the session continues on
      sessions/<id>/fork       the turn the next plan forks a new branch from (`restore`)
      sessions/<id>/placing    a `restore`/`branch` under way: the saved state of the
                               user's files, told by the next command if it was killed
      sessions/<id>/claim      held (flock) by the `plan` or `execute` working on the session
      sessions/<id>/journal-<turn>.json  an `execute` in progress: what is done, so a run
                               killed midway is resumed, never repeated (execute.journal)
      sessions/<id>/approved-urls  the URLs you allowed to be fetched for the session, a
                               line each (`git teddy add`, a READ you approved, a yes at
                               `plan`, `git teddy context --allow-url`): local on purpose, so
                               no teammate's session can bring its own approvals
      sessions/<id>/plans/<turn>.md
                               a pending plan as the model wrote it, when its commit holds
                               it redacted: what execute runs; removed once it has run
      failed-plans/<id>/       unusable model replies, kept for the user to fix
      codify/                  unusable `codify --refine` replies
      manual/, replay/         the model providers' own state (git_teddy.llm.factory names
                               them; it is given the root)

One file lives outside it, in each worktree's own git dir (`git rev-parse --git-dir`: the
common dir for the main worktree, `<common>/worktrees/<name>/` for a linked one), because it
belongs to that worktree alone, as HEAD does:

    teddy-session              the worktree's current session (session.current); it goes
                               with the worktree (`git worktree remove`)

Standard library only (and the name of the main branch), for the fast paths. Whoever
writes a file makes its parents, through `shared` (core.sharedRepository: a group-shared
repository gets git's modes here too; the reader of the git config sets it, else the umask
decides) and gives the file its mode with `shared.adjust` before renaming it into place.
"""

import json
import os
from collections.abc import Collection
from pathlib import Path

from git_teddy.artifacts.names import MAIN_BRANCH
from git_teddy.errors import TeddyError, in_the_way
from git_teddy.gitstore.locks import same_process, start_time
from git_teddy.gitstore.permissions import Shared

DERIVED_DIR = "teddy"
WORKTREE_SESSION = "teddy-session"  # in a worktree's own git dir, beside its HEAD
APPLIED_BLOBS = "applied"  # read by the prepare-commit-msg hook's shell block too
APPLIED_BY = "applied-by"  # read by the prepare-commit-msg hook's Python side


class Placing:
    """A `restore` or `branch` that saved the user's files and is putting others in place.
    (Not a dataclass: `dataclasses` imports `inspect`, ~10 ms that `git teddy context`
    answered from its cache, which loads this module, does without.)"""

    __slots__ = ("pid", "saved", "session", "started", "what")

    def __init__(self, session: str, saved: str, what: str, pid: int, started: int | None) -> None:
        self.session = session
        self.saved = saved  # the snapshot of the user's files taken first
        self.what = what  # e.g. "restoring 01"
        self.pid = pid
        self.started = started  # the process's start time (gitstore.locks), to tell a reused pid


class Layout:
    """The derived-state paths of the repository whose common dir is `common_dir`."""

    def __init__(self, common_dir: Path, shared: Shared | None = None) -> None:
        self.root = common_dir / DERIVED_DIR
        self.shared = shared or Shared()

    # ---- caches (rebuilt at will) ---------------------------------------------------------

    @property
    def tokens_file(self) -> Path:
        return self.root / "tokens.json"

    @property
    def context_cache(self) -> Path:
        return self.root / "context-cache"

    @property
    def repo_map_cache(self) -> Path:
        return self.root / "repomap"

    @property
    def system_tools_file(self) -> Path:
        return self.root / "system" / "tools.json"

    @property
    def index_file(self) -> Path:
        return self.root / "index.toon"

    @property
    def applied_blobs(self) -> Path:
        return self.root / APPLIED_BLOBS

    def note_applied(self, blobs: Collection[str]) -> None:
        """Mark blobs about to be written into a working tree in `applied_blobs`, when it is
        there: until the hook first makes it (`seed_applied`) every commit asks Python. A
        failure costs the hook's speed on a commit of them, nothing else: the folder goes,
        and the next hook run that starts Python makes it again, whole."""
        if not blobs or not self.applied_blobs.is_dir():
            return
        try:
            for blob in blobs:
                self._mark(self.applied_blobs / blob)
        except OSError:
            import shutil  # here: shutil imports the compression modules, for fast paths too

            shutil.rmtree(self.applied_blobs, ignore_errors=True)

    def seed_applied(self, blobs: Collection[str]) -> None:
        """Make `applied_blobs` whole (a temporary folder renamed into place), unless another
        process made it meanwhile."""
        if self.applied_blobs.exists():
            return
        part = self.root / f"{APPLIED_BLOBS}.{os.getpid()}.tmp"
        try:
            self.shared.make_folders(part)
            for blob in blobs:
                self._mark(part / blob)
            part.rename(self.applied_blobs)
        except (OSError, TeddyError):  # e.g. made meanwhile, or a file where a folder goes
            import shutil

            shutil.rmtree(part, ignore_errors=True)  # the next commit asks Python again

    @property
    def applied_by(self) -> Path:
        return self.root / APPLIED_BY

    def note_applied_by(self, blobs: Collection[str], session: str, turn: str, result: str) -> None:
        """Record which turn's result (`session turn snapshot`, a line each) a blob written
        into a working tree came from, when the blob is not that result's own: a result merged
        with the user's edits. The prepare-commit-msg hook names the turn on a commit of it.
        Best effort: without the record such a commit gets no trailers, nothing else."""
        line = f"{session} {turn} {result}\n"
        try:
            folder = self.shared.make_folders(self.applied_by)
            for blob in blobs:
                path = folder / blob
                known = path.read_text("utf-8") if path.exists() else ""
                if line not in known.splitlines(keepends=True):
                    with path.open("a", encoding="utf-8") as file:
                        file.write(line)
                    self.shared.adjust(path)
        except (OSError, TeddyError):
            pass

    def applied_from(self, blob: str) -> list[tuple[str, str, str]]:
        """(session, turn, snapshot) of each result `blob` was merged from (`note_applied_by`)."""
        try:
            text = (self.applied_by / blob).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return []
        rows = [line.split() for line in text.splitlines()]
        return [(row[0], row[1], row[2]) for row in rows if len(row) == 3]

    def _mark(self, path: Path) -> None:
        if not path.exists():
            path.touch()
            self.shared.adjust(path)

    def log_cache(self, tree: str) -> Path:
        """A turn folder's pieces of the session log, by the folder's tree id."""
        return self.root / "log-cache" / f"{tree}.json"

    # ---- scratch space ---------------------------------------------------------------------

    @property
    def scratch(self) -> Path:
        return self.root / "tmp"

    @property
    def status_indexes(self) -> Path:
        return self.root / "status"

    def worktree_lock(self, slot: int) -> Path:
        """The lock of scratch worktree number `slot` of the pool (gitstore.worktree)."""
        return self.root / "worktrees" / f"wt-{slot}.lock"

    @property
    def runtime_hooks(self) -> Path:
        return self.root / "hooks"

    @property
    def no_hooks(self) -> Path:
        return self.root / "no-hooks"

    # ---- kept for the user -----------------------------------------------------------------

    def failed_plans(self, session: str) -> Path:
        return self.root / "failed-plans" / session

    @property
    def codify_replies(self) -> Path:
        return self.root / "codify"

    # ---- per-session local state -------------------------------------------------------------

    @property
    def sessions(self) -> Path:
        return self.root / "sessions"

    def branch_marker(self, session: str) -> Path:
        return self.sessions / session / "branch"

    def fork_marker(self, session: str) -> Path:
        return self.sessions / session / "fork"

    def placing_marker(self, session: str) -> Path:
        return self.sessions / session / "placing"

    def _write(self, path: Path, text: str, what: str) -> None:
        """Write a derived file whole: a killed writer leaves the old one or none."""
        self.shared.make_folders(path.parent)
        part = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        part.write_text(text, encoding="utf-8")
        self.shared.adjust(part)
        try:
            part.replace(path)
        except IsADirectoryError:
            part.unlink()
            raise in_the_way(path, what) from None

    def write_fork(self, session: str, turn: str, commit: str) -> None:
        self._write(
            self.fork_marker(session), f"{turn} {commit}\n", "the turn the next plan forks from"
        )

    def read_fork(self, session: str) -> tuple[str, str] | None:
        """(turn, commit) the next plan forks from; None when none (or unreadable: the
        session then goes on on its current branch)."""
        try:
            fields = self.fork_marker(session).read_text("utf-8").split()
        except (OSError, UnicodeDecodeError):
            return None
        if len(fields) != 2 or len(fields[1]) not in (40, 64):
            return None
        return (fields[0], fields[1]) if set(fields[1]) <= set("0123456789abcdef") else None

    def clear_fork(self, session: str) -> None:
        self.fork_marker(session).unlink(missing_ok=True)

    def write_placing(self, session: str, saved: str, what: str) -> None:
        pid = os.getpid()
        record = {"saved": saved, "what": what, "pid": pid, "started": start_time(pid)}
        self._write(self.placing_marker(session), json.dumps(record) + "\n", "a restore under way")

    def clear_placing(self, session: str) -> None:
        self.placing_marker(session).unlink(missing_ok=True)

    def interrupted_placings(self) -> list[Placing]:
        """`restore`/`branch` runs that were killed after saving the user's files (their
        process is gone): the caller tells the user, then clears them. A garbled marker
        names no saved state and is dropped (`git teddy saved` lists them all anyway)."""
        found = []
        for marker in sorted(self.sessions.glob("*/placing")) if self.sessions.is_dir() else []:
            try:
                record = json.loads(marker.read_text("utf-8"))
                placing = Placing(
                    marker.parent.name,
                    str(record["saved"]),
                    str(record["what"]),
                    int(record["pid"]),
                    record.get("started"),
                )
            except (OSError, ValueError, TypeError, KeyError, AttributeError):
                marker.unlink(missing_ok=True)
                continue
            if same_process(placing.pid, placing.started) is not True:
                found.append(placing)
        return found

    def session_claim(self, session: str) -> Path:
        return self.sessions / session / "claim"

    def execute_journal(self, session: str, turn: str) -> Path:
        return self.sessions / session / f"journal-{turn}.json"

    def original_plan(self, session: str, turn: str) -> Path:
        """The unredacted plan of a pending turn (turn names are unique in a session)."""
        return self.sessions / session / "plans" / f"{turn}.md"

    def remember_remote(self, name: str) -> None:
        """Keep `name` among the remotes whose sessions are read (kept_remotes_file)."""
        known = read_kept_remotes(self.root.parent)
        if name not in known:
            text = "".join(f"{n}\n" for n in [*known, name])
            self._write(kept_remotes_file(self.root.parent), text, "the names of fetched URLs")

    def approved_urls_file(self, session: str) -> Path:
        return self.sessions / session / "approved-urls"

    def approved_urls(self, session: str) -> set[str]:
        """The URLs allowed for the session (none when the file is missing or unreadable)."""
        try:
            text = self.approved_urls_file(session).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return set()
        return {line.strip() for line in text.splitlines() if line.strip()}

    def approve_urls(self, session: str, urls: Collection[str]) -> None:
        """Add `urls` to the session's allowed URLs."""
        known = self.approved_urls(session)
        if set(urls) <= known:
            return
        text = "".join(f"{url}\n" for url in sorted(known | set(urls)))
        self._write(self.approved_urls_file(session), text, "the session's allowed URLs")

    def read_marker(self, session: str) -> str | None:
        """The session's branch marker as written, None when there is none."""
        try:
            return self.branch_marker(session).read_text("utf-8", "replace")
        except OSError:  # none, or unreadable: no choice was recorded
            return None

    def write_marker(self, session: str, branch: str) -> None:
        marker = self.branch_marker(session)
        self.shared.make_folders(marker.parent)
        if marker.is_dir():
            raise in_the_way(marker, "the name of the session's current branch")
        marker.write_text(branch + "\n")
        self.shared.adjust(marker)

    # ---- per-worktree state (in the worktree's own git dir) -----------------------------------

    def write_worktree_session(self, git_dir: Path, session: str) -> None:
        """Record `session` as the current session of the worktree whose git dir is `git_dir`."""
        path = worktree_session_file(git_dir)
        self._write(path, session + "\n", "the worktree's current session")

    def current_branch(self, session: str, branches: Collection[str]) -> str:
        """The conversation branch new turns of `session` go on, among its `branches`: the
        one last chosen here while it exists, else main. (Should main be gone, deleted by
        hand, the first branch by name.) The marker is read only when there is a choice."""
        if MAIN_BRANCH in branches and len(branches) == 1:
            return MAIN_BRANCH
        marker = (self.read_marker(session) or "").strip()
        if marker in branches:
            return marker
        return MAIN_BRANCH if MAIN_BRANCH in branches or not branches else min(branches)


def kept_remotes_file(common_dir: Path) -> Path:
    """Names `git teddy fetch URL` keeps sessions under (refs/remotes/<name>/) that are no
    configured remote: a ref listing asks for these prefixes too."""
    return common_dir / DERIVED_DIR / "kept-remotes"


def read_kept_remotes(common_dir: Path) -> list[str]:
    try:
        text = kept_remotes_file(common_dir).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [line.strip() for line in text.splitlines() if line.strip()]


def worktree_session_file(git_dir: Path) -> Path:
    """Where the worktree whose git dir is `git_dir` records its current session."""
    return git_dir / WORKTREE_SESSION


def read_worktree_session(git_dir: Path) -> str | None:
    """The current session the worktree whose git dir is `git_dir` recorded; None when it
    recorded none (or the file is unreadable, or holds no plain session id)."""
    try:
        text = worktree_session_file(git_dir).read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text and "/" not in text and not text.startswith(".") else None
