"""Files and folders of trees read (a part of GitRepo): paths walked through dulwich's
objects, whole trees and their differences listed by git, files as a checkout writes them."""

from collections.abc import Collection, Mapping
from pathlib import Path, PurePosixPath

from dulwich.objects import Blob, Commit, ShaFile, Tree

from git_teddy.gitstore import checkout, runner, submodules
from git_teddy.gitstore.changes import blob_sizes, read_blobs
from git_teddy.gitstore.layout import Layout
from git_teddy.gitstore.objects import GITLINK_MODE, TREE_MODE, ObjectsPart
from git_teddy.gitstore.runner import GitFailed

NO_INDEX = "no-index"  # a name never written in teddy's scratch folder: an empty index


class TreesPart(ObjectsPart):
    """Reads trees: a path's file or folder, a folder's files, a tree's whole listing."""

    toplevel: Path
    layout: Layout
    _tree_diffs: dict[tuple[str, str], str]  # trees never change: each pair diffed once

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

    def tree_of(self, sha: str) -> str:
        """The tree of a commit, or `sha` itself when it is a tree."""
        obj = self._object(sha.encode())
        return obj.tree.decode() if isinstance(obj, Commit) else sha

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

    def tree_changes(
        self, old_tree: str, new_tree: str
    ) -> dict[str, tuple[tuple[int, str], tuple[int, str]]]:
        """What differs between two trees, as `list_files_sized` would list it: path ->
        ((size, blob) in `old_tree`, (size, blob) in `new_tree`), (0, "") where the path is
        absent (-1 for the size of an old blob no longer stored); one `git diff-tree` (which
        reads only the folders that differ) and one `git cat-file --batch-check` of the
        blobs' sizes."""
        fields = self.raw_tree_diff(old_tree, new_tree).split("\0")
        found: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {}  # path -> (mode, blob)s
        for meta, path in zip(fields[0::2], fields[1::2], strict=False):
            if meta:
                old_mode, mode, old_blob, blob, status = meta.lstrip(":").split(" ")
                before = ("", "") if status == "A" else (old_mode, old_blob)
                found[path] = (before, ("", "") if status == "D" else (mode, blob))
        blobs = {
            blob
            for sides in found.values()
            for mode, blob in sides
            if blob and mode != GITLINK_MODE
        }
        sizes = blob_sizes(sorted(blobs), self.cwd) if blobs else {}

        def sized(mode: str, blob: str, old: bool) -> tuple[int, str]:
            if not blob:
                return 0, ""
            if mode == GITLINK_MODE:
                return -1, blob
            return (sizes.get(blob, -1) if old else sizes[blob]), blob  # an old one gone: -1

        return {
            path: (sized(*old, old=True), sized(*new, old=False))
            for path, (old, new) in found.items()
        }

    def raw_tree_diff(self, old_tree: str, new_tree: str) -> str:
        """`git diff-tree -r -z --no-renames` of two trees, run once per pair in a command
        (`execute` lists what applying writes, then applies it: the same two trees). The
        index is not read: diff-tree loads it whole (for attributes a raw listing never
        uses), so it is pointed at one that does not exist (issue 31: no pass over every
        file)."""
        key = (old_tree, new_tree)
        if key not in self._tree_diffs:
            args = ["diff-tree", "-r", "-z", "--no-renames", old_tree, new_tree]
            no_index = {"GIT_INDEX_FILE": str(self.layout.scratch / NO_INDEX)}
            self._tree_diffs[key] = runner.output(args, self.cwd, no_index)
        return self._tree_diffs[key]

    def worktree_forms(self, blobs: Mapping[str, str]) -> dict[str, bytes]:
        """Each blob (by path) as `git checkout` would write it there: line endings,
        filters, ident. Should a filter fail (an LFS object not fetched), the blobs as
        stored: the model then sees what `git show` shows, not nothing."""
        try:
            scratch = self.layout.shared.make_folders(self.layout.scratch)
            return checkout.worktree_forms(self.toplevel, scratch, blobs)
        except GitFailed:
            return {path: self.read_object(blob) for path, blob in blobs.items()}

    def gitlinks_at(self, commit: str, paths: Collection[str]) -> dict[str, str]:
        """Which of `paths`, and of the folders holding them, are submodules (gitlinks) in
        `commit`: path -> the commit recorded."""
        return submodules.gitlinks(self.cwd, commit, paths, isolated=False)
