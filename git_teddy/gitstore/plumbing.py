"""Named git questions that need no object database: where a repository is, its settings,
its refs, where its hooks live. Standard library only, like the runner: GitRepo and the fast
paths (the session index, the cached `context` answer, the hooks) ask them here alike, with
one git process each and no dulwich. A query over thousands of sessions then costs a few
processes, not one per session."""

import os
from pathlib import Path

from git_teddy.errors import NotARepositoryError
from git_teddy.gitstore import runner

WHERE = ["rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"]
INDEX_PATH = ["--path-format=absolute", "--git-path", "index"]  # GIT_INDEX_FILE honoured
OBJECT_FORMAT = ["--show-object-format"]  # sha1, or sha256 (`git init --object-format`)
SHA1 = "sha1"
REMOTE_KEYS = r"remote\..*\."  # a regular expression of the keys that make a remote


class Location:
    """Where a repository with a working tree is, as `git rev-parse` finds it from `cwd`
    (`git -C`, GIT_DIR and linked worktrees honoured)."""

    def __init__(
        self,
        cwd: Path,
        toplevel: Path,
        git_dir: Path,
        common_dir: Path,
        index_file: Path,
        object_format: str,
    ) -> None:
        self.cwd = cwd
        self.toplevel = toplevel
        self.git_dir = git_dir
        self.common_dir = common_dir  # refs, objects and derived state, shared by worktrees
        self.index_file = index_file  # the index of this worktree
        self.object_format = object_format  # the hash of object ids: sha1 or sha256


_LOCATED: dict[tuple[Path, tuple[str | None, ...]], Location] = {}


def locate(cwd: Path | None = None) -> Location:
    """The repository around `cwd`; without a working tree, NotARepositoryError says why.
    Asked once per process (the CLI's start and the command both ask) for the same place
    and the same GIT_DIR and friends."""
    cwd = cwd or Path.cwd()
    key = (cwd, tuple(os.environ.get(name) for name in runner.REPOSITORY_ENV))
    if key not in _LOCATED:
        _LOCATED[key] = _locate(cwd)
    return _LOCATED[key]


def _locate(cwd: Path) -> Location:
    proc = runner.run([*WHERE, *INDEX_PATH, *OBJECT_FORMAT], cwd)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != 5:
        raise why_no_worktree(cwd)
    git_dir, common_dir, toplevel, index, hash_name = lines
    common = (cwd / common_dir).resolve()
    return Location(cwd, Path(toplevel), Path(git_dir), common, Path(index), hash_name)


def why_no_worktree(cwd: Path) -> NotARepositoryError:
    bare = runner.run(["rev-parse", "--is-bare-repository"], cwd)
    if bare.returncode != 0 and "dubious ownership" in bare.stderr:
        return _dubious_ownership(bare.stderr)
    if bare.returncode != 0:
        return NotARepositoryError(
            "not a git repository (or any of its parent directories)",
            "run git teddy inside a git repository, or create one with `git init`",
        )
    if bare.stdout.strip() == "true":
        return NotARepositoryError(
            "this is a bare repository; git teddy needs a working tree",
            "run it in a clone with a working tree, or add one with `git worktree add`",
        )
    return NotARepositoryError(
        "not inside the repository's working tree",
        "cd into the working tree (or pass `git -C <worktree> teddy ...`)",
    )


def _dubious_ownership(stderr: str) -> NotARepositoryError:
    """git refuses a repository another user owns (safe.directory): say so as git does,
    with the command git gives (issue 26), not "not a git repository"."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    where = lines[0].removeprefix("fatal: ") if lines else "detected dubious ownership"
    command = next((line for line in lines if line.startswith("git config")), None)
    return NotARepositoryError(
        where,
        f"if you trust it, add an exception for it, as git says: `{command}`"
        if command
        else "if you trust it, add it to git's safe.directory (see `git help config`)",
    )


def read_config(cwd: Path | None, section: str, also: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """All values of `<section>.*` keys, by key lower-cased as git compares them; and of the
    keys `also` (lower case, e.g. `commit.gpgsign`), in the same git process. A key set
    without a value (`[commit] gpgsign`) reads as ""."""
    return read_config_and_remotes(cwd, section, also, remotes=False)[0]


def read_config_and_remotes(
    cwd: Path | None, section: str, also: tuple[str, ...] = (), remotes: bool = True
) -> tuple[dict[str, list[str]], list[str]]:
    """read_config, and the names of the remotes (as `git remote` lists them: every
    `remote.<name>.*` section), in the same git process: where their remote-tracking
    branches are (`refs/remotes/<name>/`), so a listing asks for those alone."""
    keys = [f"{section}\\.", *(key.replace(".", "\\.") + "$" for key in also)]
    keys += [REMOTE_KEYS] if remotes else []
    args = ["config", "--get-regexp", f"^({'|'.join(keys)})"]
    proc = runner.run(args, cwd)
    if proc.returncode not in (0, 1):  # 1: no such key at all
        raise runner.failure(args, proc.stderr.strip())
    values: dict[str, list[str]] = {}
    names: dict[str, None] = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        if remotes and key.startswith("remote.") and key.count(".") >= 2:
            names[key[len("remote.") : key.rindex(".")]] = None  # its case kept, as git's
            continue
        values.setdefault(key.lower(), []).append(value)
    if remotes:
        names.update(dict.fromkeys(_kept_remotes(cwd)))
    return values, list(names)


def _kept_remotes(cwd: Path | None) -> list[str]:
    """The names sessions fetched from a URL are kept under (layout.kept_remotes_file)."""
    from git_teddy.gitstore.layout import read_kept_remotes

    try:
        return read_kept_remotes(locate(cwd).common_dir)
    except NotARepositoryError:
        return []


def remote_names(cwd: Path | None) -> list[str]:
    """The remotes' names, as `git remote` lists them (one `git config` process)."""
    return read_config_and_remotes(cwd, "remote")[1]


def is_true(value: str) -> bool:
    """A boolean as git reads one (`git config --type=bool`): a key without a value is
    true; an unknown word is false here (git would refuse it, and so sign nothing)."""
    word = value.strip().lower()
    if word.lstrip("-").isdigit():
        return int(word) != 0
    return word in ("", "true", "yes", "on")


def list_refs(cwd: Path | None, *patterns: str, strict: bool = False) -> dict[str, str]:
    """Full ref name -> object id for the refs under `patterns` (e.g. `refs/heads/teddy`),
    in one `git for-each-ref`, which reads loose and packed refs (and reftables) alike.
    `strict`: a broken ref git warns of and leaves out is a failure too."""
    args = ["for-each-ref", "--format=%(objectname) %(refname)", *patterns]
    refs: dict[str, str] = {}
    for line in runner.output(args, cwd, strict=strict).splitlines():
        sha, _, name = line.partition(" ")
        refs[name] = sha
    return refs


class Worktree:
    """One worktree of the repository: its folder and its own git dir."""

    __slots__ = ("folder", "git_dir")

    def __init__(self, folder: Path, git_dir: Path) -> None:
        self.folder = folder
        self.git_dir = git_dir


def worktrees(cwd: Path, common_dir: Path) -> list[Worktree]:
    """Every worktree of the repository (`git worktree list`; a bare main one left out):
    the main one's git dir is the common dir, a linked one's is named by its `.git` file.
    One whose folder is away (unmounted, deleted) is left out: nothing works in it now."""
    out = runner.output(["worktree", "list", "--porcelain"], cwd)
    found: list[Worktree] = []
    for number, block in enumerate(out.split("\n\n")):
        lines = block.splitlines()
        if not lines or not lines[0].startswith("worktree ") or "bare" in lines:
            continue
        folder = Path(lines[0].removeprefix("worktree "))
        git_dir = common_dir if number == 0 else _linked_git_dir(folder)  # the main one first
        if git_dir is not None:
            found.append(Worktree(folder, git_dir))
    return found


def _linked_git_dir(folder: Path) -> Path | None:
    """The git dir a linked worktree's `.git` file names (`gitdir: PATH`, maybe relative)."""
    try:
        text = (folder / ".git").read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir: "):
        return None
    return folder / text.removeprefix("gitdir: ").strip()


def hooks_path(cwd: Path) -> Path:
    """Where git looks for hooks: `core.hooksPath`, else the common dir's `hooks/`."""
    return cwd / runner.output(["rev-parse", "--git-path", "hooks"], cwd).strip()


class ConfigOrigin:
    """Where the value of a git setting that is in force comes from."""

    def __init__(self, scope: str, origin: str, value: str) -> None:
        self.scope = scope  # system, global, local, worktree or command
        self.origin = origin  # `file:<path>`, `command line:`, ...
        self.value = value


def hooks_path_origin(cwd: Path) -> ConfigOrigin | None:
    """The `core.hooksPath` in force and which config sets it; None when it is not set."""
    args = ["config", "--show-origin", "--show-scope", "--get", "core.hooksPath"]
    proc = runner.run(args, cwd)
    if proc.returncode == 1:  # not set anywhere
        return None
    if proc.returncode != 0:
        raise runner.failure(args, proc.stderr.strip())
    scope, origin, value = proc.stdout.rstrip("\n").split("\t", 2)
    return ConfigOrigin(scope, origin, value)


def commit_time(cwd: Path | None) -> int:
    """Now, as git would date a commit, in seconds since the epoch: GIT_COMMITTER_DATE when
    set (git parses its many forms: one `git var`), else the clock."""
    import os
    import time

    if "GIT_COMMITTER_DATE" not in os.environ:
        return int(time.time())
    proc = runner.run(["var", "GIT_COMMITTER_IDENT"], cwd)
    try:
        return int(proc.stdout.strip().rsplit(" ", 2)[1])
    except (IndexError, ValueError):
        return int(time.time())  # git could not say (no identity): the clock
