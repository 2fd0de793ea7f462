"""A repository as git-teddy uses it: dulwich for objects and refs, the git CLI (through
gitstore.runner) for discovery, settings, identities, remotes, blame and tree listings
(where git is clearly better or faster). In a SHA-256 repository objects and refs are
written by git's plumbing (gitstore.gitwrite): dulwich would write them with SHA-1 ids; in a
shared one (core.sharedRepository) too, as git gives them the group's modes."""

import os
import tempfile
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath

from dulwich.file import FileLocked
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tree, object_class
from dulwich.refs import Ref
from dulwich.repo import Repo

from git_teddy.errors import ConcurrentUpdateError, TeddyError
from git_teddy.gitstore import (
    checkout,
    gitwrite,
    locks,
    permissions,
    plumbing,
    promisor,
    runner,
    submodules,
)
from git_teddy.gitstore.changes import (
    ALLOW_SECRETS_ENV,
    SECRETS_FILE_ENV,
    SESSION_PUSH_ENV,
    CutBlob,
    blob_head,
    blob_sizes,
    commit_id,
    is_object_id,
    object_ids,
    read_blobs,
)
from git_teddy.gitstore.layout import Layout
from git_teddy.gitstore.plumbing import Location
from git_teddy.gitstore.reflisting import RefListing
from git_teddy.gitstore.runner import GitFailed
from git_teddy.settings import SECRET_FILES, Settings

TREE_MODE = 0o040000


FILE_MODE = 0o100644
GITLINK_MODE = "160000"  # as diff-tree and ls-tree write it
GPG_SIGN = "commit.gpgsign"
SHARED_REPOSITORY = permissions.KEY
FILE_MODE_KEY = "core.filemode"
IGNORE_CASE_KEY = "core.ignorecase"
QUOTE_PATH_KEY = "core.quotepath"
# the colour keys: for cli/color.py, which then asks git nothing more (`show`)
COLOR_KEYS = ("color.teddy", "color.ui", "color.pager")
FOLLOWED_CONFIG = (
    GPG_SIGN, SHARED_REPOSITORY, FILE_MODE_KEY, IGNORE_CASE_KEY, QUOTE_PATH_KEY, *COLOR_KEYS
)  # fmt: skip
LOCK_RETRIES = 100  # times LOCK_WAIT: how long to wait for another writer's lock
LOCK_WAIT = 0.02
# dulwich reads the whole packed-refs file before it writes any ref: past this size (about
# 700 refs, as `git fetch` and `git gc` leave a monorepo's remote branches) git writes them,
# in a process that costs the same however many refs there are.
BIG_PACKED_REFS = 64 * 1024


def _ref(name: str) -> Ref:
    return Ref(name.encode())


def _oid(sha: str) -> ObjectID:
    return ObjectID(sha.encode())


@dataclass(frozen=True)
class Identity:
    """An author or committer line as git would write it (`git var GIT_COMMITTER_IDENT`)."""

    name_email: str
    timestamp: int
    tz_offset: int  # seconds east of UTC

    @classmethod
    def parse(cls, ident: str) -> "Identity":
        name_email, timestamp, zone = ident.strip().rsplit(" ", 2)
        sign = -1 if zone.startswith("-") else 1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[3:5]) * 60)
        return cls(name_email, int(timestamp), offset)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    tree: str
    parents: tuple[str, ...]
    message: str
    timestamp: int
    tz_offset: int
    author: str = ""  # "Name <email>", as git records it


@dataclass(frozen=True)
class GitResult:
    """What a git command that may fail for the user's reasons (a rejected push, a line
    past the end of a file) said; the caller words the error."""

    ok: bool
    stdout: str
    stderr: str


def _git_result(args: list[str], cwd: Path) -> GitResult:
    proc = runner.run(args, cwd)
    return GitResult(proc.returncode == 0, proc.stdout, proc.stderr)


@dataclass(frozen=True)
class BlamedLine:
    number: int  # in the file as of the blamed commit
    commit: str  # the commit that last changed the line
    summary: str  # that commit's subject
    text: str
    boundary: bool = False  # git's `^`: a root, or the edge of a shallow clone's history


class RefInTheWay(TeddyError):
    """A ref cannot be made because an existing one holds a name it needs as a folder
    (a branch `teddy` for `refs/heads/teddy/<id>/main`), or the reverse: git's
    directory/file conflict, which git refuses too. The caller words the hint."""

    def __init__(self, name: str, blocking: str) -> None:
        super().__init__(f"the ref {blocking} is in the way of {name}", "rename or delete it")
        self.name = name
        self.blocking = blocking


class RefWriteFailed(TeddyError):
    """The file system refused a ref (permissions, a full disk, a stray file)."""


class LineOutOfRange(GitFailed):
    """Blame of a line past the end of the file."""


def parse_blame(porcelain: str) -> list[BlamedLine]:
    """The lines of `git blame --porcelain` output."""
    rows: list[BlamedLine] = []
    summaries: dict[str, str] = {}
    boundaries: set[str] = set()
    commit, number = "", 0
    for line in porcelain.splitlines():
        if line.startswith("\t"):
            summary = summaries.get(commit, "")
            rows.append(BlamedLine(number, commit, summary, line[1:], commit in boundaries))
        elif line.startswith("summary "):
            summaries[commit] = line.removeprefix("summary ")
        elif line == "boundary":
            boundaries.add(commit)
        else:
            parts = line.split(" ")
            if len(parts) >= 3 and is_object_id(parts[0]) and parts[1].isdigit():
                commit, number = parts[0], int(parts[2])
    return rows


class MissingObject(TeddyError):
    """An object git-teddy needs is not in the repository (a snapshot never fetched)."""


def _signing_failed(failed: GitFailed) -> TeddyError:
    return TeddyError(
        f"could not sign the session commit, so nothing was written: {failed.message}",
        "check user.signingKey and gpg.format (`git commit -S` fails the same way), or let "
        "git teddy write unsigned session commits: `git config teddy.sign never`",
    )


class GitRepo:
    """A discovered repository with a working tree: `git -C`, GIT_DIR/GIT_WORK_TREE and
    linked worktrees are honoured because discovery is left to `git rev-parse`."""

    def __init__(self, location: Location) -> None:
        self.cwd = location.cwd
        self.toplevel = location.toplevel
        self.git_dir = location.git_dir
        self.common_dir = location.common_dir
        self.index_file = location.index_file
        self.layout = Layout(location.common_dir)
        # dulwich reads both object formats but writes SHA-1 ids only: git writes the rest
        # (and, once teddy_config finds core.sharedRepository set, everything: see share).
        self.object_format = location.object_format
        self.git_writes = location.object_format != plumbing.SHA1
        # Whether session commits are signed (teddy.sign, commit.gpgsign): the workspace
        # decides, once the settings are read (see teddy_config).
        self.sign_commits = False
        self.git_config: dict[str, list[str]] = {}  # git's own keys teddy follows
        self.settings: Settings | None = None  # the command's settings, once checked
        # Refs and objects are shared by all worktrees, so dulwich opens the common dir.
        self.dulwich = Repo(str(location.common_dir))
        self._identity: Identity | None = None
        self._through_git: dict[bytes, ShaFile] = {}  # objects dulwich lacked, read by git
        self._remotes: list[str] | None = None  # read with the teddy.* keys, else by `git remote`
        self._listing: RefListing | None = None  # see listing()
        self._commits: dict[str, CommitInfo] = {}  # objects never change: read each once
        self._big_packed_refs: bool | None = None  # see _git_writes_refs

    @classmethod
    def discover(cls, cwd: Path | None = None) -> "GitRepo":
        return cls(plumbing.locate(cwd))

    # ---- the git CLI: settings, identity, remotes, blame --------------------------------

    def config(self, section: str) -> dict[str, list[str]]:
        """All values of `<section>.*` keys, keys lower-cased as git compares them."""
        return plumbing.read_config(self.cwd, section)

    def teddy_config(self) -> dict[str, list[str]]:
        """The teddy.* keys; git's own keys that teddy follows (FOLLOWED_CONFIG) come in the
        same git process and are kept in `git_config`."""
        values, self._remotes = plumbing.read_config_and_remotes(
            self.cwd, "teddy", also=FOLLOWED_CONFIG
        )
        self.git_config = {key: values.pop(key) for key in FOLLOWED_CONFIG if key in values}
        self.share(permissions.Shared.from_config(self.git_config))
        return values

    def secret_globs(self) -> list[str] | None:
        """`teddy.secretFiles` from the command's settings (the registry's one reading of
        them, session/workspace.py); None when no settings were read."""
        return self.settings.paths(SECRET_FILES) if self.settings is not None else None

    def share(self, shared: permissions.Shared) -> None:
        """Follow core.sharedRepository: derived state gets git's modes (layout.shared), and
        objects and refs are written by git's plumbing, which gives them those modes itself
        (dulwich would write them with its own)."""
        self.layout.shared = shared
        self.git_writes = self.git_writes or shared.active

    def git_says_sign(self) -> bool:
        """commit.gpgSign, as `git commit` and `git commit-tree` read it (the last value)."""
        values = self.git_config.get(GPG_SIGN, [])
        return bool(values) and plumbing.is_true(values[-1])

    def committer(self) -> Identity:
        """Who and when, as git would record it (honours GIT_COMMITTER_* and user.*)."""
        if self._identity is None:
            proc = runner.run(["var", "GIT_COMMITTER_IDENT"], self.cwd)
            if proc.returncode != 0:
                raise TeddyError(
                    "git does not know who you are, so it cannot write commits",
                    'set it with `git config user.name "Your Name"` and '
                    "`git config user.email you@example.com`",
                )
            self._identity = Identity.parse(proc.stdout)
        if "GIT_COMMITTER_DATE" in os.environ:
            return self._identity  # a fixed date, as in tests: every commit gets it
        offset = datetime.now().astimezone().utcoffset() or timedelta(0)
        return Identity(self._identity.name_email, int(time.time()), int(offset.total_seconds()))

    def head_commit(self) -> str | None:
        """The commit HEAD of this worktree points at, or None on an unborn branch."""
        return commit_id("HEAD", self.cwd) or None

    def hooks_path(self) -> Path:
        """Where git looks for this repository's hooks (`core.hooksPath` honoured)."""
        return plumbing.hooks_path(self.cwd)

    def hooks_path_origin(self) -> plumbing.ConfigOrigin | None:
        """The `core.hooksPath` setting in force and which config file sets it (None: unset)."""
        return plumbing.hooks_path_origin(self.cwd)

    def show_prefix(self) -> str:
        """Where the current directory is in the working tree, as git names it (`sub/dir/`,
        "" at the top): paths a user types are relative to it."""
        return runner.output(["rev-parse", "--show-prefix"], self.cwd).rstrip("\n")

    def remote_names(self) -> list[str]:
        return runner.output(["remote"], self.cwd).split()

    def remotes(self) -> list[str]:
        """The remotes' names as this command found them (read with the settings), and the
        names sessions fetched from a URL are kept under."""
        if self._remotes is None:
            self._remotes = plumbing.remote_names(self.cwd)
        return self._remotes

    def remember_remote(self, name: str) -> None:
        """From now on, read the sessions kept under refs/remotes/<name>/ (a fetched URL)."""
        self.layout.remember_remote(name)
        if name not in self.remotes():
            self.remotes().append(name)
            self._listing = None

    def remote_urls(self) -> dict[str, list[str]]:
        """The URLs (`remote.<name>.url`) of each configured remote, by name."""
        args = ["config", "--get-regexp", r"^remote\..*\.url$"]
        proc = runner.run(args, self.cwd)
        if proc.returncode not in (0, 1):  # 1: no remote has a URL
            raise runner.failure(args, proc.stderr.strip())
        urls: dict[str, list[str]] = {}
        for line in proc.stdout.splitlines():
            key, _, url = line.partition(" ")
            urls.setdefault(key.removeprefix("remote.").removesuffix(".url"), []).append(url)
        return urls

    def push_refs(
        self,
        remote: str,
        refspecs: list[str],
        allowed: Sequence[str] = (),
        secrets_file: Path | None = None,
    ) -> GitResult:
        """`git push` of exactly these refspecs (porcelain output: one line per ref), marked
        for the pre-push hook as teddy's own push (snapshots included), with the findings
        it may let through (`allowed`: ids or paths) and the file it writes those it refuses
        to (`secrets_file`). `remote` (a name, URL or path) comes after `--`: git never
        reads it as an option."""
        args = ["push", "--porcelain", "--", remote, *refspecs]
        env = {SESSION_PUSH_ENV: "1", ALLOW_SECRETS_ENV: "\n".join(allowed)}
        if secrets_file is not None:
            env[SECRETS_FILE_ENV] = str(secrets_file)
        proc = runner.run(args, self.cwd, env=env)
        self._listing = None  # a push moves remote-tracking branches
        return GitResult(proc.returncode == 0, proc.stdout, proc.stderr)

    def delete_remote_refs(self, remote: str, expected: Mapping[str, str]) -> GitResult:
        """Delete `expected`'s refs (name -> the id each must still have) on `remote`, in one
        atomic push that deletes none if one moved meanwhile (--force-with-lease)."""
        leases = [f"--force-with-lease={name}:{oid}" for name, oid in expected.items()]
        args = ["push", "--porcelain", "--atomic", *leases, "--", remote]
        self._listing = None  # a push moves remote-tracking branches
        return _git_result([*args, *(f":{n}" for n in expected)], self.cwd)

    def remote_heads(self, remote: str) -> dict[str, str]:
        """The branches a remote has now (full ref name -> id), asked of the remote itself
        (protocol v2 lists refs/heads/ alone, however many other refs it holds)."""
        out = runner.output(["ls-remote", "--heads", "--", remote], self.cwd)
        pairs = (line.split("\t", 1) for line in out.splitlines() if "\t" in line)
        return {name: oid for oid, name in pairs}

    def fetch_refs(self, remote: str, refspecs: list[str]) -> GitResult:
        """One `git fetch` of exactly these refspecs: no tags, none of the remote's configured
        refspecs (`--refmap=`), and every ref written in one transaction once all objects are
        in (`--atomic`): a failed or killed fetch writes none. `remote` after `--`."""
        args = ["fetch", "--no-tags", "--atomic", "--refmap=", "--", remote, *refspecs]
        self._listing = None  # a fetch moves remote-tracking branches
        return _git_result(args, self.cwd)

    def ref_listing(self, *prefixes: str) -> dict[str, str]:
        """Full ref name -> id of the refs under `prefixes`, in one `git for-each-ref`
        (thousands of refs cost one process, packed or loose)."""
        return plumbing.list_refs(self.cwd, *prefixes)

    def descends_from(self, commit: str, ancestor: str) -> bool:
        """Whether `ancestor` is `commit` or among its ancestors (a fast-forward to it)."""
        args = ["merge-base", "--is-ancestor", ancestor, commit]
        return runner.run(args, self.cwd).returncode == 0

    def update_refs(
        self, updates: Mapping[str, tuple[str | None, str | None]], reason: str
    ) -> None:
        """Move each ref (name -> (new id, id it must still hold)); None as new deletes it,
        None as expected means it must not exist. One `git update-ref --stdin` transaction:
        all of them, or none (ConcurrentUpdateError) when any one moved meanwhile."""
        if not updates:
            return
        zero = "0" * (40 if self.object_format == plumbing.SHA1 else 64)
        lines = "".join(
            f"delete {name} {old}\n" if new is None else f"update {name} {new} {old or zero}\n"
            for name, (new, old) in updates.items()
        )
        args = ["update-ref", "-m", f"teddy: {reason}", "--stdin"]
        done = runner.run(args, self.cwd, input=f"start\n{lines}commit\n")
        if done.returncode != 0:
            self._listing = None
            raise ConcurrentUpdateError(
                f"git refused to update the refs: {done.stderr.strip()}",
                "another git process changed them meanwhile; nothing was written, run again",
            )
        self._wrote({name: new for name, (new, _old) in updates.items()})

    def log_trailers(self, tips: Collection[str], keys: Sequence[str]) -> list[dict[str, str]]:
        """`keys`' trailer values (the last of each) of every commit reachable from `tips`,
        in one `git log`: what a walk of thousands of histories costs git, not Python. The
        messages come raw and their last paragraph is read here (git's own %(trailers) costs
        about twice as much)."""
        if not tips:
            return []
        args = ["log", "--format=%x1e%B", "--stdin"]
        out = runner.output(args, self.cwd, input="".join(f"{tip}\n" for tip in tips))
        wanted = set(keys)
        rows = []
        for message in out.split("\x1e")[1:]:
            last = message.strip().rpartition("\n\n")[2]
            pairs = (line.partition(": ") for line in last.splitlines())
            rows.append({key: value.strip() for key, _, value in pairs if key in wanted})
        return rows

    def read_paths(self, specs: Sequence[str]) -> dict[str, bytes]:
        """The content of each `<commit>:<path>` that names a file, in one `git cat-file
        --batch` (those naming nothing are left out)."""
        if not specs:
            return {}
        request = "".join(f"{spec}\n" for spec in specs).encode()
        out = runner.output_bytes(["cat-file", "--batch"], self.cwd, input=request)
        found, at = {}, 0
        for spec in specs:
            header_end = out.index(b"\n", at)
            header = out[at:header_end].split()
            at = header_end + 1
            if header[-1] == b"missing" or len(header) != 3:
                continue
            size = int(header[2])
            if header[1] == b"blob":
                found[spec] = out[at : at + size]
            at += size + 1
        return found

    def missing_objects(self, ids: Collection[str]) -> set[str]:
        """Which of `ids` this repository does not have, in one `git cat-file`."""
        wanted = sorted(ids)
        if not wanted:
            return set()
        found = object_ids(wanted, self.cwd)
        return {sha for sha, there in zip(wanted, found, strict=True) if not there}

    def blame(
        self,
        commit: str,
        path: str,
        line: int | None = None,
        grafts: Mapping[str, str] | None = None,
    ) -> list[BlamedLine]:
        """Which commit last changed each line of `path` (from the top of the working tree;
        or of line `line` alone) as of `commit`. `grafts` (commit -> the parent it is blamed
        on top of) give parentless commits a parent for this blame alone (`git blame -S`).
        GitFailed when git cannot tell; LineOutOfRange past the file's end."""
        lines = ["-L", f"{line},{line}"] if line is not None else []
        scratch = self.layout.shared.make_folders(self.layout.scratch)
        with tempfile.TemporaryDirectory(dir=scratch, prefix="blame-") as folder:
            revs = Path(folder) / "grafts"
            revs.write_text(
                "".join(f"{child} {parent}\n" for child, parent in (grafts or {}).items())
            )
            args = ["blame", "--porcelain", "-S", str(revs), *lines, commit, "--", path]
            proc = runner.run(args, self.toplevel)  # git would read `path` from the cwd
        if proc.returncode != 0:
            out_of_range = line is not None and "has only" in proc.stderr
            failed = runner.failure(args, proc.stderr.strip())
            raise LineOutOfRange(failed.message) if out_of_range else failed
        return parse_blame(proc.stdout)

    def root_commits(self, commit: str) -> list[str]:
        """The commits without parents `commit` descends from (itself, when it has none)."""
        return runner.output(["rev-list", "--max-parents=0", commit], self.cwd).split()

    def show_diff(self, old: str, new: str, options: Sequence[str], color: str | None) -> int:
        """`git diff` of two commits to the user's terminal (or pager), the user's options
        and paths after them as `git diff` takes them (paths relative to the current
        folder); `color` (always/never/auto) when the user chose it for git-teddy. The exit
        code git gave (1 for differences with `--exit-code`)."""
        chosen = [f"--color={color}"] if color else []
        return runner.attached(["diff", *chosen, old, new, *options], self.cwd)

    def diff_texts(self, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """The plain patch between each pair of commits (old, new), in one git process: no
        colour, no external diff or textconv, none of the user's diff settings (what a page
        shows must not depend on this machine). `git diff-tree --stdin` takes "commit
        parent" lines and heads each non-empty patch with the commit's id, in input order."""
        todo = list(dict.fromkeys(pair for pair in pairs if pair[0] != pair[1]))
        if len({new for _, new in todo}) < len(todo):  # a header would be ambiguous
            return [self._patches([pair]).get(pair, "") for pair in pairs]
        found = self._patches(todo)
        return [found.get(pair, "") for pair in pairs]

    def diff_stat(self, old: str, new: str) -> str:
        """`git diff --stat` of two commits, plain (no colour, none of the user's diff
        settings): what changed, a line a file."""
        args = ["diff-tree", "-r", "--stat", "--no-color", "--no-ext-diff", old, new]
        return runner.output(args, self.cwd)

    def _patches(self, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        args = ["diff-tree", "--stdin", "-r", "-p", "--no-color", "--no-ext-diff", "--no-textconv"]
        lines = "".join(f"{new} {old}\n" for old, new in pairs)
        out = runner.output(args, self.cwd, input=lines) if pairs else ""
        patches: dict[tuple[str, str], list[str]] = {}
        news = {new for _, new in pairs}  # a patch line is never a bare commit id
        position, current = 0, None
        for line in out.splitlines(keepends=True):
            header = line.rstrip("\n")
            if header in news:
                while pairs[position][1] != header:
                    position += 1  # pairs without a difference print nothing
                current = pairs[position]
                position += 1
                patches[current] = []
            elif current is not None:
                patches[current].append(line)
        return {pair: "".join(text) for pair, text in patches.items()}

    # ---- refs (dulwich; every update is compare-and-swap) --------------------------------

    def read_ref(self, name: str) -> str | None:
        """The ref's id, as the listing has it when it covers `name` (the command's view,
        current with its own writes; every write is compare-and-swap all the same)."""
        if self._listing is not None and self._listing.covers(name):
            return self._listing.refs.get(name)
        try:
            return self.dulwich.refs[_ref(name)].decode()
        except KeyError:
            return None

    def listing(self, prefixes: Sequence[str]) -> RefListing:
        """The refs under `prefixes` (each ending in `/`) as this command found them: one
        `git for-each-ref` (which reads only those, packed or loose), kept current with the
        refs written through this object since. Another set of prefixes lists again."""
        if self._listing is None or self._listing.prefixes != tuple(prefixes):
            refs = plumbing.list_refs(self.cwd, *prefixes)
            self._listing = RefListing(prefixes, refs)
        return self._listing

    def forget_refs(self) -> None:
        """Drop the listing: the next question lists again (a server, between requests)."""
        self._listing = None

    def _wrote(self, refs: Mapping[str, str | None]) -> None:
        if self._listing is not None:
            for name, sha in refs.items():
                self._listing.wrote(name, sha)

    def list_refs(self, prefix: str) -> dict[str, str]:
        """Refs under `prefix` (e.g. `refs/heads/teddy/`), by full name."""
        refs = self.dulwich.refs.as_dict(_ref(prefix.rstrip("/")))
        base = prefix.rstrip("/")
        return {f"{base}/{name.decode()}": sha.decode() for name, sha in refs.items()}

    def ref_in_the_way(self, name: str) -> str | None:
        """An existing ref (loose or packed) that stops `name` from being made, as git
        would refuse it: one named like a folder `name` needs (`refs/heads/teddy` for
        `refs/heads/teddy/x/main`), or one inside a folder named like `name`."""
        parts, packed = name.split("/"), self.dulwich.refs.get_packed_refs()
        for end in range(2, len(parts)):
            folder = "/".join(parts[:end])
            # Read as files: dulwich will not read a one-level ref such as `refs/teddy`.
            if (self.common_dir / folder).is_file() or _ref(folder) in packed:
                return folder
        inside = self.dulwich.refs.keys(base=_ref(f"{name}/"))
        return f"{name}/{min(inside).decode()}" if inside else None

    def check_ref_writable(self, name: str) -> None:
        """Refuse, before a command does anything, when the lock file of ref `name` stays
        (a killed git or git teddy process left it): its writes would fail at the end."""
        lock = self.common_dir / f"{name}.lock"
        if not locks.wait_until_gone(lock, LOCK_RETRIES, LOCK_WAIT):
            raise locks.lock_error(lock, f"the ref {name}")

    def update_ref(self, name: str, new: str, expected: str | None, reason: str) -> None:
        """Move `name` from `expected` (None: must not exist) to `new`, atomically.
        RefInTheWay, before writing, when a new ref clashes with an existing one."""
        if expected is None and (blocking := self.ref_in_the_way(name)):
            raise RefInTheWay(name, blocking)
        for _ in range(LOCK_RETRIES):
            try:
                done = self._swap_ref(name, new, expected, reason)
                break
            except FileLocked:
                time.sleep(LOCK_WAIT)  # another writer holds the ref's lock: wait, re-check
            except OSError as error:  # dulwich aborts the lock file: the ref is unchanged
                raise RefWriteFailed(
                    f"could not write the ref {name}: {error.strerror or error}",
                    "check the permissions of the repository's .git folder and free space",
                ) from None
        else:
            done = False
        # Written: the listing follows. Refused: someone else wrote it, so it lists again.
        if done:
            self._wrote({name: new})
        else:
            self._listing = None
        lock = self.common_dir / f"{name}.lock"
        if not done and lock.exists():
            # Held all the while (git, in a SHA-256 repository, waited for it too): a
            # killed process's lock, named as git names it, not another writer's update.
            raise locks.lock_error(lock, f"the ref {name}")
        if not done:
            raise ConcurrentUpdateError(
                f"{name} changed while git teddy was writing to it",
                "another git teddy process updated the session; run your command again",
            )

    def delete_ref(self, name: str, expected: str) -> bool:
        """Remove `name` and its reflog, as `git update-ref -d` does, if it still points at
        `expected` (False: it moved, and is left alone)."""
        done = self._delete_ref(name, expected)
        if done:
            self._wrote({name: None})
        else:
            self._listing = None  # moved by someone else: listed again
        return done

    def _git_writes_refs(self) -> bool:
        """Whether refs are written by git: objects are (SHA-256, shared), or dulwich would
        read a big packed-refs file first (BIG_PACKED_REFS)."""
        if self._big_packed_refs is None:
            packed = self.common_dir / "packed-refs"
            self._big_packed_refs = packed.exists() and packed.stat().st_size > BIG_PACKED_REFS
        return self.git_writes or self._big_packed_refs

    def _delete_ref(self, name: str, expected: str) -> bool:
        # git rewrites packed-refs with the shared mode (dulwich would not), and reads it fast
        if self._git_writes_refs():
            args = ["update-ref", "-d", name, expected]
            return runner.run(args, self.cwd).returncode == 0
        try:
            if not self.dulwich.refs.remove_if_equals(_ref(name), _oid(expected)):
                return False
        except FileLocked as held:  # the ref's or packed-refs' lock
            raise locks.lock_error(
                Path(os.fsdecode(held.lockfilename)), f"the ref {name}"
            ) from None
        logs = self.common_dir / "logs"
        reflog = logs / name
        reflog.unlink(missing_ok=True)
        for folder in reflog.parents:  # the folders it alone needed, as git leaves none
            if folder == logs / "refs" or not folder.is_relative_to(logs / "refs"):
                break
            try:
                folder.rmdir()
            except OSError:
                break  # not empty: other refs' logs live there
        return True

    def delete_refs(self, refs: Mapping[str, str]) -> None:
        """Remove `refs` (name -> the id each must still hold) and their reflogs in one
        `git update-ref --stdin` transaction: all of them, or none when any one moved."""
        lines = "".join(f"delete {name} {sha}\n" for name, sha in refs.items())
        done = runner.run(["update-ref", "--stdin"], self.cwd, input=f"start\n{lines}commit\n")
        if done.returncode != 0:
            self._listing = None
            raise ConcurrentUpdateError(
                f"git refused to delete the refs: {done.stderr.strip()}",
                "another git process changed them meanwhile; nothing was deleted, run again",
            )
        self._wrote(dict.fromkeys(refs))

    def _swap_ref(self, name: str, new: str, expected: str | None, reason: str) -> bool:
        # git waits for a held lock itself (core.filesRefLockTimeout)
        if self._git_writes_refs():
            return gitwrite.swap_ref(self.cwd, name, new, expected, f"teddy: {reason}")
        refs, message = self.dulwich.refs, f"teddy: {reason}".encode()
        if expected is None:
            return refs.add_if_new(_ref(name), _oid(new), message=message)
        return refs.set_if_equals(_ref(name), _oid(expected), _oid(new), message=message)

    # ---- objects --------------------------------------------------------------------------

    def _object(self, sha: bytes) -> ShaFile:
        """An object of the repository. One dulwich does not have is asked of git, which
        fetches it in a partial clone (gitstore.promisor); else a MissingObject error that
        says what to do: a session that reached a clone by plain `git push`/`git clone` has
        its branches but not the snapshots they name."""
        try:
            return self.dulwich[sha]
        except KeyError:
            pass
        if sha in self._through_git:
            return self._through_git[sha]
        found = promisor.read_object(sha.decode(), self.cwd)
        if found is None:
            raise self._missing(sha.decode())
        kind, data = found
        cls = object_class(kind.encode())
        if cls is None:
            raise self._missing(sha.decode())
        obj = cls.from_raw_string(cls.type_num, data, ObjectID(sha))
        self._through_git[sha] = obj
        return obj

    def _missing(self, sha: str) -> MissingObject:
        if remotes := promisor.promisor_remotes(self.cwd):
            return MissingObject(
                f"object {sha} is not in this partial clone, and git could not fetch it from"
                f" {remotes[0]}",
                f"check that {remotes[0]} can be reached (`git fetch {remotes[0]}`), then run"
                " the command again",
            )
        return MissingObject(
            f"object {sha} is not in this repository",
            "if it belongs to a session that came by plain git (git push --all, git clone),"
            " fetch the session with its snapshots: `git teddy fetch REMOTE` (the author"
            " shares it with `git teddy push`)",
        )

    def read_commit(self, sha: str) -> CommitInfo:
        """A commit, read once per command (a session's history is walked by several
        helpers: each walk after the first costs lookups)."""
        if sha not in self._commits:
            self._commits[sha] = self._read_commit(sha)
        return self._commits[sha]

    def _read_commit(self, sha: str) -> CommitInfo:
        commit = self._object(sha.encode())
        if not isinstance(commit, Commit):
            raise TeddyError(f"{sha} is not a commit", "check the id you gave")
        return CommitInfo(
            sha=sha,
            tree=commit.tree.decode(),
            parents=tuple(p.decode() for p in commit.parents),
            message=commit.message.decode("utf-8", "replace"),
            timestamp=commit.commit_time,
            tz_offset=commit.commit_timezone,
            author=commit.author.decode("utf-8", "replace"),
        )

    def first_parent_history(self, tip: str) -> Iterator[CommitInfo]:
        """Commits from `tip` back to the root along first parents, newest first."""
        sha: str | None = tip
        while sha:
            info = self.read_commit(sha)
            yield info
            sha = info.parents[0] if info.parents else None

    def _tree_at(self, tree_sha: str, path: str) -> Tree | Blob | None:
        obj = self._object(tree_sha.encode())
        for part in PurePosixPath(path).parts:
            if not isinstance(obj, Tree) or part.encode() not in obj:
                return None
            _, sha = obj[part.encode()]
            obj = self._object(sha)
        return obj if isinstance(obj, Tree | Blob) else None

    def read_file(self, tree_sha: str, path: str) -> bytes | None:
        obj = self._tree_at(tree_sha, path)
        return obj.data if isinstance(obj, Blob) else None

    def read_bounded(self, tree_sha: str, path: str, limit: int) -> bytes | None:
        """A file of a tree, read whole when it holds at most `limit` bytes, else its first
        `limit` bytes as a CutBlob: memory bounded whatever the file's size."""
        return self.read_files_bounded(tree_sha, [path], limit).get(path)

    def read_files_bounded(self, tree_sha: str, paths: list[str], limit: int) -> dict[str, bytes]:
        """read_bounded of each of `paths` (those that are files), in two git processes."""
        ids = {path: self._blob_id(tree_sha, path) for path in paths}
        blobs = self._bounded([blob for blob in ids.values() if blob], limit)
        return {path: blobs[blob] for path, blob in ids.items() if blob and blob in blobs}

    def _blob_id(self, tree_sha: str, path: str) -> str | None:
        """The id of the file `path` of a tree, its content not read."""
        *folders, name = PurePosixPath(path).parts
        obj = (
            self._tree_at(tree_sha, "/".join(folders))
            if folders
            else self._object(tree_sha.encode())
        )
        if not isinstance(obj, Tree) or name.encode() not in obj:
            return None
        mode, sha = obj[name.encode()]
        return None if mode == TREE_MODE else sha.decode()

    def _bounded(self, blobs: list[str], limit: int, batch: bool = False) -> dict[str, bytes]:
        """Blobs by id (missing ones left out): whole up to `limit` bytes, else cut."""
        sizes = blob_sizes(blobs, self.cwd)
        small = [blob for blob in blobs if sizes.get(blob, limit + 1) <= limit]
        if batch:  # many: one more git process, not one object lookup each
            contents = dict(read_blobs(small, self.cwd)) if small else {}
        else:
            contents = {blob: self._blob_data(blob) for blob in small}
        for blob in (b for b in blobs if sizes.get(b, 0) > limit):
            contents[blob] = CutBlob.of(blob_head(blob, limit, self.cwd), sizes[blob])
        return contents

    def _blob_data(self, blob: str) -> bytes:
        obj = self._object(blob.encode())
        return obj.data if isinstance(obj, Blob) else b""

    def read_blob(self, tree_sha: str, path: str) -> tuple[str, bytes] | None:
        """A file's blob id (a stable cache key for its content) and its bytes."""
        obj = self._tree_at(tree_sha, path)
        return (obj.id.decode(), obj.data) if isinstance(obj, Blob) else None

    def blob_ids(self, tree_sha: str, paths: list[str]) -> dict[str, str]:
        """Blob ids of the given files in a tree, in one `git ls-tree` (paths not found, or
        not files, are left out)."""
        if not paths:
            return {}
        args = ["ls-tree", "-z", "--full-tree", tree_sha, "--", *paths]
        out = runner.output(args, self.cwd)
        ids = {}
        for entry in out.split("\0"):
            meta, _, path = entry.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob":
                ids[path] = parts[2]
        return ids

    def read_object(self, sha: str) -> bytes:
        return self._object(_oid(sha)).as_raw_string()

    def worktree_forms(self, blobs: Mapping[str, str]) -> dict[str, bytes]:
        """Each blob (by path) as `git checkout` would write it there: line endings,
        filters, ident. Should a filter fail (an LFS object not fetched), the blobs as
        stored: the model then sees what `git show` shows, not nothing."""
        try:
            scratch = self.layout.shared.make_folders(self.layout.scratch)
            return checkout.worktree_forms(self.toplevel, scratch, blobs)
        except GitFailed:
            return {path: self.read_object(blob) for path, blob in blobs.items()}

    def list_files(self, tree_sha: str) -> list[str]:
        """Every file path in a tree (git walks big trees far faster than Python would)."""
        # --full-tree: the whole tree wherever the user is (a subdirectory: issue 26)
        args = ["ls-tree", "-r", "-z", "--full-tree", "--name-only", tree_sha]
        out = runner.output(args, self.cwd)
        return [path for path in out.split("\0") if path]

    def list_files_sized(self, tree_sha: str) -> list[tuple[str, int, str]]:
        """Every file path in a tree with its size as stored (-1 for a gitlink) and its
        object id, in one `git ls-tree -r -l`."""
        out = runner.output(["ls-tree", "-r", "-z", "--full-tree", "-l", tree_sha], self.cwd)
        files = []
        for entry in out.split("\0"):
            meta, _, path = entry.partition("\t")
            if path:
                _mode, _kind, oid, size = meta.split()
                files.append((path, int(size) if size.isdigit() else -1, oid))
        return files

    def tree_changes(self, old_tree: str, new_tree: str) -> dict[str, tuple[int, str]]:
        """What differs between two trees, as `list_files_sized` would list it: path ->
        (size, blob) in `new_tree`, (0, "") for a path gone; one `git diff-tree` (which
        reads only the folders that differ) and one `git cat-file --batch-check` of the
        new blobs' sizes."""
        args = ["diff-tree", "-r", "-z", "--no-renames", old_tree, new_tree]
        fields = runner.output(args, self.cwd).split("\0")
        found: dict[str, tuple[str, str]] = {}  # path -> (mode, blob)
        for meta, path in zip(fields[0::2], fields[1::2], strict=False):
            if meta:
                _, mode, _, blob, status = meta.lstrip(":").split(" ")
                found[path] = ("", "") if status == "D" else (mode, blob)
        blobs = [blob for mode, blob in found.values() if blob and mode != GITLINK_MODE]
        sizes = blob_sizes(blobs, self.cwd) if blobs else {}
        return {
            path: (0, "") if not blob else (-1 if mode == GITLINK_MODE else sizes[blob], blob)
            for path, (mode, blob) in found.items()
        }

    def git_version(self) -> str:
        """git's own version, as `git --version` says it (for the context's system facts)."""
        return runner.output(["--version"], self.cwd).strip().removeprefix("git version ")

    def list_dir(self, tree_sha: str, path: str = "") -> dict[str, bool]:
        """Names in a folder of a tree, each mapped to whether it is itself a folder."""
        obj = self._tree_at(tree_sha, path) if path else self._object(tree_sha.encode())
        if not isinstance(obj, Tree):
            return {}
        return {e.path.decode(): e.mode == TREE_MODE for e in obj.iteritems()}

    def read_folder(self, tree_sha: str, path: str) -> dict[str, bytes]:
        """The files directly in a folder of a tree, by name (subfolders left out): the
        folder's tree is read once, then each blob by its id."""
        obj = self._tree_at(tree_sha, path)
        if not isinstance(obj, Tree):
            return {}
        files: dict[str, bytes] = {}
        for entry in obj.iteritems():
            if entry.mode != TREE_MODE:
                blob = self._object(entry.sha)
                if isinstance(blob, Blob):
                    files[entry.path.decode()] = blob.data
        return files

    def read_folders(
        self, folders: list[tuple[str, str]], limit: int | None = None
    ) -> list[dict[str, bytes]]:
        """`read_folder` of each (tree, path), the blobs of all of them read by one
        `git cat-file --batch` (a review page reads hundreds of turn folders); with `limit`,
        a file larger is read cut (CutBlob), as read_bounded does."""
        listed: list[dict[str, str]] = []
        for tree_sha, path in folders:
            obj = self._tree_at(tree_sha, path)
            entries = obj.iteritems() if isinstance(obj, Tree) else []
            listed.append({e.path.decode(): e.sha.decode() for e in entries if e.mode != TREE_MODE})
        wanted = list(dict.fromkeys(blob for names in listed for blob in names.values()))
        if limit is not None:
            bounded = self._bounded(wanted, limit, batch=True) if wanted else {}
            return [{n: bounded[b] for n, b in names.items() if b in bounded} for names in listed]
        try:
            contents = dict(read_blobs(wanted, self.cwd)) if wanted else {}
        except (GitFailed, ValueError, IndexError):  # a blob missing: one by one, as they come
            return [self.read_folder(tree_sha, path) for tree_sha, path in folders]
        return [{name: contents[blob] for name, blob in names.items()} for names in listed]

    def folder_ids(self, tree_sha: str) -> dict[str, str]:
        """The folders at the top of a tree, each with its tree id (a content hash: a cache
        keyed by it is never stale)."""
        obj = self._object(tree_sha.encode())
        if not isinstance(obj, Tree):
            return {}
        return {e.path.decode(): e.sha.decode() for e in obj.iteritems() if e.mode == TREE_MODE}

    def _add_object(self, obj: ShaFile) -> str:
        """Store an object and return its id; another process writing the same object at
        once is not an error."""
        if self.git_writes:
            return self._add_with_git(obj)
        store = self.dulwich.object_store
        lock = Path(f"{obj.id.decode()}.lock")  # dulwich names the real one when it refuses
        for _ in range(LOCK_RETRIES):
            if obj.id in store:
                return obj.id.decode()
            try:
                store.add_object(obj)
                return obj.id.decode()
            except FileLocked as held:
                lock = Path(os.fsdecode(held.lockfilename))
                time.sleep(LOCK_WAIT)  # someone is writing this very object; it will appear
            except OSError:
                # A full disk: dulwich's clean-up fails on the same error and leaves the lock
                # it took (an empty `<object>.lock`, which fsck flags). It is ours: remove it.
                sha = obj.id.decode()
                Path(store.path, sha[:2], f"{sha[2:]}.lock").unlink(missing_ok=True)
                raise
        if obj.id in store:
            return obj.id.decode()
        # The object never appeared: a process killed while writing it left its lock.
        raise locks.lock_error(lock, f"the object {obj.id.decode()}")

    def _add_with_git(self, obj: ShaFile) -> str:
        """Store an object through git, which names it in the repository's object format."""
        if isinstance(obj, Tree):
            entries = ((e.path, e.mode, e.sha.decode()) for e in obj.iteritems())
            return gitwrite.write_tree(self.cwd, entries)
        return gitwrite.write_object(self.cwd, obj.type_name.decode(), obj.as_raw_string())

    def write_tree(self, base_tree: str | None, files: Mapping[str, bytes]) -> str:
        """A new tree: `base_tree` with `files` (POSIX paths -> content) written over it."""
        nested: dict[str, dict[str, bytes] | bytes] = {}
        for path, data in files.items():
            head, _, rest = path.partition("/")
            if rest:
                sub = nested.setdefault(head, {})
                assert isinstance(sub, dict), f"{head} is both a file and a folder"
                sub[rest] = data
            else:
                nested[head] = data
        tree = Tree()
        if base_tree:
            base = self._object(base_tree.encode())
            assert isinstance(base, Tree)
            for entry in base.iteritems():
                tree.add(entry.path, entry.mode, entry.sha)
        for name, value in nested.items():
            if isinstance(value, bytes):
                blob_id = self._add_object(Blob.from_string(value))
                tree.add(name.encode(), FILE_MODE, _oid(blob_id))
            else:
                existing = tree[name.encode()][1].decode() if name.encode() in tree else None
                tree.add(name.encode(), TREE_MODE, _oid(self.write_tree(existing, value)))
        return self._add_object(tree)

    def entries_at(self, tree_sha: str, paths: Collection[str]) -> dict[str, tuple[str, str]]:
        """path -> (mode as git spells it, object id) of each of `paths` a tree holds, and of
        each folder on the way to it (read tree by tree: no listing of a whole folder)."""
        found: dict[str, tuple[str, str]] = {}
        for path in paths:
            sha, walked = tree_sha.encode(), ""
            for part in PurePosixPath(path).parts:
                tree = self._object(sha)
                if not isinstance(tree, Tree) or part.encode() not in tree:
                    break
                mode, sha = tree[part.encode()]
                walked = f"{walked}/{part}" if walked else part
                found[walked] = (f"{mode:06o}", sha.decode())
                if mode != TREE_MODE:
                    break
        return found

    def tree_of(self, sha: str) -> str:
        """The tree of a commit, or `sha` itself when it is a tree."""
        obj = self._object(sha.encode())
        return obj.tree.decode() if isinstance(obj, Commit) else sha

    def tree_with_files(self, base_tree: str, files: Mapping[str, tuple[str, str]]) -> str:
        """`base_tree` with `files` (POSIX paths -> (mode, blob id), blobs already stored)
        put in it: only the folders on their way are read and written again."""
        if not files:
            return base_tree
        base = self._object(base_tree.encode())
        assert isinstance(base, Tree)
        held = {entry.path: (entry.mode, entry.sha) for entry in base.iteritems()}
        nested: dict[str, dict[str, tuple[str, str]]] = {}
        for path, (file_mode, blob) in files.items():
            head, _, rest = path.partition("/")
            if rest:
                nested.setdefault(head, {})[rest] = (file_mode, blob)
            else:
                held[head.encode()] = (int(file_mode, 8), _oid(blob))
        for name, inner in nested.items():
            old = held.get(name.encode())
            folder = old[1].decode() if old and old[0] == TREE_MODE else self._add_object(Tree())
            held[name.encode()] = (TREE_MODE, _oid(self.tree_with_files(folder, inner)))
        tree = Tree()
        for entry_name, (entry_mode, entry_sha) in held.items():
            tree.add(entry_name, entry_mode, entry_sha)
        return self._add_object(tree)

    def trusts_file_mode(self) -> bool:
        """core.fileMode (read with the teddy.* keys): whether git records exec bits."""
        values = self.git_config.get(FILE_MODE_KEY) or ["true"]
        return plumbing.is_true(values[-1])

    def ignores_case(self) -> bool:
        """core.ignoreCase (read with the teddy.* keys): whether git takes `README.md` and
        `readme.md` for one file."""
        values = self.git_config.get(IGNORE_CASE_KEY) or ["false"]
        return plumbing.is_true(values[-1])

    def quotes_paths(self) -> bool:
        """core.quotePath (read with the teddy.* keys): whether file names past ASCII are
        shown with octal escapes, as git shows them (printable.quote_path)."""
        values = self.git_config.get(QUOTE_PATH_KEY) or ["true"]
        return plumbing.is_true(values[-1])

    def spelled_as_in(self, commit: str, paths: Collection[str]) -> dict[str, str]:
        """The paths `commit` spells otherwise, letter case aside (a folder or file of the
        same name in another case): path -> the commit's spelling, as far as it has one
        (`docs/new.md` -> `Docs/new.md`). A folder's tree is read once per part."""
        spelled: dict[str, str] = {}
        root = self.read_commit(commit).tree
        for path in paths:
            obj: ShaFile | None = self._object(root.encode())
            parts = []
            for part in PurePosixPath(path).parts:
                match = None
                if isinstance(obj, Tree):
                    names = {
                        e.path.decode("utf-8", "surrogateescape"): e.sha for e in obj.iteritems()
                    }
                    if part in names:
                        match = part
                    else:
                        match = next((n for n in names if n.lower() == part.lower()), None)
                parts.append(match or part)
                obj = (
                    self._object(names[match])
                    if match is not None and isinstance(obj, Tree)
                    else None
                )
            same = "/".join(parts)
            if same != path:
                spelled[path] = same
        return spelled

    def write_session_commit(self, tree: str, parents: list[str], message: str) -> str:
        """A commit of a session branch: signed when `sign_commits` says so."""
        if not self.sign_commits:
            return self.write_commit(tree, parents, message)
        try:
            return gitwrite.signed_commit(self.cwd, tree, parents, message, self._who())
        except GitFailed as failed:
            raise _signing_failed(failed) from None

    def check_signing(self) -> None:
        """When session commits are signed, sign a throwaway one first: a command that
        writes several objects and refs refuses up front, not halfway, when signing fails."""
        if self.sign_commits:
            try:
                gitwrite.try_signing(self.cwd, self.object_format, self._who())
            except GitFailed as failed:
                raise _signing_failed(failed) from None

    def _who(self) -> dict[str, str]:
        """The author and committer of a commit git writes, as write_commit would set them."""
        ident = self.committer()
        name, _, email = ident.name_email.rpartition(" <")
        minutes = abs(ident.tz_offset) // 60
        zone = f"{'-' if ident.tz_offset < 0 else '+'}{minutes // 60:02d}{minutes % 60:02d}"
        when = f"@{ident.timestamp} {zone}"
        who: dict[str, str] = {}
        for role in ("AUTHOR", "COMMITTER"):
            who |= {
                f"GIT_{role}_NAME": name,
                f"GIT_{role}_EMAIL": email.removesuffix(">"),
                f"GIT_{role}_DATE": when,
            }
        return who

    def write_commit(self, tree: str, parents: list[str], message: str) -> str:
        """An unsigned commit (snapshots; session commits when not signing), written by
        dulwich in this process: no git process, no signer."""
        ident = self.committer()
        commit = Commit()
        commit.tree = tree.encode()
        commit.parents = [_oid(p) for p in parents]
        commit.author = commit.committer = ident.name_email.encode()
        commit.author_time = commit.commit_time = ident.timestamp
        commit.author_timezone = commit.commit_timezone = ident.tz_offset
        commit.encoding = b"UTF-8"
        commit.message = message.encode()
        return self._add_object(commit)

    def gitlinks_at(self, commit: str, paths: Collection[str]) -> dict[str, str]:
        """Which of `paths`, and of the folders holding them, are submodules (gitlinks) in
        `commit`: path -> the commit recorded."""
        return submodules.gitlinks(self.cwd, commit, paths, isolated=False)

    def object_exists(self, sha: str) -> bool:
        return _oid(sha) in self.dulwich.object_store

    def fetch_missing(self, shas: Collection[str]) -> list[str]:
        """Those of `shas` not in this repository, after a partial clone has fetched them
        from its promisor remote in one request (git would fetch them one by one, and
        `checkout-index` leaves an empty file where one fails): [] when all are here."""
        missing = [sha for sha in dict.fromkeys(shas) if not self.object_exists(sha)]
        if missing:  # or in a pack git wrote since dulwich listed them (an auto gc)
            missing = self._still_missing(missing)
        if missing and (remotes := promisor.promisor_remotes(self.cwd)):
            promisor.fetch_objects(remotes[0], missing, self.cwd)
            missing = self._still_missing(missing)
        return missing

    def _still_missing(self, shas: list[str]) -> list[str]:
        self.dulwich = Repo(str(self.common_dir))  # one that lists the packs there now
        return [sha for sha in shas if not self.object_exists(sha)]

    def tree_replacing(
        self, base_tree: str, cleared: Collection[str], files: Mapping[str, tuple[str, str]]
    ) -> str:
        """`base_tree` with each of `cleared` (a file, or a folder and all in it) taken out,
        then `files` (POSIX paths -> (mode, blob id), stored already) put in, a file in the
        way of a folder replaced as `git update-index --replace` replaces it: only the
        folders on their way are read and written again (gitstore.saved_paths)."""
        return self._tree_replacing(base_tree, cleared, files) or self._add_object(Tree())

    def _tree_replacing(
        self, base_tree: str | None, cleared: Collection[str], files: Mapping[str, tuple[str, str]]
    ) -> str | None:
        """tree_replacing of a folder (None: there was none); None when nothing is left."""
        held: dict[bytes, tuple[int, ObjectID]] = {}
        if base_tree is not None:
            base = self._object(base_tree.encode())
            assert isinstance(base, Tree)
            held = {entry.path: (entry.mode, entry.sha) for entry in base.iteritems()}
        inner_cleared: dict[bytes, list[str]] = {}
        inner_files: dict[bytes, dict[str, tuple[str, str]]] = {}
        for path in cleared:
            head, _, rest = path.partition("/")
            if rest:
                inner_cleared.setdefault(head.encode(), []).append(rest)
            else:
                held.pop(head.encode(), None)
        for path, (file_mode, blob) in files.items():
            head, _, rest = path.partition("/")
            if rest:
                inner_files.setdefault(head.encode(), {})[rest] = (file_mode, blob)
            else:
                held[head.encode()] = (int(file_mode, 8), _oid(blob))
        for name in {*inner_cleared, *inner_files}:
            old = held.get(name)
            folder = old[1].decode() if old and old[0] == TREE_MODE else None
            if folder is None and name not in inner_files:
                continue  # nothing to take out: no folder there
            inner = self._tree_replacing(
                folder, inner_cleared.get(name, []), inner_files.get(name, {})
            )
            if inner is None:
                held.pop(name, None)
            else:
                held[name] = (TREE_MODE, _oid(inner))
        if not held:
            return None
        tree = Tree()
        for entry_name, (entry_mode, entry_sha) in held.items():
            tree.add(entry_name, entry_mode, entry_sha)
        return self._add_object(tree)
