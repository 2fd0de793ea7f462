"""A repository as git-teddy uses it: GitRepo, one object made of parts, each the module of
this package that owns one concern (config, objects, trees, writing, refs, remotes, blame,
diffs). dulwich reads objects and refs and, in a SHA-1 repository, writes them; the git CLI
(through gitstore.runner) serves discovery, settings, identities, remotes, blame and tree
listings (where git is clearly better or faster), and writes objects and refs in a SHA-256
or shared repository (writing.py makes that choice).

The parts are mixins over the state set here, rather than objects GitRepo delegates to:
callers, and methods written on GitRepo itself, keep reaching every operation (and the
command's caches: one ref listing, the commits read) through one `self`, and each part
declares the state it uses."""

from pathlib import Path

from dulwich.objects import ShaFile
from dulwich.repo import Repo

from git_teddy.gitstore import plumbing
from git_teddy.gitstore.blame import BlamedLine, BlamePart, LineOutOfRange
from git_teddy.gitstore.config import Identity
from git_teddy.gitstore.diffs import DiffsPart
from git_teddy.gitstore.layout import Layout
from git_teddy.gitstore.objects import CommitInfo
from git_teddy.gitstore.plumbing import Location
from git_teddy.gitstore.reflisting import RefListing
from git_teddy.gitstore.refs import RefInTheWay, RefsPart
from git_teddy.gitstore.remotes import RemotesPart
from git_teddy.gitstore.trees import TreesPart
from git_teddy.settings import Settings

__all__ = [
    "BlamedLine",
    "CommitInfo",
    "GitRepo",
    "Identity",
    "LineOutOfRange",
    "RefInTheWay",
]


class GitRepo(RefsPart, TreesPart, RemotesPart, BlamePart, DiffsPart):
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
        # (and, once teddy_config finds core.sharedRepository set, everything: see
        # WritingPart._git_writes).
        self.object_format = location.object_format
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
        self._sizes: dict[str, int] = {}  # blob sizes, asked of git once (see _bounded)
        self._tree_diffs: dict[tuple[str, str], str] = {}  # see raw_tree_diff
        self._big_packed_refs: bool | None = None  # see _git_writes_refs

    @classmethod
    def discover(cls, cwd: Path | None = None) -> "GitRepo":
        return cls(plumbing.locate(cwd))
