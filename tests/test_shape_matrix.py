"""Issue 13's repository-shape matrix: the whole flow (new -> plan -> execute -> restore ->
blame) of the real `git teddy` in each repository shape users have, checking what git would
check. Each shape's own corner cases are in its tests/test_shape_*.py file; here every shape
runs the same two turns:

- turn 01 EDITs `app.txt`, CREATEs `notes/new.txt` and EXECUTEs `cat app.txt`;
- turn 02 EDITs `app.txt` again; then `restore 01` and `blame notes/new.txt`.

After each step the files on disk are exactly what `git checkout` would write for their
content (the smudge side of eol, filters and ident: see `checkout_form`), `git status` shows
just the turn's changes, and at the end `git fsck --strict` is clean, the user's index is
unchanged, the user's worktrees are as they were (teddy's own are locked, and live outside the
project, in the user's cache: no copy of a project file is anywhere in its folder, issue 30),
and no user hook ran. Shapes that cannot be served are refused before anything is written
(the last tests).
"""

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create, edit, execute, plan_text
from testing.sessions import queue
from testing.signing import sign_with_a_new_ssh_key
from testing.worktrees import cache_root, scratch_entries, scratch_paths

APP = "one\ntwo\nthree\n"
ROT13 = "tr A-Za-z N-ZA-Mn-za-m"  # its own inverse: a clean and smudge filter pair
HOOKS = ("post-checkout", "pre-commit", "commit-msg", "post-commit", "post-index-change")


@dataclass
class Shape:
    """A repository shape: `build` makes it and returns the folder the user works in."""

    name: str
    build: Callable[[Path, dict[str, str]], Path]
    check: Callable[[Path, dict[str, str]], None] = lambda work, env: None
    on_disk: dict[str, bytes] = field(default_factory=dict)  # app.txt after turn 01, raw
    command: str = "cat app.txt"  # turn 01's EXECUTE, run in the scratch worktree
    below: str = ""  # the subdirectory the user runs git teddy in (plan paths stay root-relative)
    environ: Callable[[Path], dict[str, str]] = lambda work: {}  # GIT_DIR and friends, if set
    app: str = "app.txt"  # the file both turns EDIT
    new: str = "notes/new.txt"  # the file turn 01 CREATEs


def _init(path: Path, env: dict[str, str], *options: str) -> Path:
    git(path.parent, env, "init", "-q", *options, str(path))
    return path


def _commit(work: Path, env: dict[str, str], files: dict[str, str]) -> None:
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(text.encode())
    git(work, env, "add", ".")
    git(work, env, "commit", "-qm", "initial")


def plain(tmp: Path, env: dict[str, str]) -> Path:
    work = _init(tmp / "plain", env)
    _commit(work, env, {"app.txt": APP})
    return work


def sha256(tmp: Path, env: dict[str, str]) -> Path:
    made = run(["git", "init", "-q", "--object-format=sha256", str(tmp / "w")], tmp, env)
    if made.returncode != 0:
        pytest.skip(f"this git cannot create a SHA-256 repository: {made.stderr.strip()}")
    _commit(tmp / "w", env, {"app.txt": APP})
    return tmp / "w"


def autocrlf(tmp: Path, env: dict[str, str]) -> Path:
    """core.autocrlf=true: LF in the repository, CRLF on disk."""
    work = _init(tmp / "crlf", env)
    git(work, env, "config", "core.autocrlf", "true")
    _commit(work, env, {"app.txt": APP.replace("\n", "\r\n")})
    return work


def eol_attribute(tmp: Path, env: dict[str, str]) -> Path:
    """`* text eol=crlf` in .gitattributes, autocrlf unset."""
    work = _init(tmp / "eol", env)
    _commit(work, env, {".gitattributes": "*.txt text eol=crlf\n", "app.txt": APP})
    (work / "app.txt").unlink()
    git(work, env, "checkout", "--", "app.txt")  # now CRLF on disk, as git writes it
    return work


def clean_smudge_filter(tmp: Path, env: dict[str, str]) -> Path:
    """A filter driver: the repository holds rot13, the disk plain text."""
    work = _init(tmp / "filter", env)
    git(work, env, "config", "filter.rot13.clean", ROT13)
    git(work, env, "config", "filter.rot13.smudge", ROT13)
    git(work, env, "config", "filter.rot13.required", "true")
    _commit(work, env, {".gitattributes": "app.txt filter=rot13\n", "app.txt": APP})
    return work


def ident(tmp: Path, env: dict[str, str]) -> Path:
    """The `ident` attribute: `$Id$` expanded on disk to the blob id."""
    work = _init(tmp / "ident", env)
    _commit(work, env, {".gitattributes": "app.txt ident\n", "app.txt": "$Id$\n" + APP})
    (work / "app.txt").unlink()
    git(work, env, "checkout", "--", "app.txt")
    return work


def linked_worktree(tmp: Path, env: dict[str, str]) -> Path:
    """The user works in a linked worktree of their repository, on a feature branch."""
    main = plain(tmp, env)
    git(main, env, "worktree", "add", "-q", "-b", "feature", str(tmp / "linked"))
    return tmp / "linked"


def sparse_cone(tmp: Path, env: dict[str, str]) -> Path:
    """A cone-mode sparse checkout of `notes/`: `far/` stays out of the working tree."""
    work = _init(tmp / "sparse", env)
    _commit(work, env, {"app.txt": APP, "far/x.txt": "far\n", "notes/keep.txt": "keep\n"})
    git(work, env, "sparse-checkout", "set", "--cone", "notes")
    return work


def sparse_check(work: Path, env: dict[str, str]) -> None:
    assert not (work / "far").exists()  # still outside the cone
    assert git(work, env, "ls-files", "far").strip() == "far/x.txt"


def user_hooks(tmp: Path, env: dict[str, str]) -> Path:
    """core.hooksPath with hooks that fail and leave a mark: none may run for teddy."""
    work = plain(tmp, env)
    hooks = tmp / "hooks"
    hooks.mkdir()
    for name in HOOKS:
        mark = f"echo {name} $(ps -o args= $PPID) >> '{tmp}/hooks-ran'"
        (hooks / name).write_text(f"#!/bin/sh\n{mark}\nexit 1\n")
        (hooks / name).chmod(0o755)
    git(work, env, "config", "core.hooksPath", str(hooks))
    return work


def submodule(tmp: Path, env: dict[str, str]) -> Path:
    """A real submodule `lib`; the plan's command reads a file of it."""
    lib = _init(tmp / "lib-origin", env)
    _commit(lib, env, {"lib.txt": "library\n"})
    work = plain(tmp, env)
    add = ["-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib"]
    git(work, env, *add)
    git(work, env, "commit", "-qm", "add lib")
    return work


def submodule_untouched(work: Path, env: dict[str, str]) -> None:
    assert git(work / "lib", env, "status", "--porcelain") == ""
    assert (work / "lib" / "lib.txt").read_text() == "library\n"
    git(work / "lib", env, "fsck", "--strict")


def signed(tmp: Path, env: dict[str, str]) -> Path:
    """commit.gpgSign with an ssh key: session commits are signed as git signs."""
    if shutil.which("ssh-keygen") is None:
        pytest.skip("needs ssh-keygen")
    work = plain(tmp, env)
    sign_with_a_new_ssh_key(work, env, tmp)
    return work


def subdirectory(tmp: Path, env: dict[str, str]) -> Path:
    """The user works in `src/` (issue 26): the model still sees the whole tree."""
    work = _init(tmp / "subdir", env)
    _commit(work, env, {"app.txt": APP, "src/code.py": "x = 1\n"})
    return work


def ignore_case(tmp: Path, env: dict[str, str]) -> Path:
    """core.ignoreCase=true, as git sets it on macOS and Windows (a path in two cases:
    test_shape_ignorecase.py)."""
    work = _init(tmp / "ignorecase", env)
    git(work, env, "config", "core.ignoreCase", "true")
    _commit(work, env, {"app.txt": APP, "Old/old.txt": "old\n"})
    return work


SPACED_APP, SPACED_NEW = "my app/app file.txt", "my notes/new file.txt"


def spaces(tmp: Path, env: dict[str, str]) -> Path:
    """Paths with spaces (issue 26), linked in the plan as a model writes them:
    `[my notes/new file.txt](/my notes/new file.txt)`."""
    work = _init(tmp / "spaces", env)
    _commit(work, env, {SPACED_APP: APP})
    return work


def relative_git_dir(work: Path) -> dict[str, str]:
    """`GIT_DIR=../.git GIT_WORK_TREE=..` from `src/` (issue 26): relative, as a user sets them."""
    return {"GIT_DIR": "../.git", "GIT_WORK_TREE": ".."}


def every_session_commit_verifies(work: Path, env: dict[str, str]) -> None:
    branches = git(work, env, "for-each-ref", "--format=%(refname)", "refs/heads/teddy/")
    commits = {c for ref in branches.split() for c in git(work, env, "rev-list", ref).split()}
    assert commits
    for commit in commits:
        git(work, env, "verify-commit", commit)


def no_user_hook_ran(work: Path, env: dict[str, str]) -> None:
    ran = work.parent / "hooks-ran"
    assert not ran.exists(), ran.read_text()


SHAPES = [
    Shape("plain", plain),
    Shape("sha256", sha256),
    Shape(
        "autocrlf",
        autocrlf,
        on_disk={"app.txt": b"one\r\nTWO\r\nthree\r\n"},
    ),
    Shape(
        "eol-attribute",
        eol_attribute,
        on_disk={"app.txt": b"one\r\nTWO\r\nthree\r\n"},
    ),
    Shape(
        "filter",
        clean_smudge_filter,
        on_disk={"app.txt": b"one\nTWO\nthree\n"},
    ),
    Shape("ident", ident),
    Shape("linked-worktree", linked_worktree),
    Shape("sparse-cone", sparse_cone, sparse_check),
    Shape("user-hooks", user_hooks, no_user_hook_ran),
    Shape("submodule", submodule, submodule_untouched, command="cat app.txt lib/lib.txt"),
    Shape("commit-gpgsign", signed, every_session_commit_verifies),
    Shape("subdirectory", subdirectory, below="src"),
    Shape("ignore-case", ignore_case),
    Shape("relative-git-dir", subdirectory, below="src", environ=relative_git_dir),
    Shape(
        "space-in-path",
        spaces,
        command=f"cat '{SPACED_APP}'",
        app=SPACED_APP,
        new=SPACED_NEW,
    ),
]


# ---- what git would check -----------------------------------------------------------------


def _git_bytes(work: Path, env: dict[str, str], *args: str) -> bytes:
    done = subprocess.run(["git", *args], cwd=work, env=env, capture_output=True, check=True)
    return done.stdout


def checkout_form(work: Path, env: dict[str, str], rel: str) -> bytes:
    """The bytes `git checkout` writes for the content now in `rel`: cleaned into a blob as
    `git add` would, then smudged back for that path."""
    blob = _git_bytes(work, env, "hash-object", "-w", f"--path={rel}", rel).decode().strip()
    return _git_bytes(work, env, "cat-file", "--filters", f"--path={rel}", blob)


def assert_as_git_writes(work: Path, env: dict[str, str], *paths: str) -> None:
    for rel in paths:
        assert (work / rel).read_bytes() == checkout_form(work, env, rel), rel


def text_of(work: Path, rel: str) -> str:
    """The file's text as the user reads it, whatever its line endings or ident."""
    text = (work / rel).read_bytes().decode().replace("\r\n", "\n")
    return re.sub(r"\$Id: [0-9a-f]+ \$", "$Id$", text).removeprefix("$Id$\n")


def user_state(work: Path, env: dict[str, str]) -> tuple[str, list[str]]:
    """The user's index entries and their worktrees (teddy's own scratch ones left out)."""
    index = git(work, env, "ls-files", "-s")
    listed = git(work, env, "worktree", "list", "--porcelain").split("\n\n")
    pool = str(cache_root(env))
    return index, sorted(entry for entry in listed if entry.strip() and pool not in entry)


def assert_teddy_worktrees_locked(work: Path, env: dict[str, str]) -> None:
    ours = scratch_entries(work, env)
    assert ours and all("locked" in entry for entry in ours), ours


def assert_no_copy_in_the_project(work: Path, env: dict[str, str], app: str) -> None:
    """The scratch worktrees are in the user's cache, and nothing in the project folder (its
    .git included) holds a copy of a project file: `grep -r` and test runners see one."""
    for path in scratch_paths(work, env):
        assert not path.is_relative_to(work) and path.is_relative_to(cache_root(env)), path
    assert sorted(work.rglob(Path(app).name)) == [work / app]


def git_name(path: str) -> str:
    """A path as `git status --porcelain` names it: quoted when it holds a space."""
    return f'"{path}"' if " " in path else path


def status(work: Path, env: dict[str, str]) -> list[str]:
    # --no-optional-locks: this status must not refresh the index (post-index-change hook)
    return sorted(
        git(work, env, "--no-optional-locks", "status", "--porcelain", "-uall").splitlines()
    )


# ---- the flow ---------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_the_whole_flow(shape: Shape, tmp_path: Path, env: dict, replies: Path) -> None:
    work = shape.build(tmp_path, env)
    here = work / shape.below
    teddy = Teddy({**env, **shape.environ(work)})
    before = user_state(work, env)
    app, new = shape.app, shape.new
    queue(
        replies,
        plan_text(edit(app, "two", "TWO"), create(new, "new\n"), execute(shape.command)),
        plan_text(edit(app, "three", "THREE")),
    )
    session = teddy.ok(here, "new", "shape").stdout.strip()
    if shape.below:  # a path typed here is from here, as git's; the context's from the top
        teddy.ok(here, "add", "*.py")
        seen = teddy.ok(here, "context", "--json").stdout
        assert "src/code.py" in seen and "app.txt" in seen, seen
    teddy.ok(here, "plan", "-m", "first")
    teddy.ok(here, "execute", "-y")
    assert text_of(work, app) == "one\nTWO\nthree\n"
    assert text_of(work, new) == "new\n"
    if shape.on_disk:
        assert (work / app).read_bytes() == shape.on_disk["app.txt"]
    assert_as_git_writes(work, env, app, new)
    assert status(work, env) == sorted([f" M {git_name(app)}", f"?? {git_name(new)}"])

    teddy.ok(here, "plan", "-m", "second")
    teddy.ok(here, "execute", "-y")
    assert text_of(work, app) == "one\nTWO\nTHREE\n"
    assert_as_git_writes(work, env, app)

    teddy.ok(here, "restore", "01")
    assert text_of(work, app) == "one\nTWO\nthree\n"
    assert_as_git_writes(work, env, app, new)
    blamed = teddy.ok(here, "blame", os.path.relpath(work / new, here))
    blamed = blamed.stdout.split(None, 2)
    assert blamed[:2] == ["1", f"{session}/01"]

    shape.check(work, env)
    assert user_state(work, env) == before
    assert_teddy_worktrees_locked(work, env)
    assert_no_copy_in_the_project(work, env, app)
    fsck = run(["git", "fsck", "--strict", "--no-dangling"], work, env)
    assert fsck.returncode == 0 and not fsck.stderr.strip(), fsck.stderr


# ---- shapes refused before anything is written ----------------------------------------------


def test_a_branch_in_the_way_of_the_ref_prefix_is_refused_before_writing(
    tmp_path: Path, env: dict
) -> None:
    work = plain(tmp_path, env)
    git(work, env, "branch", "teddy")
    refs_before = git(work, env, "for-each-ref")
    result = Teddy(env)(work, "new", "clash")
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and "\nhint: " in result.stderr
    assert "Traceback" not in result.stderr
    assert git(work, env, "for-each-ref") == refs_before
    fsck = run(["git", "fsck", "--strict", "--no-dangling"], work, env)
    assert fsck.returncode == 0 and not fsck.stderr.strip(), fsck.stderr
