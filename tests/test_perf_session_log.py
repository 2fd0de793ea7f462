"""Issue 16 P9: a session commit reads and parses only the turn folders it changed. What
`session.md` needs from a turn folder is cached by the folder's tree id in
`teddy/log-cache/` (session.logcache); the log is the same with the cache, without it, with
damaged entries, and when a file is where the cache folder should be."""

import json
import shutil
from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import create, plan_text
from testing.sessions import start


def two_turns(repo: Path, teddy: Teddy) -> str:
    session = start(repo, teddy, create("one.txt", "1\n"))
    teddy.ok(repo, "execute", "-y")
    plan_file = repo.parent / "plan2.md"
    plan_file.write_text(plan_text(create("two.txt", "2\n")))
    teddy.ok(repo, "plan", "-m", "more", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    return session


def cache_dir(repo: Path, env: dict) -> Path:
    return repo / git(repo, env, "rev-parse", "--git-common-dir").strip() / "teddy" / "log-cache"


def paused_log(repo: Path, teddy: Teddy, env: dict, session: str) -> str:
    """`session.md` after a `pause` (pausing again writes the same log)."""
    teddy.ok(repo, "pause")
    return git(repo, env, "show", f"teddy/{session}/main:session.md")


def test_turn_folders_are_cached_by_tree_id_and_read_back(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = two_turns(repo, teddy)
    folder = git(repo, env, "rev-parse", f"teddy/{session}/main:01").strip()
    entry = cache_dir(repo, env) / f"{folder}.json"
    assert entry.is_file()  # the finished turn 01, as the last commits read it
    warm = paused_log(repo, teddy, env, session)
    assert "## A plan @" in warm

    # The entry is what the next commit uses for turn 01: a title changed in it shows.
    data = json.loads(entry.read_text())
    data["turn"]["plan"]["title"] = "Read from the cache"
    entry.write_text(json.dumps(data))
    assert "## Read from the cache @" in paused_log(repo, teddy, env, session)


def test_the_log_is_the_same_without_the_cache_or_with_it_damaged(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = two_turns(repo, teddy)
    warm = paused_log(repo, teddy, env, session)
    cache = cache_dir(repo, env)
    entries = sorted(cache.iterdir())
    assert entries
    damages = ["{not json", '{"format": 1, "turn": {"name": 3}}', "[]"]
    for number, entry in enumerate(entries):
        entry.write_text(damages[number % len(damages)])
    assert paused_log(repo, teddy, env, session) == warm
    for turn in ("01", "02"):  # the folders the log reads now are rewritten whole
        folder = git(repo, env, "rev-parse", f"teddy/{session}/main:{turn}").strip()
        assert json.loads((cache / f"{folder}.json").read_text())["format"] == 1

    shutil.rmtree(cache)
    assert paused_log(repo, teddy, env, session) == warm

    shutil.rmtree(cache)
    cache.write_text("in the way\n")  # a file where the folder should be: silent, no cache
    result = teddy.ok(repo, "pause")
    assert "error" not in result.stderr and "Traceback" not in result.stderr
    assert git(repo, env, "show", f"teddy/{session}/main:session.md") == warm
