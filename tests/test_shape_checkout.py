"""Repository shapes where the working-tree form of a file is not its repository form
(issue 13): `core.autocrlf`, `text eol=crlf`, clean/smudge and long-running process filters,
`ident`; and gitlinks (a real submodule, an untracked nested repository). Results reach the
user's working tree as `git checkout` writes them; submodule folders are never written,
deleted or entered. Each case runs the real `git teddy` and ends with `git fsck --strict`
clean and the user's index as it was.
"""

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.plans import create, edit, execute
from testing.repos import make_repo
from testing.sessions import report_of, start

# A long-running filter (`filter.<driver>.process`, the protocol git-lfs speaks): smudge
# upper-cases, clean lower-cases. pkt-lines: four hex digits of length, then the data.
PROCESS_FILTER = r"""
import os
import sys
inp, out = sys.stdin.buffer, sys.stdout.buffer

def packets():
    got = []
    while True:
        head = inp.read(4)
        if not head:
            sys.exit(0)
        if head == b"0000":
            return got
        got.append(inp.read(int(head, 16) - 4))

def send(*items):
    for item in items:
        out.write(b"%04x" % (len(item) + 4) + item)
    out.write(b"0000")
    out.flush()

packets(); send(b"git-filter-server\n", b"version=2\n")
packets(); send(b"capability=clean\n", b"capability=smudge\n")
while True:
    meta, data = packets(), b"".join(packets())
    smudge = b"command=smudge\n" in meta
    done = data.upper() if smudge else data.lower()
    send(b"status=success\n")
    send(*[done[i : i + 65000] for i in range(0, len(done), 65000)])
    send()
"""


def commit_bytes(repo: Path, env: dict, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (repo / name).write_bytes(data)  # bytes: the working-tree form exactly
    git(repo, env, "add", *files)
    git(repo, env, "commit", "-qm", "add " + " ".join(files))


@contextmanager
def index_kept(repo: Path, env: dict) -> Iterator[None]:
    """The user's index is the same after the block; fsck is clean."""
    before = git(repo, env, "ls-files", "-s")
    yield
    assert git(repo, env, "ls-files", "-s") == before
    git(repo, env, "fsck", "--strict", "--no-progress")


def changed_lines(repo: Path, env: dict) -> list[str]:
    """The +/- lines of `git diff` (the real change, nothing else)."""
    lines = git(repo, env, "diff").splitlines()
    return [line for line in lines if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def snapshot_blob(repo: Path, env: dict, session: str, path: str) -> bytes:
    snapshot = report_of(repo, env, session)["run_summary"]["snapshot"]
    return git(repo, env, "cat-file", "blob", f"{snapshot}:{path}").encode()


def test_autocrlf_edit_keeps_crlf_on_disk(repo: Path, teddy: Teddy, env: dict) -> None:
    git(repo, env, "config", "core.autocrlf", "true")
    commit_bytes(repo, env, {"notes.txt": b"one\r\ntwo\r\nthree\r\n"})
    assert git(repo, env, "cat-file", "blob", "HEAD:notes.txt") == "one\ntwo\nthree\n"
    with index_kept(repo, env):
        session = start(repo, teddy, edit("notes.txt", "two", "2"), create("new.txt", "a\nb\n"))
        teddy.ok(repo, "execute", "-y")
        assert (repo / "notes.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"
        assert (repo / "new.txt").read_bytes() == b"a\r\nb\r\n"  # as git checkout writes it
        assert snapshot_blob(repo, env, session, "notes.txt") == b"one\n2\nthree\n"
        status = git(repo, env, "status", "--porcelain").splitlines()
        assert sorted(status) == [" M notes.txt", "?? new.txt"]
        assert changed_lines(repo, env) == ["-two", "+2"]


def test_eol_crlf_attribute_through_execute_and_restore(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    commit_bytes(repo, env, {".gitattributes": b"*.txt text eol=crlf\n"})
    commit_bytes(repo, env, {"list.txt": b"alpha\r\nbeta\r\ngamma\r\n"})
    with index_kept(repo, env):
        session = start(repo, teddy, edit("list.txt", "beta", "BETA\ndelta"))
        teddy.ok(repo, "execute", "-y")
        assert (repo / "list.txt").read_bytes() == b"alpha\r\nBETA\r\ndelta\r\ngamma\r\n"
        assert changed_lines(repo, env) == ["-beta", "+BETA", "+delta"]
        git(repo, env, "checkout", "--", "list.txt")  # back to HEAD: then the turn again
        assert "1 file(s) changed" in teddy.ok(repo, "restore", "-s", session, "01").stdout
        assert (repo / "list.txt").read_bytes() == b"alpha\r\nBETA\r\ndelta\r\ngamma\r\n"
        assert git(repo, env, "status", "--porcelain") == " M list.txt\n"


def filtered_repo(repo: Path, env: dict, tmp_path: Path, kind: str) -> None:
    """`*.up` files: upper case in the working tree, lower case in the repository."""
    if kind == "process":
        script = tmp_path / "filter.py"
        script.write_text(PROCESS_FILTER)
        git(repo, env, "config", "filter.upper.process", f"'{sys.executable}' '{script}'")
    else:
        git(repo, env, "config", "filter.upper.smudge", "tr a-z A-Z")
        git(repo, env, "config", "filter.upper.clean", "tr A-Z a-z")
    git(repo, env, "config", "filter.upper.required", "true")
    commit_bytes(repo, env, {".gitattributes": b"*.up filter=upper\n"})
    commit_bytes(repo, env, {"words.up": b"HELLO\nWORLD\n"})
    assert git(repo, env, "cat-file", "blob", "HEAD:words.up") == "hello\nworld\n"


@pytest.mark.parametrize("kind", ["commands", "process"])
def test_filtered_file_is_smudged_on_disk_and_clean_in_snapshots(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path, kind: str
) -> None:
    filtered_repo(repo, env, tmp_path, kind)
    with index_kept(repo, env):
        # EDIT works on the scratch worktree, which git checked out: the smudged form
        session = start(repo, teddy, edit("words.up", "WORLD", "THERE"))
        teddy.ok(repo, "execute", "-y")
        (log,) = report_of(repo, env, session)["action_logs"]
        assert log["status"] == "SUCCESS", log
        assert snapshot_blob(repo, env, session, "words.up") == b"hello\nthere\n"
        assert (repo / "words.up").read_bytes() == b"HELLO\nTHERE\n"
        assert changed_lines(repo, env) == ["-world", "+there"]  # git diff shows clean form
        git(repo, env, "checkout", "--", "words.up")
        teddy.ok(repo, "restore", "-s", session, "01")
        assert (repo / "words.up").read_bytes() == b"HELLO\nTHERE\n"
        assert git(repo, env, "status", "--porcelain") == " M words.up\n"


def test_ident_is_expanded_on_disk(repo: Path, teddy: Teddy, env: dict) -> None:
    commit_bytes(repo, env, {".gitattributes": b"*.c ident\n"})
    commit_bytes(repo, env, {"main.c": b"/* $Id$ */\nint x = 1;\n"})
    with index_kept(repo, env):
        session = start(repo, teddy, edit("main.c", "int x = 1;", "int x = 2;"))
        teddy.ok(repo, "execute", "-y")
        snapshot = report_of(repo, env, session)["run_summary"]["snapshot"]
        blob = git(repo, env, "rev-parse", f"{snapshot}:main.c").strip()
        assert (repo / "main.c").read_bytes() == f"/* $Id: {blob} $ */\nint x = 2;\n".encode()
        assert snapshot_blob(repo, env, session, "main.c") == b"/* $Id$ */\nint x = 2;\n"
        assert changed_lines(repo, env) == ["-int x = 1;", "+int x = 2;"]


def test_gitattributes_changed_by_the_turn_applies_to_its_files(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    with index_kept(repo, env):
        start(
            repo,
            teddy,
            create(".gitattributes", "*.bat text eol=crlf\n"),
            create("run.bat", "a\nb\n"),
        )
        teddy.ok(repo, "execute", "-y")
        assert (repo / "run.bat").read_bytes() == b"a\r\nb\r\n"


# ---- gitlinks --------------------------------------------------------------------------------


def library(tmp_path: Path, env: dict) -> tuple[Path, list[str]]:
    """A repository to use as a submodule, with two commits (oldest first)."""
    lib = make_repo(tmp_path / "lib-origin", env, {"lib.txt": "v1\n"})
    (lib / "lib.txt").write_text("v2\n")
    git(lib, env, "commit", "-qam", "v2")
    return lib, git(lib, env, "rev-list", "--reverse", "HEAD").split()


def with_submodule(repo: Path, env: dict, tmp_path: Path) -> list[str]:
    lib, commits = library(tmp_path, env)
    git(repo, env, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    git(repo, env, "commit", "-qm", "add the submodule")
    return commits


def notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("note: ")]


def test_restore_over_a_moved_submodule_leaves_it_and_says_so(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    old, new = with_submodule(repo, env, tmp_path)
    with index_kept(repo, env):
        session = start(repo, teddy, edit("app.py", "hello", "bye"))
        teddy.ok(repo, "execute", "-y")
        git(repo / "lib", env, "checkout", "-q", old)  # the user moves the submodule
        git(repo, env, "checkout", "--", "app.py")
        done = teddy.ok(repo, "restore", "--force", "-s", session, "01")
        assert "1 file(s) changed" in done.stdout
        assert (repo / "app.py").read_text() == "print('bye')\n"
        assert git(repo / "lib", env, "rev-parse", "HEAD").strip() == old
        assert git(repo / "lib", env, "status", "--porcelain") == ""
        assert (repo / "lib" / "lib.txt").read_text() == "v1\n"
        again = teddy.ok(repo, "restore", "--force", "-s", session, "01")
        assert notes(again.stderr) == [
            f"note: submodule 'lib' is left at {old[:12]} while the new state has "
            f"{new[:12]}; to move it: git submodule update -- lib"
        ]
        assert git(repo / "lib", env, "rev-parse", "HEAD").strip() == old


def test_a_command_replacing_a_submodule_keeps_it_and_says_so(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    """A change inside (or of) a submodule cannot be in a superproject snapshot: the result
    keeps the submodule as the base had it, the rest is applied, and a note says so."""
    with_submodule(repo, env, tmp_path)
    with index_kept(repo, env):
        start(repo, teddy, edit("app.py", "hello", "bye"), execute("rm -rf lib && echo x > lib"))
        done = teddy.ok(repo, "execute", "-y")
        assert "note: changes inside submodule lib are not part of the result" in done.stdout
        assert (repo / "app.py").read_text() == "print('bye')\n"
        assert (repo / "lib" / "lib.txt").read_text() == "v2\n"
        assert git(repo, env, "status", "--porcelain") == " M app.py\n"


def test_restoring_a_file_into_a_nested_repository_is_refused_before_writing(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """Turn 01 made data/x.txt; the user then made data/ a repository of its own: restoring
    01 would write into it, so nothing is written and the hint says what to move."""
    with index_kept(repo, env):
        session = start(repo, teddy, edit("app.py", "hello", "bye"), create("data/x.txt", "x\n"))
        teddy.ok(repo, "execute", "-y")
        (repo / "data" / "x.txt").unlink()
        nested_repo(repo / "data" / "inner", env, "mine\n")
        os.rename(repo / "data" / "inner", repo / "data2")
        (repo / "data").rmdir()
        os.rename(repo / "data2", repo / "data")
        git(repo, env, "checkout", "--", "app.py")
        failed = teddy(repo, "restore", "--force", "-s", session, "01")
        assert failed.returncode == 1, failed.stdout
        assert failed.stderr.startswith("error: ") and "\nhint: " in failed.stderr
        assert "data" in failed.stderr and "Traceback" not in failed.stderr
        assert (repo / "app.py").read_text() == "print('hello')\n"  # nothing written
        assert (repo / "data" / "own.txt").read_text() == "mine\n"
        assert not (repo / "data" / "x.txt").exists()


def nested_repo(path: Path, env: dict, text: str) -> str:
    """An untracked repository inside the user's, with one commit; its id."""
    path.mkdir()
    git(path, env, "init", "-q")
    (path / "own.txt").write_text(text)
    git(path, env, "add", ".")
    git(path, env, "commit", "-qm", "nested")
    return git(path, env, "rev-parse", "HEAD").strip()


def test_untracked_nested_repositories_survive_snapshot_and_restore(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    first = nested_repo(repo / "nested", env, "mine\n")
    with index_kept(repo, env):
        session = start(repo, teddy, edit("app.py", "hello", "bye"))
        teddy.ok(repo, "execute", "-y")
        assert (repo / "app.py").read_text() == "print('bye')\n"
        # the user moves on in the nested repository and makes another one
        (repo / "nested" / "own.txt").write_text("mine, later\n")
        git(repo / "nested", env, "commit", "-qam", "later")
        moved = git(repo / "nested", env, "rev-parse", "HEAD").strip()
        other = nested_repo(repo / "other", env, "other\n")
        done = teddy.ok(repo, "restore", "--force", "-s", session, "01")
        assert sorted(notes(done.stderr)) == [
            f"note: nested repository 'nested' is left at {moved[:12]} while the new state "
            f"has {first[:12]}",
            f"note: nested repository 'other' is left in place at {other[:12]}; "
            "the new state does not have it",
        ]
        assert git(repo / "nested", env, "rev-parse", "HEAD").strip() == moved
        assert (repo / "nested" / "own.txt").read_text() == "mine, later\n"
        assert (repo / "other" / "own.txt").read_text() == "other\n"
        teddy.ok(repo, "restore", "--force", "-s", session, "01")
        status = git(repo, env, "status", "--porcelain").splitlines()
        assert sorted(status) == [" M app.py", "?? nested/", "?? other/"]


def test_the_model_reads_files_in_their_working_tree_form(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    filtered_repo(repo, env, tmp_path, "commands")
    commit_bytes(repo, env, {".gitattributes": b"*.up filter=upper\n*.c ident\n"})
    commit_bytes(repo, env, {"main.c": b"/* $Id$ */\n"})
    (repo / ".teddy").mkdir()
    commit_bytes(repo, env, {".teddy/global.context": b"words.up\nmain.c\n"})
    with index_kept(repo, env):
        session = start(repo, teddy, edit("words.up", "WORLD", "THERE"))
        sent = git(repo, env, "show", f"teddy/{session}/main:01/_context.log")
        assert "HELLO\nWORLD\n" in sent and "hello" not in sent  # as the EDIT will find it
        blob = git(repo, env, "rev-parse", "HEAD:main.c").strip()
        assert f"/* $Id: {blob} $ */" in sent
