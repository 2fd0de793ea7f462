"""A push shares sessions, not unpublished history: a snapshot's parents are snapshots only
and the HEAD it was taken on is its `Teddy-Head` trailer, so a session started on a private,
never-pushed branch sends none of that branch's commits; restore, diff, blame and undo read
the same, and sessions written in the old shape (a base snapshot with HEAD as its parent,
or HEAD itself) keep working."""

import json
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create, edit, plan_text
from testing.repos import bare_remote
from testing.sessions import start

PRIVATE_NOTE = "codename nightingale, not for the team\n"


def _private_branch(repo: Path, env: dict) -> dict[str, str]:
    """A branch never pushed: a file added then deleted, a file kept, app.py extended.
    Its commits and the deleted file's blob, by name."""
    git(repo, env, "checkout", "-qb", "private")
    (repo / "notes.txt").write_text(PRIVATE_NOTE)
    (repo / "kept.txt").write_text("kept from the private branch\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "private: notes about nightingale")
    deleted_blob = git(repo, env, "rev-parse", "HEAD:notes.txt").strip()
    first = git(repo, env, "rev-parse", "HEAD").strip()
    (repo / "notes.txt").unlink()
    with (repo / "app.py").open("a") as handle:
        handle.write("print('private line')\n")
    git(repo, env, "commit", "-qam", "private: drop the notes")
    second = git(repo, env, "rev-parse", "HEAD").strip()
    return {"first": first, "second": second, "deleted_blob": deleted_blob}


def _on_remote(remote: Path, env: dict, sha: str) -> bool:
    return run(["git", "cat-file", "-e", sha], remote, env).returncode == 0


def _origins(repo: Path, teddy: Teddy, path: str) -> dict[int, str]:
    rows = [line.split(None, 2) for line in teddy.ok(repo, "blame", path).stdout.splitlines()]
    return {int(number): origin for number, origin, _ in rows}


def test_a_push_never_sends_the_private_branch_it_was_started_on(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    remote = bare_remote(tmp_path, repo, env)
    private = _private_branch(repo, env)
    (repo / "README.md").write_text("# demo, edited by hand\n")  # in the base snapshot
    session = start(repo, teddy, create("b.txt", "bee\n"))
    teddy.ok(repo, "execute", "-y")

    pushed = teddy.ok(repo, "push")
    # README.md (hand edit), kept.txt and app.py (the private branch's), b.txt (the turn's)
    assert "shared 4 project file(s) origin had not seen" in pushed.stdout
    for commit in (private["first"], private["second"]):
        assert not _on_remote(remote, env, commit)
    assert not _on_remote(remote, env, private["deleted_blob"])
    everything = git(remote, env, "rev-list", "--all").split()
    assert private["first"] not in everything and private["second"] not in everything
    messages = git(remote, env, "log", "--all", "--format=%B")
    assert "nightingale" not in messages and "private:" not in messages
    kept = git(repo, env, "rev-parse", "HEAD:kept.txt").strip()
    assert _on_remote(remote, env, kept)  # the files the snapshots hold do travel

    again = teddy.ok(repo, "push")  # nothing new
    assert "shared 0 project file(s)" in again.stdout
    assert session in again.stdout

    # A teammate reads it all, without the private commits: blame says where lines came from.
    other = tmp_path / "other"
    git(tmp_path, env, "clone", "-q", str(remote), str(other))
    teddy.ok(other, "fetch")
    teddy.ok(other, "restore", "01", "-s", session)
    assert (other / "kept.txt").read_text() == "kept from the private branch\n"
    assert (other / "b.txt").read_text() == "bee\n"
    head = private["second"]
    blamed = teddy.ok(other, "blame", "kept.txt").stdout
    assert f"base snapshot of session {session} (on commit {head[:12]}, not here)" in blamed
    assert _origins(other, teddy, "b.txt") == {1: f"{session}/01"}


def test_restore_diff_blame_and_undo_on_a_private_branch(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    _private_branch(repo, env)
    session = start(repo, teddy, edit("kept.txt", "kept", "KEPT by the model"))
    teddy.ok(repo, "execute", "-y")
    (repo / "app.py").write_text((repo / "app.py").read_text() + "print('by hand')\n")

    origins = _origins(repo, teddy, "app.py")
    assert origins[1] == "commit:"  # "commit: initial", split on spaces: before the session
    assert origins[2] == "commit:"  # the private branch's commit
    assert origins[3] == "not"  # not committed (your edit)
    blamed = teddy.ok(repo, "blame", "app.py:2").stdout
    assert "private: drop the notes" in blamed
    assert _origins(repo, teddy, "kept.txt") == {1: f"{session}/01"}

    diff = teddy.ok(repo, "diff", f"{session}/01").stdout
    assert "-kept from the private branch" in diff and "+KEPT by the model" in diff

    base = json.loads(teddy.ok(repo, "list", "--json").stdout)[0]["base_snapshot"]
    restored = teddy.ok(repo, "restore", "-s", session, base[:12], "--force")
    assert (repo / "kept.txt").read_text() == "kept from the private branch\n"
    undo = restored.stdout.strip().splitlines()[-1].split(": ", 1)[1]
    teddy.ok(repo, *undo.removeprefix("git teddy ").split())
    assert (repo / "kept.txt").read_text() == "KEPT by the model from the private branch\n"
    assert (repo / "app.py").read_text().endswith("print('by hand')\n")


def _git_input(repo: Path, env: dict, text: str, *args: str) -> str:
    return run(["git", *args], repo, env, input=text, check=True).stdout


def _old_shape(repo: Path, env: dict, session: str, clean: bool) -> str:
    """Rewrite a new session (no turn yet) as an older git-teddy wrote it: its base snapshot
    on top of HEAD (or HEAD itself, for a clean working tree), named by the root commit's
    trailer and kept by a keep commit that has it as a parent. The old base, by id."""
    branch, keep = f"refs/heads/teddy/{session}/main", f"refs/teddy/keep/{session}"
    root = git(repo, env, "rev-parse", branch).strip()
    message = git(repo, env, "log", "-1", "--format=%B", root)
    new_base = message.split("Teddy-Snapshot: ")[1].split()[0]
    if clean:
        old_base = git(repo, env, "rev-parse", "HEAD").strip()
    else:
        tree = f"{new_base}^{{tree}}"
        subject = f"teddy: base snapshot of session {session}"
        old_base = git(repo, env, "commit-tree", tree, "-p", "HEAD", "-m", subject).strip()
    old_message = message.replace(new_base, old_base)
    old_root = git(repo, env, "commit-tree", f"{root}^{{tree}}", "-m", old_message).strip()
    git(repo, env, "update-ref", branch, old_root, root)
    listing = _git_input(repo, env, f"{old_base}\n", "hash-object", "-w", "--stdin")
    tree = _git_input(repo, env, f"100644 blob {listing.strip()}\tsnapshots\n", "mktree")
    keep_message = f"teddy: keep snapshots of session {session}\n\n1 snapshot(s)\n"
    kept = git(repo, env, "commit-tree", tree.strip(), "-p", old_base, "-m", keep_message)
    git(repo, env, "update-ref", keep, kept.strip())
    return old_base


@pytest.mark.parametrize("clean", [False, True], ids=["dirty", "clean"])
def test_sessions_of_the_old_shape_still_read(
    repo: Path, teddy: Teddy, env: dict, replies: Path, clean: bool
) -> None:
    (repo / "app.py").write_text("one\ntwo\n")
    git(repo, env, "commit", "-qam", "two lines")
    if not clean:
        (repo / "README.md").write_text("# demo, by hand\n")
    session = teddy.ok(repo, "new", "old").stdout.strip()
    old_base = _old_shape(repo, env, session, clean)
    assert json.loads(teddy.ok(repo, "list", "--json").stdout)[0]["base_snapshot"] == old_base
    (replies / "001.md").write_text(plan_text(edit("app.py", "two", "TWO by the model")))
    teddy.ok(repo, "plan", "-m", "change two")
    teddy.ok(repo, "execute", "-y")

    assert _origins(repo, teddy, "app.py") == {1: "commit:", 2: f"{session}/01"}
    diff = teddy.ok(repo, "diff", f"{session}/01").stdout
    assert "-two" in diff and "+TWO by the model" in diff
    restored = teddy.ok(repo, "restore", "-s", session, old_base[:12])
    assert (repo / "app.py").read_text() == "one\ntwo\n"
    undo = restored.stdout.strip().splitlines()[-1].split(": ", 1)[1]
    teddy.ok(repo, *undo.removeprefix("git teddy ").split())
    assert (repo / "app.py").read_text() == "one\nTWO by the model\n"
    shown = json.loads(teddy.ok(repo, "show", f"{session}/01", "--json").stdout)
    assert shown["files"]["user_prompt.txt"] == "change two\n"
