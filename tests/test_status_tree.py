"""The working tree's tree from one `git status` (gitstore.status_tree) is the tree the
staging way writes (gitstore.worktree_tree.staged_tree: everything staged in a copy of the
index), in every state a working tree can be in; what it cannot mirror it refuses, and the
snapshot then takes the staging way. The user's index is never written.

Both ways run in a child Python with the sealed environment, on real repositories.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.repos import commit_files

BOTH_WAYS = """
import json, sys
from pathlib import Path
from git_teddy.gitstore.secret_files import configured_globs, untracked_secrets
from git_teddy.gitstore.status_tree import CannotServe, status_tree
from git_teddy.gitstore.worktree_tree import staged_tree, worktree_tree

top = Path(sys.argv[1])
git_dir = Path(sys.argv[2])
index, scratch, home = git_dir / "index", git_dir / "teddy" / "tmp", git_dir / "teddy" / "status"
home.mkdir(parents=True, exist_ok=True)
staged = staged_tree(top, index, scratch, None, top)
try:
    fast = status_tree(top, index, home, scratch,
                       lambda paths: untracked_secrets(top, paths, configured_globs(top, None)))
except CannotServe as refused:
    fast = f"refused: {refused}"
print(json.dumps({"staged": staged, "status": fast,
                  "snapshot": worktree_tree(top, index, scratch, home, None, top)}))
"""


def both_ways(repo: Path, env: dict[str, str]) -> dict[str, str]:
    git_dir = git(repo, env, "rev-parse", "--absolute-git-dir").strip()
    proc = subprocess.run(
        [sys.executable, "-c", BOTH_WAYS, str(repo), git_dir],
        cwd=repo,
        env={**env, "PYTHONPATH": str(Path(__file__).parents[1])},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answer: dict[str, str] = json.loads(proc.stdout)
    return answer


def assert_same_tree(repo: Path, env: dict[str, str]) -> str:
    """Both ways agree (twice: the second status reads the untracked cache it wrote), the
    snapshot is that tree, and the user's index file is byte for byte what it was."""
    index = repo / ".git" / "index"
    before = index.read_bytes() if index.exists() else b""
    first, second = both_ways(repo, env), both_ways(repo, env)
    assert first["status"] == first["staged"] == first["snapshot"], first
    assert second == first
    assert (index.read_bytes() if index.exists() else b"") == before
    git(repo, env, "cat-file", "-e", f"{first['status']}^{{tree}}")  # written, readable
    return first["status"]


def write(repo: Path, path: str, text: str | bytes) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    data = text.encode() if isinstance(text, str) else text
    (repo / path).write_bytes(data)


@pytest.fixture
def project(repo: Path, env: dict[str, str]) -> Path:
    for path, text in {
        "src/app.py": "print(1)\n",
        "src/lib/util.py": "x = 1\n",
        "src/lib/deep/more.py": "y = 2\n",
        "docs/guide.md": "# guide\n",
        "run.sh": "echo hi\n",
        ".gitignore": "*.log\nbuild/\n",
    }.items():
        write(repo, path, text)
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "project")
    return repo


def test_a_clean_tree_is_heads_tree(project: Path, env: dict[str, str]) -> None:
    tree = assert_same_tree(project, env)
    assert tree == git(project, env, "rev-parse", "HEAD^{tree}").strip()


def test_tracked_changes_staged_and_not(project: Path, env: dict[str, str]) -> None:
    write(project, "src/app.py", "print(2)\n")
    (project / "docs" / "guide.md").unlink()
    write(project, "src/lib/util.py", "x = 'staged'\n")
    git(project, env, "add", "src/lib/util.py")
    write(project, "src/lib/util.py", "x = 'then edited'\n")
    write(project, "staged-new.txt", "new and staged\n")
    git(project, env, "add", "staged-new.txt")
    git(project, env, "rm", "-q", "--cached", "run.sh")  # staged removal, file kept
    write(project, "intent.txt", "intent to add\n")
    git(project, env, "add", "-N", "intent.txt")
    tree = assert_same_tree(project, env)
    listed = git(project, env, "ls-tree", "-r", "--name-only", tree).split()
    assert "docs/guide.md" not in listed and "intent.txt" in listed and "run.sh" in listed


def test_untracked_files_folders_ignored_and_secrets(project: Path, env: dict[str, str]) -> None:
    new = {
        "top.txt": "new\n",
        "src/lib/new.py": "z = 3\n",
        "fresh/a/b/c.txt": "deep new folder\n",
        "fresh/a/d.txt": "beside\n",
        "debug.log": "ignored\n",
        "build/out.bin": "ignored folder\n",
        ".env": "API_KEY=sk-not-for-snapshots\n",
        "fresh/.env.local": "TOKEN=x\n",
    }
    for path, text in new.items():
        write(project, path, text)
    tree = assert_same_tree(project, env)
    listed = git(project, env, "ls-tree", "-r", "--name-only", tree).split()
    assert {"top.txt", "src/lib/new.py", "fresh/a/b/c.txt", "fresh/a/d.txt"} <= set(listed)
    assert not {"debug.log", "build/out.bin", ".env", "fresh/.env.local"} & set(listed)


def test_odd_names(project: Path, env: dict[str, str]) -> None:
    odd = {
        "new [1]/a*b?.txt": "glob characters in a new folder\n",
        "new [1]/x.txt": "beside\n",
        "new*/only.txt": "a folder named like a glob\n",
        "src/café au lait.py": "unicode and spaces\n",
        '"quoted".txt': "a name starting with a quote\n",
        "src/app.py": "print('tab\tin content')\n",
    }
    for path, text in odd.items():
        write(project, path, text)
    assert_same_tree(project, env)


def test_folders_emptied_replaced_and_everything_removed(project: Path, env: dict) -> None:
    shutil.rmtree(project / "src" / "lib")
    write(project, "src/lib", "a file where a folder was\n")
    assert_same_tree(project, env)
    for entry in project.iterdir():
        if entry.name != ".git":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    empty = assert_same_tree(project, env)
    assert git(project, env, "ls-tree", empty).strip() == ""


def test_exec_bits_with_and_without_core_filemode(project: Path, env: dict) -> None:
    os.chmod(project / "run.sh", 0o755)
    write(project, "tool.sh", "echo new\n")
    os.chmod(project / "tool.sh", 0o755)
    assert_same_tree(project, env)
    git(project, env, "config", "core.fileMode", "false")
    write(project, "tool2.sh", "echo newer\n")
    os.chmod(project / "tool2.sh", 0o755)
    tree = assert_same_tree(project, env)
    assert git(project, env, "ls-tree", tree, "tool2.sh").startswith("100644")


def test_line_endings_and_clean_filters(project: Path, env: dict) -> None:
    write(project, ".gitattributes", "*.txt text eol=crlf\n*.up filter=upper\n")
    git(project, env, "config", "filter.upper.clean", "tr a-z A-Z")
    git(project, env, "config", "filter.upper.smudge", "cat")
    git(project, env, "add", ".gitattributes")
    git(project, env, "commit", "-qm", "attributes")
    write(project, "notes.txt", b"one\r\ntwo\r\n")
    write(project, "shout.up", "quiet words\n")
    git(project, env, "config", "core.autocrlf", "true")
    write(project, "src/app.py", b"print(3)\r\n")
    tree = assert_same_tree(project, env)
    assert git(project, env, "cat-file", "-p", f"{tree}:shout.up") == "QUIET WORDS\n"
    assert git(project, env, "cat-file", "-p", f"{tree}:notes.txt") == "one\ntwo\n"


def test_the_users_index_changing_between_turns(project: Path, env: dict) -> None:
    write(project, "later.txt", "untracked first\n")
    assert_same_tree(project, env)
    git(project, env, "add", "later.txt")
    write(project, "src/app.py", "print('edited after add')\n")
    git(project, env, "commit", "-qm", "user commits")
    write(project, "later.txt", "edited after the commit\n")
    assert_same_tree(project, env)
    git(project, env, "rm", "-qf", "src/app.py")
    assert_same_tree(project, env)


def test_a_sha256_repository(tmp_path: Path, env: dict) -> None:
    path = tmp_path / "sha256"
    made = run(["git", "init", "-q", "--object-format=sha256", str(path)], tmp_path, env)
    if made.returncode != 0:
        pytest.skip(f"this git cannot create a SHA-256 repository: {made.stderr.strip()}")
    commit_files(path, env, {"a.txt": "a\n", "b.txt": "b\n"})
    write(path, "a.txt", "changed\n")
    write(path, "dir/new.txt", "new\n")
    tree = assert_same_tree(path, env)
    assert len(tree) == 64


@pytest.mark.parametrize(
    "shape", ["symlink", "nested repository", "conflict", "sparse", "folder where a file was"]
)
def test_what_status_cannot_mirror_takes_the_staging_way(
    shape: str, project: Path, env: dict
) -> None:
    if shape == "symlink":
        os.symlink("src/app.py", project / "link.py")
    elif shape == "nested repository":
        nested = project / "vendor" / "lib"
        nested.mkdir(parents=True)
        git(nested, env, "init", "-q")
        commit_files(nested, env, {"x.txt": "x\n"})
    elif shape == "conflict":
        git(project, env, "checkout", "-q", "-b", "other")
        write(project, "src/app.py", "print('other')\n")
        git(project, env, "commit", "-qam", "other")
        git(project, env, "checkout", "-q", "-")
        write(project, "src/app.py", "print('main')\n")
        git(project, env, "commit", "-qam", "main")
        run(["git", "merge", "-q", "other"], project, env)
    elif shape == "sparse":
        git(project, env, "sparse-checkout", "set", "src")
    else:  # status does not look inside a folder at a tracked file's path
        (project / "docs" / "guide.md").unlink()
        write(project, "docs/guide.md/inside.txt", "a folder where a file was\n")
    answer = both_ways(project, env)
    assert answer["status"].startswith("refused: "), answer
    if shape != "conflict":  # the staging way has its own answer to a conflict
        assert answer["snapshot"] == answer["staged"]


def test_a_turn_snapshots_through_status(project: Path, teddy: Teddy, env: dict) -> None:
    """The real executable: a dirty working tree's snapshot is the staging way's tree, and
    teddy's copy of the index (with git's untracked cache) is where the design keeps
    derived state."""
    write(project, "src/app.py", "print('dirty')\n")
    write(project, "untracked/new.txt", "new\n")
    result = teddy(project, "new", "status-snapshot")
    assert result.returncode == 0, result.stderr
    snapshot = git(project, env, "log", "-1", "--format=%(trailers:key=Teddy-Snapshot,valueonly)",
                   "teddy/" + next(iter(_sessions(project, env))) + "/main").strip()  # fmt: skip
    expected = both_ways(project, env)["staged"]
    assert git(project, env, "rev-parse", f"{snapshot}^{{tree}}").strip() == expected
    copies = list((project / ".git" / "teddy" / "status").glob("*.index"))
    assert len(copies) == 1
    assert "UNTR" in copies[0].read_bytes().decode("latin-1")  # the untracked cache


def _sessions(repo: Path, env: dict[str, str]) -> list[str]:
    names = git(repo, env, "for-each-ref", "--format=%(refname:short)", "refs/heads/teddy/")
    return [name.split("/")[1] for name in names.split()]
