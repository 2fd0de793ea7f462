"""teddy.autoCommit: an applied result committed to the user's branch (only the turn's files,
the user's hooks run), and `undo` taking that commit back or naming the `git revert`."""

from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import create, edit, plan_text
from testing.repos import bare_remote, commit_files
from testing.sessions import queue, report_of

LONG = "".join(f"line {n}\n" for n in range(1, 21))  # a file to edit in one place


def committing(repo: Path, env: dict, replies: Path, *actions: str) -> None:
    git(repo, env, "config", "teddy.autoCommit", "true")
    queue(replies, plan_text(*actions))


def head(repo: Path, env: dict) -> str:
    return git(repo, env, "rev-parse", "HEAD").strip()


def test_an_applied_result_is_committed_alone_with_the_turns_trailers(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    committing(repo, env, replies, edit("app.py", "hello", "bye"), create("new.txt", "new\n"))
    (repo / "README.md").write_text("# staged by me\n")
    git(repo, env, "add", "README.md")
    (repo / "mine.txt").write_text("untracked, mine\n")
    before = head(repo, env)
    session = teddy.ok(repo, "new", "committed").stdout.strip()
    teddy.ok(repo, "plan", "-m", "say bye\nand add a file")
    done = teddy.ok(repo, "execute", "-y")
    commit = head(repo, env)
    assert commit != before and f"committed as {commit[:12]}" in done.stderr
    assert git(repo, env, "rev-parse", "HEAD~1").strip() == before
    message = git(repo, env, "log", "-1", "--format=%B")
    assert message.splitlines()[0] == "A plan"  # the plan's title
    assert "say bye\nand add a file" in message  # the turn's message below it
    assert f"Teddy-Session: {session}\nTeddy-Turn: 01" in message
    files = git(repo, env, "show", "--format=", "--name-only", "HEAD").split()
    assert sorted(files) == ["app.py", "new.txt"]  # never the user's staged README
    assert git(repo, env, "diff", "--cached", "--name-only").split() == ["README.md"]
    assert git(repo, env, "status", "--porcelain").splitlines() == ["M  README.md", "?? mine.txt"]
    assert report_of(repo, env, session)["run_summary"]["committed"] == commit

    undone = teddy.ok(repo, "undo")
    assert f"removed commit {commit[:12]} (teddy.autoCommit)" in undone.stdout
    assert head(repo, env) == before
    assert (repo / "app.py").read_text() == "print('hello')\n" and not (repo / "new.txt").exists()
    assert git(repo, env, "status", "--porcelain").splitlines() == ["M  README.md", "?? mine.txt"]
    assert (repo / "README.md").read_text() == "# staged by me\n"


def test_the_users_hooks_run_and_a_refusal_leaves_the_result_uncommitted(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    committing(repo, env, replies, create("new.txt", "new\n"))
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        '#!/bin/sh\necho ran >> "$(git rev-parse --git-dir)/hook-ran"\n'
        "echo 'pre-commit: not today' >&2\nexit 1\n"
    )
    hook.chmod(0o755)
    before = head(repo, env)
    session = teddy.ok(repo, "new", "hooked").stdout.strip()
    teddy.ok(repo, "plan", "-m", "add it")
    done = teddy.ok(repo, "execute", "-y")
    assert (repo / ".git" / "hook-ran").read_text() == "ran\n"
    assert "not committed (teddy.autoCommit)" in done.stderr and "not today" in done.stderr
    assert head(repo, env) == before
    assert (repo / "new.txt").read_text() == "new\n"
    assert git(repo, env, "status", "--porcelain").splitlines() == ["?? new.txt"]  # not staged
    assert "committed" not in report_of(repo, env, session)["run_summary"]


def test_a_result_merged_with_your_edits_of_its_files_is_not_committed(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    commit_files(repo, env, {"long.txt": LONG})
    committing(repo, env, replies, edit("long.txt", "line 2\n", "line two\n"))
    before = head(repo, env)
    teddy.ok(repo, "new", "merged")
    teddy.ok(repo, "plan", "-m", "change it")
    (repo / "long.txt").write_text(LONG.replace("line 19\n", "line 19 by me\n"))
    done = teddy.ok(repo, "execute", "-y")
    assert "not committed (teddy.autoCommit): it merged with your edits of long.txt" in done.stderr
    assert head(repo, env) == before


def test_undo_refuses_a_pushed_or_buried_commit_naming_git_revert(
    tmp_path: Path, repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    git(repo, env, "branch", "-M", "main")
    bare_remote(tmp_path, repo, env)
    committing(repo, env, replies, create("new.txt", "new\n"))
    teddy.ok(repo, "new", "shared")
    teddy.ok(repo, "plan", "-m", "add it")
    teddy.ok(repo, "execute", "-y")
    commit = head(repo, env)
    git(repo, env, "push", "-q", "origin", "main")
    refused = teddy.exits(1, repo, "undo")
    assert f"error: turn 01 was committed as {commit[:12]} and it is pushed" in refused.stderr
    assert f"hint: take it back with a new commit: `git revert {commit[:12]}`" in refused.stderr
    assert head(repo, env) == commit and (repo / "new.txt").exists()

    git(repo, env, "commit", "-q", "--allow-empty", "-m", "later work")
    refused = teddy.exits(1, repo, "undo")
    assert "and commits came after it" in refused.stderr
    assert f"git revert {commit[:12]}" in refused.stderr
