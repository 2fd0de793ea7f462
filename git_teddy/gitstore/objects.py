"""Objects and commits read (a part of GitRepo): dulwich's store first, git for what
dulwich lacks (a partial clone's objects, fetched) and for batches (one `git cat-file`)."""

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from dulwich.objects import Blob, Commit, ObjectID, ShaFile, object_class
from dulwich.repo import Repo

from git_teddy.errors import TeddyError
from git_teddy.gitstore import promisor, runner
from git_teddy.gitstore.changes import CutBlob, blob_head, blob_sizes, object_ids, read_blobs

TREE_MODE = 0o040000
FILE_MODE = 0o100644
GITLINK_MODE = "160000"  # as diff-tree and ls-tree write it


def _oid(sha: str) -> ObjectID:
    return ObjectID(sha.encode())


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    tree: str
    parents: tuple[str, ...]
    message: str
    timestamp: int
    tz_offset: int
    author: str = ""  # "Name <email>", as git records it


class MissingObject(TeddyError):
    """An object git-teddy needs is not in the repository (a snapshot never fetched)."""


class ObjectsPart:
    """Reads objects: one dulwich has, else asked of git; commits read once per command."""

    cwd: Path
    common_dir: Path
    dulwich: Repo
    _through_git: dict[bytes, ShaFile]  # objects dulwich lacked, read by git
    _commits: dict[str, CommitInfo]  # objects never change: read each once
    _sizes: dict[str, int]  # blob id -> size, asked of git once per command

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

    def object_exists(self, sha: str) -> bool:
        return _oid(sha) in self.dulwich.object_store

    def missing_objects(self, ids: Collection[str]) -> set[str]:
        """Which of `ids` this repository does not have, in one `git cat-file`."""
        wanted = sorted(ids)
        if not wanted:
            return set()
        found = object_ids(wanted, self.cwd)
        return {sha for sha, there in zip(wanted, found, strict=True) if not there}

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

    def read_object(self, sha: str) -> bytes:
        return self._object(_oid(sha)).as_raw_string()

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

    def _bounded(self, blobs: list[str], limit: int, batch: bool = False) -> dict[str, bytes]:
        """Blobs by id (missing ones left out): whole up to `limit` bytes, else cut. Each
        blob's size is asked of git once per command (a blob never changes): a file read
        again (a turn's turn.yaml, by `execute`'s check and then under its claim) runs no git."""
        if not blobs:
            return {}  # no git process for nothing (a tree without the file)
        unknown = [blob for blob in dict.fromkeys(blobs) if blob not in self._sizes]
        if unknown:
            self._sizes.update(blob_sizes(unknown, self.cwd))
        sizes = {blob: self._sizes[blob] for blob in blobs if blob in self._sizes}
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

    def root_commits(self, commit: str) -> list[str]:
        """The commits without parents `commit` descends from (itself, when it has none)."""
        return runner.output(["rev-list", "--max-parents=0", commit], self.cwd).split()

    def descends_from(self, commit: str, ancestor: str) -> bool:
        """Whether `ancestor` is `commit` or among its ancestors (a fast-forward to it)."""
        args = ["merge-base", "--is-ancestor", ancestor, commit]
        return runner.run(args, self.cwd).returncode == 0
