"""One read of the repository per command (issue 24, item 2): a command lists teddy's refs
once, with one `git for-each-ref` of its namespaces (one prefix per remote), and never all of
refs/remotes/; thousands of remote-tracking branches that are not teddy's change no answer.
Counted with GIT_TRACE2_EVENT, never timed (benchmarks/bench_refs.py times them)."""

import json
from pathlib import Path

import pytest
import requests

from git_teddy.gitstore.reflisting import RefListing
from git_teddy.session.refnames import group_session_refs
from testing.commands import Teddy, git, run, serving
from testing.plans import create, plan_text
from testing.repos import bare_remote

UNRELATED = 3000  # remote-tracking branches that are not teddy's
COMMANDS = (["execute", "-y"], ["show"], ["list"], ["context"])


def unrelated_branches(repo: Path, env: dict, remote: str, packed: bool) -> None:
    """What a monorepo's fetch leaves, and names that look like teddy's but are not: a
    `teddy` deeper down, a prefix that only starts like it, a remote no longer configured."""
    head = git(repo, env, "rev-parse", "HEAD").strip()
    names = [f"refs/remotes/{remote}/team-{n % 40}/feature-{n}" for n in range(UNRELATED)]
    names += [
        f"refs/remotes/{remote}/feature/teddy/20200101-deep/main",
        f"refs/remotes/{remote}/teddy-other/20200101-near/main",
        "refs/remotes/gone/teddy/20200101-ghost/main",
    ]
    lines = "".join(f"create {name} {head}\n" for name in names)
    run(["git", "update-ref", "--stdin"], repo, env, input=lines, check=True)
    if packed:
        git(repo, env, "pack-refs", "--all")


def listings(teddy: Teddy, repo: Path, *args: str) -> list[list[str]]:
    """Run `git teddy ARGS`; the ref patterns of each `git for-each-ref` it started."""
    trace = repo.parent / "trace2.json"
    trace.unlink(missing_ok=True)
    Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).ok(repo, *args)
    starts = [json.loads(line) for line in trace.read_text().splitlines()]
    argvs = [e["argv"] for e in starts if e["event"] == "start"]
    return [argv[argv.index("for-each-ref") + 1 :] for argv in argvs if "for-each-ref" in argv]


def patterns(found: list[list[str]]) -> set[str]:
    return {arg for argv in found for arg in argv if not arg.startswith("--")}


@pytest.fixture
def shared(tmp_path: Path, repo: Path, env: dict, teddy: Teddy) -> tuple[Path, str]:
    """A clone (remote `Team`: its case kept) that fetched a teammate's session."""
    remote = bare_remote(tmp_path, repo, env)
    theirs = teddy.ok(repo, "new", "teammate").stdout.strip()
    plan_file = tmp_path / "plan.md"
    plan_file.write_text(plan_text(create("theirs.txt", "theirs\n")))
    teddy.ok(repo, "plan", "-m", "their turn", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "push")
    mine = tmp_path / "mine"
    git(tmp_path, env, "clone", "-q", "--origin", "Team", str(remote), str(mine))
    teddy.ok(mine, "fetch", "Team")
    return mine, theirs


def answers(teddy: Teddy, repo: Path, session: str) -> list[str]:
    return [
        teddy.ok(repo, "list", "--json").stdout,
        teddy.ok(repo, "show", "--json").stdout,
        teddy.ok(repo, "show", session, "--json").stdout,
        teddy.ok(repo, "log", session).stdout,
        teddy.ok(repo, "context").stdout,
    ]


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "loose"])
def test_unrelated_remote_branches_change_no_answer(
    shared: tuple[Path, str], teddy: Teddy, env: dict, packed: bool
) -> None:
    mine, theirs = shared
    own = teddy.ok(mine, "new", "own").stdout.strip()
    plan_file = mine.parent / "mine-plan.md"
    plan_file.write_text(plan_text(create("mine.txt", "mine\n")))
    teddy.ok(mine, "plan", "-m", "my turn", "--from-file", str(plan_file))
    teddy.ok(mine, "list")  # the index written: its answers are read back from then on
    before = answers(teddy, mine, theirs)
    unrelated_branches(mine, env, "Team", packed)
    assert answers(teddy, mine, theirs) == before
    listed = {s["id"] for s in json.loads(before[0])}
    assert listed == {own, theirs}  # the teammate's fetched session; no ghost, deep or near
    teddy.ok(mine, "execute", "-y")
    assert (mine / "mine.txt").read_text() == "mine\n"


def test_a_command_lists_teddys_refs_once_and_no_other_remote_branch(
    shared: tuple[Path, str], teddy: Teddy, env: dict
) -> None:
    mine, _ = shared
    unrelated_branches(mine, env, "Team", packed=True)
    teddy.ok(mine, "new", "counted")
    plan_file = mine.parent / "counted-plan.md"
    plan_file.write_text(plan_text(create("counted.txt", "counted\n")))
    allowed = {"refs/heads/teddy/", "refs/remotes/Team/teddy/", "refs/teddy/"}
    found = listings(teddy, mine, "plan", "-m", "count", "--from-file", str(plan_file))
    assert len(found) == 1 and patterns(found) == allowed
    for command in COMMANDS:
        found = listings(teddy, mine, *command)
        # context: the cached answer's lookup, the full command's store, and the check that
        # nothing moved before its answer is stored (tests/test_context_cache.py)
        assert len(found) <= (3 if command == ["context"] else 1), (command, found)
        assert patterns(found) <= allowed, (command, found)


def test_sessions_are_grouped_from_the_configured_remotes_only() -> None:
    refs = {
        "refs/heads/teddy/s1/main": "a1",
        "refs/remotes/b/teddy/s1/main": "b1",  # a local branch wins
        "refs/remotes/b/teddy/s2/main": "b2",
        "refs/remotes/a/teddy/s2/main": "a2",  # the first remote by name wins
        "refs/remotes/a/b/teddy/s3/main": "ab3",  # a remote with a slash in its name
        "refs/remotes/gone/teddy/s4/main": "g4",  # not a remote any more
        "refs/remotes/a/teddy/s5/x/y": "deep",  # not a branch of a session
    }
    grouped = group_session_refs(refs, "teddy/", ["a", "b", "a/b"])
    assert grouped == {"s1": {"main": "a1"}, "s2": {"main": "a2"}, "s3": {"main": "ab3"}}


def test_serve_reads_the_refs_again_for_each_request(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    """A server lives across many requests: a session made after it started is served."""
    first = teddy.ok(repo, "new", "first").stdout.strip()
    with serving(repo, env) as (base, _port):
        assert requests.get(f"{base}session/{first}", timeout=30).ok
        second = teddy.ok(repo, "new", "second").stdout.strip()
        assert requests.get(f"{base}session/{second}", timeout=30).ok


def test_a_listing_follows_the_commands_own_writes() -> None:
    listing = RefListing(
        ["refs/heads/teddy/", "refs/teddy/"],
        {"refs/heads/teddy/s1/main": "a", "refs/teddy/keep/s1": "k", "refs/teddy/keep/s10": "x"},
    )
    listing.wrote("refs/heads/teddy/s2/main", "b")
    listing.wrote("refs/teddy/keep/s10", None)
    listing.wrote("refs/heads/feature", "f")  # not a listed prefix: not kept
    assert listing.version == 2
    assert listing.under("refs/heads/teddy/") == {
        "refs/heads/teddy/s1/main": "a",
        "refs/heads/teddy/s2/main": "b",
    }
    assert listing.under("refs/teddy/keep/s1") == {"refs/teddy/keep/s1": "k"}
    assert not listing.covers("refs/heads/feature") and "refs/heads/feature" not in listing.refs
