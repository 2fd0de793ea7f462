"""Objects and refs written (a part of GitRepo), and the one choice of write engine
(`_git_writes`): dulwich in this process, or git's plumbing (gitstore.gitwrite) in a SHA-256
repository (dulwich writes SHA-1 ids only) or a shared one (git gives what it writes the
group's modes); trees and commits built on them."""

import os
import time
from collections.abc import Collection, Mapping
from pathlib import Path

from dulwich.file import FileLocked
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tree
from dulwich.refs import Ref

from git_teddy.errors import TeddyError
from git_teddy.gitstore import gitwrite, locks, plumbing, runner
from git_teddy.gitstore.config import ConfigPart
from git_teddy.gitstore.objects import FILE_MODE, TREE_MODE, ObjectsPart, _oid
from git_teddy.gitstore.runner import GitFailed

LOCK_RETRIES = 100  # times LOCK_WAIT: how long to wait for another writer's lock
LOCK_WAIT = 0.02
# dulwich reads the whole packed-refs file before it writes any ref: past this size (about
# 700 refs, as `git fetch` and `git gc` leave a monorepo's remote branches) git writes them,
# in a process that costs the same however many refs there are.
BIG_PACKED_REFS = 64 * 1024


def _ref(name: str) -> Ref:
    return Ref(name.encode())


def _signing_failed(failed: GitFailed) -> TeddyError:
    return TeddyError(
        f"could not sign the session commit, so nothing was written: {failed.message}",
        "check user.signingKey and gpg.format (`git commit -S` fails the same way), or let "
        "git teddy write unsigned session commits: `git config teddy.sign never`",
    )


class WritingPart(ObjectsPart, ConfigPart):
    """Writes objects and refs by the engine `_git_writes` chooses; builds trees and commits."""

    object_format: str
    sign_commits: bool  # teddy.sign, commit.gpgsign: the workspace decides
    _big_packed_refs: bool | None  # see _git_writes_refs

    def _git_writes(self) -> bool:
        """Whether git's plumbing writes objects, not dulwich: in a SHA-256 repository
        (dulwich would write SHA-1 ids), and, once teddy_config finds core.sharedRepository
        set, in a shared one (git gives objects and refs the group's modes, dulwich its own)."""
        return self.object_format != plumbing.SHA1 or self.layout.shared.active

    def _git_writes_refs(self) -> bool:
        """Whether refs are written by git: objects are (SHA-256, shared), or dulwich would
        read a big packed-refs file first (BIG_PACKED_REFS)."""
        if self._big_packed_refs is None:
            packed = self.common_dir / "packed-refs"
            self._big_packed_refs = packed.exists() and packed.stat().st_size > BIG_PACKED_REFS
        return self._git_writes() or self._big_packed_refs

    def _add_object(self, obj: ShaFile) -> str:
        """Store an object and return its id; another process writing the same object at
        once is not an error."""
        if self._git_writes():
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

    def _swap_ref(self, name: str, new: str, expected: str | None, reason: str) -> bool:
        # git waits for a held lock itself (core.filesRefLockTimeout)
        if self._git_writes_refs():
            return gitwrite.swap_ref(self.cwd, name, new, expected, f"teddy: {reason}")
        refs, message = self.dulwich.refs, f"teddy: {reason}".encode()
        if expected is None:
            return refs.add_if_new(_ref(name), _oid(new), message=message)
        return refs.set_if_equals(_ref(name), _oid(expected), _oid(new), message=message)

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
