"""Refs read and moved (a part of GitRepo): one listing per command, kept current with its
own writes; every update compare-and-swap; several at once in one `git update-ref --stdin`
transaction."""

import time
from collections.abc import Mapping, Sequence

from dulwich.file import FileLocked

from git_teddy.errors import ConcurrentUpdateError, TeddyError
from git_teddy.gitstore import locks, plumbing, runner
from git_teddy.gitstore.changes import commit_id
from git_teddy.gitstore.reflisting import RefListing
from git_teddy.gitstore.writing import LOCK_RETRIES, LOCK_WAIT, WritingPart, _ref


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


class RefsPart(WritingPart):
    """Reads refs through the command's listing, moves them by the chosen write engine."""

    _listing: RefListing | None  # see listing()

    def head_commit(self) -> str | None:
        """The commit HEAD of this worktree points at, or None on an unborn branch."""
        return commit_id("HEAD", self.cwd) or None

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

    def ref_listing(self, *prefixes: str) -> dict[str, str]:
        """Full ref name -> id of the refs under `prefixes`, in one `git for-each-ref`
        (thousands of refs cost one process, packed or loose)."""
        return plumbing.list_refs(self.cwd, *prefixes)

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
