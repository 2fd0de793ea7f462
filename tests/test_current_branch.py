"""Which conversation branch a session continues on, asked of the session store (where the
next turn is planned) and of the session index (`list --json`'s current_branch): one rule,
Layout.current_branch, so they agree: the branch last chosen here, else main (and, should
main be deleted by hand, the first branch by name rather than a crash)."""

import json
from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import create, plan_text


def tips(repo: Path, env: dict[str, str], session: str) -> dict[str, str]:
    out = git(
        repo,
        env,
        "for-each-ref",
        "--format=%(refname:lstrip=4) %(objectname)",
        f"refs/heads/teddy/{session}",
    )
    return dict(line.split(" ") for line in out.splitlines())


def listed_branch(repo: Path, teddy: Teddy) -> str:
    (row,) = json.loads(teddy.ok(repo, "list", "--json").stdout)
    return str(row["current_branch"])


def planned_on(repo: Path, env: dict[str, str], teddy: Teddy, session: str, name: str) -> str:
    """Plan (and execute) a turn where the store puts it; the branch it went on."""
    before = tips(repo, env, session)
    plan = repo.parent / f"{name}.md"
    plan.write_text(plan_text(create(f"{name}.txt", "x\n")))
    teddy.ok(repo, "plan", "-m", name, "--from-file", str(plan))
    after = tips(repo, env, session)
    teddy.ok(repo, "execute", "-y")
    (moved,) = [branch for branch, tip in after.items() if before.get(branch) != tip]
    return moved


def test_store_and_index_agree_on_the_current_branch(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    session = teddy.ok(repo, "new", "forked").stdout.strip()
    for name in ("first", "second"):
        assert planned_on(repo, env, teddy, session, name) == "main"
    replies = repo.parent / "replies"
    replies.mkdir()
    (replies / "01.md").write_text(plan_text(create("other.txt", "y\n")))
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(replies))
    teddy.ok(repo, "branch", "02", "-m", "another way")
    teddy.ok(repo, "execute", "-y")
    assert set(tips(repo, env, session)) == {"main", "02-branch-01"}

    # The branch just made is the current one, for the index and for the next turn.
    assert listed_branch(repo, teddy) == "02-branch-01"
    assert planned_on(repo, env, teddy, session, "third") == "02-branch-01"
    assert listed_branch(repo, teddy) == "02-branch-01"

    # Without the local choice: main, for both.
    (repo / ".git" / "teddy" / "sessions" / session / "branch").unlink()
    assert listed_branch(repo, teddy) == "main"
    assert planned_on(repo, env, teddy, session, "fourth") == "main"

    # main deleted by hand: both go on with the branch that is left.
    git(repo, env, "branch", "-D", f"teddy/{session}/main")
    assert listed_branch(repo, teddy) == "02-branch-01"
    teddy.ok(repo, "show", session)
    assert planned_on(repo, env, teddy, session, "fifth") == "02-branch-01"
