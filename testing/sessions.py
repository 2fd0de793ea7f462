"""Driving sessions in tests: one started with a plan from a file, plans queued for the
replay provider (one per model call), a turn's report read back."""

from pathlib import Path

import yaml

from testing.commands import Teddy, git
from testing.plans import create, edit, plan_text


def start(repo: Path, teddy: Teddy, *actions: str, memos: str = "") -> str:
    session = teddy.ok(repo, "new", "work").stdout.strip()
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(*actions, memos=memos))
    teddy.ok(repo, "plan", "-m", "do the work", "--from-file", str(plan_file))
    return session


def report_of(repo: Path, env: dict, session: str, turn: str = "01") -> dict:
    return yaml.safe_load(git(repo, env, "show", f"teddy/{session}/main:{turn}/report.md"))


def replay(env: dict, folder: Path, *plans: str) -> None:
    """The replay provider answers with `plans`, one per model call."""
    folder.mkdir(exist_ok=True)
    for number, text in enumerate(plans, start=1):
        (folder / f"{number:02d}.md").write_text(text)
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(folder))


def queue(folder: Path, *plans: str) -> None:
    """Adds `plans` after those already in the replay provider's `folder`."""
    present = len(list(folder.iterdir()))
    for number, text in enumerate(plans, start=present + 1):
        (folder / f"{number:03d}.md").write_text(text)


def three_turns(repo: Path, teddy: Teddy, replies: Path) -> str:
    """A session `travel` of three executed turns: one.txt, two.txt, then one.txt edited."""
    queue(
        replies,
        plan_text(create("one.txt", "1\n")),
        plan_text(create("two.txt", "2\n")),
        plan_text(edit("one.txt", "1", "one")),
    )
    session = teddy.ok(repo, "new", "travel").stdout.strip()
    for message in ("first", "second", "third"):
        teddy.ok(repo, "plan", "-m", message)
        teddy.ok(repo, "execute", "-y")
    return session


def kept_snapshots(repo: Path, env: dict, session: str, prefix: str = "teddy/") -> list[str]:
    """The snapshots a session's keep ref keeps (`refs/<prefix>keep/<id>`, file `snapshots`),
    in the order they were kept; none when there is no keep ref."""
    ref = f"refs/{prefix}keep/{session}"
    if not git(repo, env, "for-each-ref", "--format=x", ref).strip():
        return []
    return git(repo, env, "show", f"{ref}:snapshots").split()


def all_kept_snapshots(repo: Path, env: dict, prefix: str = "teddy/") -> list[str]:
    """The snapshots every keep ref of the repository keeps."""
    keep = f"refs/{prefix}keep/"
    names = git(repo, env, "for-each-ref", "--format=%(refname)", keep).split()
    return [s for name in names for s in kept_snapshots(repo, env, name.removeprefix(keep), prefix)]


def session_with_a_turn(repo: Path, teddy: Teddy, path: str = "a.txt") -> str:
    """A new session whose one turn created `path` and was executed."""
    session = start(repo, teddy, create(path, "from the model\n"))
    teddy.ok(repo, "execute", "-y")
    return session
