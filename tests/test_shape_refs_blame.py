"""Repository shapes of issue 13: refs of the user's that clash with the ref prefix (`new`
refuses before writing anything, or never leaves half a session), and `blame` from a
subdirectory and after turns that changed nothing."""

from pathlib import Path

import pytest

from testing.commands import Result, Teddy, git
from testing.plans import edit, execute, plan_text
from testing.sessions import start

SESSION = "20261126-work"  # the sealed environment's date and start()'s name


def fsck_clean(repo: Path, env: dict) -> None:
    git(repo, env, "fsck", "--strict", "--no-progress")


def refs(repo: Path, env: dict) -> str:
    return git(repo, env, "for-each-ref", "--format=%(refname) %(objectname)")


def loose_objects(repo: Path, env: dict) -> str:
    return git(repo, env, "count-objects")


def refused(result: Result, *words: str) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    error, _, hint = result.stderr.partition("\nhint: ")
    assert error.startswith("error: ") and hint, result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


@pytest.mark.parametrize("packed", [False, True], ids=["loose", "packed"])
@pytest.mark.parametrize(
    ("make_ref", "blocking"),
    [
        (["branch", "teddy"], "refs/heads/teddy"),
        (["branch", f"teddy/{SESSION}"], f"refs/heads/teddy/{SESSION}"),
        (["update-ref", "refs/teddy", "HEAD"], "refs/teddy"),
        (["update-ref", "refs/teddy/keep", "HEAD"], "refs/teddy/keep"),
    ],
    ids=["branch-teddy", "branch-teddy-session", "ref-teddy", "ref-keep"],
)
def test_new_refuses_a_ref_in_the_way_and_writes_nothing(
    repo: Path, teddy: Teddy, env: dict, make_ref: list[str], blocking: str, packed: bool
) -> None:
    git(repo, env, *make_ref)
    if packed:  # no file in the way then: dulwich would happily write beside a packed ref
        git(repo, env, "pack-refs", "--all")
    (repo / "app.py").write_text("print('dirty')\n")  # a snapshot would be a new object
    before, objects = refs(repo, env), loose_objects(repo, env)
    result = teddy(repo, "new", "work")
    refused(result, blocking, "git config teddy.refPrefix ai/")
    if blocking.startswith("refs/heads/"):
        assert f"git branch -m {blocking.removeprefix('refs/heads/')}" in result.stderr
    assert refs(repo, env) == before
    assert loose_objects(repo, env) == objects
    assert not (repo / ".git" / "logs" / "refs" / "heads" / "teddy" / SESSION / "main").exists()
    fsck_clean(repo, env)


def test_new_works_after_the_user_changes_the_ref_prefix(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    git(repo, env, "branch", "teddy")
    (repo / "app.py").write_text("print('dirty')\n")
    refused(teddy(repo, "new", "work"), "refs/heads/teddy")
    git(repo, env, "config", "teddy.refPrefix", "ai/")
    assert teddy.ok(repo, "new", "work").stdout.strip() == SESSION
    names = [line.split()[0] for line in refs(repo, env).splitlines()]
    assert f"refs/heads/ai/{SESSION}/main" in names and "refs/heads/teddy" in names
    assert f"refs/ai/keep/{SESSION}" in names
    assert not [n for n in names if n.startswith(("refs/teddy/", "refs/heads/teddy/"))]
    listed = teddy.ok(repo, "list").stdout.splitlines()[-1:]
    assert [s.removeprefix("* ").split()[0] for s in listed] == [SESSION]
    fsck_clean(repo, env)


@pytest.mark.parametrize(
    "stray",
    ["logs/refs/heads/teddy", "logs/refs/teddy"],
    ids=["branch-write-fails", "snapshot-write-fails-after-the-branch"],
)
def test_new_leaves_no_half_session_when_a_ref_write_fails(
    repo: Path, teddy: Teddy, env: dict, stray: str
) -> None:
    """A stray file where git keeps reflogs makes one ref write fail past the clash check:
    the session's branch is written first, and removed again if its snapshot ref fails."""
    (repo / "app.py").write_text("print('dirty')\n")
    (repo / ".git" / stray).write_text("")
    before = refs(repo, env)
    result = teddy(repo, "new", "work")
    refused(result, "could not write the ref")
    assert refs(repo, env) == before
    assert not (repo / ".git" / "logs" / "refs" / "heads" / "teddy" / SESSION).exists()
    fsck_clean(repo, env)
    (repo / ".git" / stray).unlink()
    assert teddy.ok(repo, "new", "work").stdout.strip() == SESSION
    fsck_clean(repo, env)


def origins(result: Result) -> dict[int, str]:
    rows = [line.split(None, 2) for line in result.stdout.splitlines()]
    return {int(number): origin for number, origin, _ in rows}


@pytest.fixture
def nested(repo: Path, env: dict) -> Path:
    """A repository with sub/dir/a.txt committed by the user."""
    (repo / "sub" / "dir").mkdir(parents=True)
    (repo / "sub" / "dir" / "a.txt").write_text("one\ntwo\nthree\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "nested file")
    return repo


def test_blame_takes_paths_as_git_does(nested: Path, teddy: Teddy, env: dict) -> None:
    session = start(nested, teddy, edit("sub/dir/a.txt", "two", "TWO by the model"))
    teddy.ok(nested, "execute", "-y")
    sub, deep = nested / "sub", nested / "sub" / "dir"
    expected = {1: "commit:", 2: f"{session}/01", 3: "commit:"}
    for cwd, path in (
        (deep, "a.txt"),  # relative to the current directory
        (deep, "./a.txt"),
        (sub, "dir/a.txt"),
        (deep, "../dir/a.txt"),
        (nested, "sub/dir/a.txt"),  # from the top, standing at the top
        (deep, ":/sub/dir/a.txt"),  # git's top-relative magic
        (sub, ":(top)sub/dir/a.txt"),
    ):
        assert origins(teddy.ok(cwd, "blame", path)) == expected, (cwd, path)
    only = teddy.ok(deep, "blame", "a.txt:2").stdout
    assert only.split()[:2] == ["2", f"{session}/01"] and "TWO by the model" in only
    assert teddy.ok(sub, "blame", ":/sub/dir/a.txt:2").stdout == only
    # As git: a path from the top typed in a subdirectory names another file; the hint says how.
    refused(teddy(deep, "blame", "sub/dir/a.txt"), "is not a file", ":/sub/dir/a.txt")
    refused(teddy(deep, "blame", "../../../x"), "climbs out")
    fsck_clean(nested, env)


@pytest.mark.parametrize(
    "noop",
    [execute("true"), edit("sub/dir/a.txt", "not in the file", "never written")],
    ids=["execute-true", "failed-edit"],
)
def test_a_turn_that_changed_nothing_is_credited_with_no_line(
    nested: Path, teddy: Teddy, env: dict, noop: str
) -> None:
    start(nested, teddy, noop)
    teddy(nested, "execute", "-y")  # a failed EDIT fails the command; the turn is recorded
    assert git(nested, env, "status", "--porcelain") == ""
    blamed = origins(teddy.ok(nested / "sub", "blame", "dir/a.txt"))
    assert blamed == {1: "commit:", 2: "commit:", 3: "commit:"}
    fsck_clean(nested, env)


def test_a_no_op_turn_after_a_real_one_leaves_the_credit_where_it_was(
    nested: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    session = start(nested, teddy, edit("sub/dir/a.txt", "two", "TWO by the model"))
    teddy.ok(nested, "execute", "-y")
    plan_file = tmp_path / "noop.md"
    plan_file.write_text(plan_text(execute("true")))
    teddy.ok(nested, "plan", "-m", "check", "--from-file", str(plan_file))
    teddy.ok(nested, "execute", "-y")
    blamed = origins(teddy.ok(nested, "blame", "sub/dir/a.txt"))
    assert blamed == {1: "commit:", 2: f"{session}/01", 3: "commit:"}
    fsck_clean(nested, env)
